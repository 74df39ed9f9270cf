import { V3MathError } from "./fullMath";
import { MAX_SWAP_FEE, swapFeePips } from "./swapFee";
import { computeSwapStep, newSwapStep } from "./swapMath";
import { firstTickAbove, lastEmptyWordEdge, nextTickWithinWord, type V3Tick } from "./tickList";
import { MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK, getSqrtRatioAtTick, getTickAtSqrtRatio } from "./tickMath";

const MAX_UINT128 = (1n << 128n) - 1n;

/**
 * What a concentrated-liquidity swap depends on. V3 and V4 pools differ only in where these come
 * from: `fee` (a V3 pool's fixed fee; a V4 pool's LP fee, dynamic or not), `protocolFee` (V4 only:
 * it raises the fee a swap pays; V3's is carved out of the LP fee and changes no amount), and
 * `ticks`, however they were learned.
 */
export type ConcentratedPoolState = Readonly<{
  sqrtPriceX96: bigint;
  tick: number;
  /** Active liquidity at the current price. */
  liquidity: bigint;
  /** Swap fee in hundredths of a bip (3000 = 0.3 %): V3's fee, V4's LP fee. */
  fee: number;
  /** V4's packed protocol fee (12 bits per direction, zero-for-one low); absent or 0 for V3. */
  protocolFee?: number;
  tickSpacing: number;
  /** Every initialized tick within `tickRange` (all of them when it is absent), sorted by index. */
  ticks: readonly V3Tick[];
  /**
   * The ticks known: `ticks` is complete only inside [lower, upper] (a bounded read of a large pool).
   * A swap that would have to look outside stops there and reports itself unfilled.
   */
  tickRange?: Readonly<{ lower: number; upper: number }>;
}>;

/** A swap's outcome, as the pool would settle it. */
export type ConcentratedSwapResult = Readonly<{
  /** Input the pool takes, fee included. */
  amountIn: bigint;
  amountOut: bigint;
  /**
   * Whether the whole specified amount was swapped. False when the price limit was reached, the
   * pool ran out of liquidity, or the known ticks ran out: routing must not use an unfilled swap.
   */
  filled: boolean;
  sqrtPriceAfter: bigint;
  tickAfter: number;
  liquidityAfter: bigint;
  /** Initialized ticks crossed (each costs gas on chain). */
  ticksCrossed: number;
}>;

/** The most extreme limit a swap may use in its direction, as routers pass for "no limit". */
export function defaultSqrtPriceLimit(zeroForOne: boolean): bigint {
  return zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n;
}

// One step record for every swap: the simulator is synchronous, so it is never shared mid-step.
const step = newSwapStep();

/**
 * The pool's swap loop (UniswapV3Pool.swap) run over `pool`: `amountSpecified` positive swaps exactly
 * that input, negative receives exactly that output. Steps stop at the same tick-bitmap word edges as
 * on chain, so amounts round identically. Throws V3MathError where the pool would revert (a zero
 * amount, a price limit on the wrong side or out of range, an arithmetic overflow).
 */
export function simulateConcentratedSwap(pool: ConcentratedPoolState, zeroForOne: boolean, amountSpecified: bigint, sqrtPriceLimitX96: bigint = defaultSqrtPriceLimit(zeroForOne)): ConcentratedSwapResult {
  if (amountSpecified === 0n) throw new V3MathError("zero amount");
  if (pool.sqrtPriceX96 === 0n) throw new V3MathError("pool not initialized");
  const limitValid = zeroForOne
    ? sqrtPriceLimitX96 < pool.sqrtPriceX96 && sqrtPriceLimitX96 > MIN_SQRT_RATIO
    : sqrtPriceLimitX96 > pool.sqrtPriceX96 && sqrtPriceLimitX96 < MAX_SQRT_RATIO;
  if (!limitValid) throw new V3MathError("price limit");

  const exactInput = amountSpecified > 0n;
  const feePips = pool.protocolFee === undefined || pool.protocolFee === 0 ? pool.fee : swapFeePips(pool.fee, pool.protocolFee, zeroForOne);
  // A 100 % fee leaves nothing to buy an exact output with: V4 refuses it (V3 fees are always lower).
  if (!exactInput && feePips >= MAX_SWAP_FEE) throw new V3MathError("no exact output at a 100 % fee");
  const fee = BigInt(feePips);
  const ticks = pool.ticks;
  const spacing = pool.tickSpacing;
  const range = pool.tickRange;
  let remaining = amountSpecified;
  let calculated = 0n;
  let price = pool.sqrtPriceX96;
  let tick = pool.tick;
  let liquidity = pool.liquidity;
  let crossed = 0;
  let outOfKnownTicks = false;
  // The next initialized tick's place in `ticks`: the last at or below the tick going down, the first above it going up.
  let cursor = firstTickAbove(ticks, tick) - (zeroForOne ? 1 : 0);

  while (remaining !== 0n && price !== sqrtPriceLimitX96) {
    const start = price;
    const candidate = ticks[cursor];
    let tickNext = nextTickWithinWord(candidate?.index, tick, spacing, zeroForOne);
    const initialized = candidate !== undefined && tickNext === candidate.index;
    if (tickNext < MIN_TICK) tickNext = MIN_TICK;
    else if (tickNext > MAX_TICK) tickNext = MAX_TICK;
    if (range !== undefined && (tickNext < range.lower || tickNext > range.upper)) {
      outOfKnownTicks = true;
      break;
    }
    if (liquidity === 0n && !initialized) {
      // Past a pool's last position the swap would walk empty bitmap words one by one (up to a few
      // hundred, most of all steps on bench:routing's mixed market), moving the price and swapping
      // nothing: it goes to the last of those edges at once, unless its price limit comes first.
      const edge = lastEmptyWordEdge(candidate?.index, tickNext, spacing, zeroForOne, zeroForOne ? MIN_TICK : MAX_TICK);
      const edgePrice = edge === undefined || (range !== undefined && (edge < range.lower || edge > range.upper)) ? undefined : getSqrtRatioAtTick(edge);
      if (edgePrice !== undefined && (zeroForOne ? edgePrice >= sqrtPriceLimitX96 : edgePrice <= sqrtPriceLimitX96)) {
        price = edgePrice;
        tick = zeroForOne ? edge! - 1 : edge!;
        continue;
      }
    }
    const sqrtPriceNext = getSqrtRatioAtTick(tickNext);
    const target = zeroForOne ? (sqrtPriceNext < sqrtPriceLimitX96 ? sqrtPriceLimitX96 : sqrtPriceNext) : sqrtPriceNext > sqrtPriceLimitX96 ? sqrtPriceLimitX96 : sqrtPriceNext;
    if (liquidity === 0n) {
      // Nothing to trade against: the step moves the price to its target and swaps nothing, which is
      // what computeSwapStep returns at zero liquidity. A swap past a pool's last position walks up to
      // a few hundred empty bitmap words (93 % of all steps on bench:routing's mixed market), so they
      // skip its arithmetic.
      price = target;
    } else {
      computeSwapStep(price, target, liquidity, remaining, fee, step);
      price = step.sqrtRatioNextX96;
      if (exactInput) {
        remaining -= step.amountIn + step.feeAmount;
        calculated -= step.amountOut;
      } else {
        remaining += step.amountOut;
        calculated += step.amountIn + step.feeAmount;
      }
    }
    if (price === sqrtPriceNext) {
      if (initialized) {
        const net = ticks[cursor]!.liquidityNet;
        liquidity = zeroForOne ? liquidity - net : liquidity + net;
        if (liquidity < 0n || liquidity > MAX_UINT128) throw new V3MathError("liquidity out of range");
        crossed++;
        cursor += zeroForOne ? -1 : 1;
      }
      tick = zeroForOne ? tickNext - 1 : tickNext;
    } else if (price !== start) {
      tick = getTickAtSqrtRatio(price);
      cursor = firstTickAbove(ticks, tick) - (zeroForOne ? 1 : 0);
    }
  }

  const specifiedSwapped = amountSpecified - remaining;
  return {
    amountIn: exactInput ? specifiedSwapped : calculated,
    amountOut: exactInput ? -calculated : -specifiedSwapped,
    filled: remaining === 0n && !outOfKnownTicks,
    sqrtPriceAfter: price,
    tickAfter: tick,
    liquidityAfter: liquidity,
    ticksCrossed: crossed,
  };
}

/**
 * Swapping exactly `amountIn` through `pool` (token0 for token1 when `zeroForOne`): undefined when the
 * pool would revert. Check `filled` before routing through it.
 */
export function quoteConcentratedExactInput(pool: ConcentratedPoolState, zeroForOne: boolean, amountIn: bigint, sqrtPriceLimitX96?: bigint): ConcentratedSwapResult | undefined {
  if (amountIn <= 0n) return undefined;
  return attempt(pool, zeroForOne, amountIn, sqrtPriceLimitX96);
}

/** Receiving exactly `amountOut` from `pool`: undefined when the pool would revert. Check `filled`. */
export function quoteConcentratedExactOutput(pool: ConcentratedPoolState, zeroForOne: boolean, amountOut: bigint, sqrtPriceLimitX96?: bigint): ConcentratedSwapResult | undefined {
  if (amountOut <= 0n) return undefined;
  return attempt(pool, zeroForOne, -amountOut, sqrtPriceLimitX96);
}

function attempt(pool: ConcentratedPoolState, zeroForOne: boolean, amountSpecified: bigint, sqrtPriceLimitX96: bigint | undefined): ConcentratedSwapResult | undefined {
  try {
    return simulateConcentratedSwap(pool, zeroForOne, amountSpecified, sqrtPriceLimitX96);
  } catch (error) {
    if (error instanceof V3MathError) return undefined;
    throw error;
  }
}
