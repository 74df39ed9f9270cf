import { expect } from "chai";
import fc from "fast-check";
import { computeSwapStep, newSwapStep } from "../../sdk/amm/v3/swapMath";
import { mulDiv, mulDivRoundingUp, UINT256_CEILING, V3MathError } from "../../sdk/amm/v3/fullMath";
import { getAmount0Delta, getAmount1Delta, getNextSqrtPriceFromInput, getNextSqrtPriceFromOutput } from "../../sdk/amm/v3/sqrtPriceMath";
import { nextInitializedTickWithinOneWord } from "../../sdk/amm/v3/tickList";
import {
  getSqrtRatioAtTick,
  getTickAtSqrtRatio,
  MAX_SQRT_RATIO,
  MAX_SWAP_FEE,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
  quoteConcentratedExactInput,
  quoteConcentratedExactOutput,
  swapFeePips,
  type ConcentratedPoolState,
} from "../../sdk";
import { afterLiquidityChange, type V3PoolState } from "../../api/quote/venues/uniswapV3/v3PoolState";
import { v3Curve, v3ExactInput, v3ExactOutput, v3SpotPrice } from "../../api/quote/venues/uniswapV3/v3Pricing";

const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 4663;
const runs = (count: number) => ({ seed: SEED, numRuns: Math.max(1, Math.round(count * Number(process.env.FUZZ_SCALE ?? "1"))) });
const Q96 = 1n << 96n;
const E18 = 10n ** 18n;
/** encodePriceSqrt(reserve1, reserve0) of Uniswap's tests: floor(sqrt(reserve1 / reserve0) * 2^96). */
function encodePriceSqrt(reserve1: bigint, reserve0: bigint): bigint {
  const value = (reserve1 << 192n) / reserve0;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) [x, y] = [y, (y + value / y) / 2n];
  return x;
}

/**
 * TickMath.getTickAtSqrtRatio as the contract computes it (a 14-bit binary logarithm of the ratio,
 * scaled to ticks, then a one-tick correction): the reference the SDK's faster search must equal.
 */
function contractTickAtSqrtRatio(sqrtPriceX96: bigint): number {
  const ratio = sqrtPriceX96 << 32n;
  const msb = ratio.toString(2).length - 1;
  let r = msb >= 128 ? ratio >> BigInt(msb - 127) : ratio << BigInt(127 - msb);
  let log2 = BigInt(msb - 128) << 64n;
  for (let shift = 63n; shift >= 50n; shift--) {
    r = (r * r) >> 127n;
    const f = r >> 128n;
    log2 |= f << shift;
    r >>= f;
  }
  const logSqrt10001 = log2 * 255738958999603826347141n;
  const tickLow = Number((logSqrt10001 - 3402992956809132418596140100660247210n) >> 128n);
  const tickHigh = Number((logSqrt10001 + 291339464771989622907027621153398088495n) >> 128n);
  if (tickLow === tickHigh) return tickLow;
  return getSqrtRatioAtTick(tickHigh) <= sqrtPriceX96 ? tickHigh : tickLow;
}

describe("V3 tick math against Uniswap's own test vectors", () => {
  it("getSqrtRatioAtTick gives MIN/MAX_SQRT_RATIO at the tick bounds, 2^96 at tick 0, Uniswap's values next to the bounds, and refuses ticks beyond them", () => {
    expect(getSqrtRatioAtTick(MIN_TICK)).to.equal(MIN_SQRT_RATIO);
    expect(getSqrtRatioAtTick(MIN_TICK + 1)).to.equal(4295343490n);
    expect(getSqrtRatioAtTick(0)).to.equal(Q96);
    expect(getSqrtRatioAtTick(MAX_TICK - 1)).to.equal(1461373636630004318706518188784493106690254656249n);
    expect(getSqrtRatioAtTick(MAX_TICK)).to.equal(MAX_SQRT_RATIO);
    expect(MIN_SQRT_RATIO).to.equal(4295128739n);
    expect(MAX_SQRT_RATIO).to.equal(1461446703485210103287273052203988822378723970342n);
    expect(() => getSqrtRatioAtTick(MIN_TICK - 1)).to.throw(V3MathError);
    expect(() => getSqrtRatioAtTick(MAX_TICK + 1)).to.throw(V3MathError);
  });

  it("getTickAtSqrtRatio gives the bound ticks at the bound ratios and refuses ratios outside [MIN_SQRT_RATIO, MAX_SQRT_RATIO)", () => {
    expect(getTickAtSqrtRatio(MIN_SQRT_RATIO)).to.equal(MIN_TICK);
    expect(getTickAtSqrtRatio(4295343490n)).to.equal(MIN_TICK + 1);
    expect(getTickAtSqrtRatio(1461373636630004318706518188784493106690254656249n)).to.equal(MAX_TICK - 1);
    expect(getTickAtSqrtRatio(MAX_SQRT_RATIO - 1n)).to.equal(MAX_TICK - 1);
    expect(getTickAtSqrtRatio(Q96)).to.equal(0);
    expect(() => getTickAtSqrtRatio(MIN_SQRT_RATIO - 1n)).to.throw(V3MathError);
    expect(() => getTickAtSqrtRatio(MAX_SQRT_RATIO)).to.throw(V3MathError);
  });

  it("getTickAtSqrtRatio is the greatest tick at or below a ratio, for every tick and the ratios right around it", () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TICK, max: MAX_TICK - 1 }), fc.bigInt({ min: 0n, max: 1n << 64n }), (tick, offset) => {
        const ratio = getSqrtRatioAtTick(tick);
        expect(getTickAtSqrtRatio(ratio)).to.equal(tick);
        if (tick > MIN_TICK) expect(getTickAtSqrtRatio(ratio - 1n)).to.equal(tick - 1);
        const next = getSqrtRatioAtTick(tick + 1);
        expect(next > ratio).to.equal(true);
        const inside = ratio + (offset % (next - ratio));
        expect(getTickAtSqrtRatio(inside)).to.equal(tick);
      }),
      runs(2000),
    );
  });

  it("getTickAtSqrtRatio equals the contract's binary-logarithm computation for any ratio in range, and at every tick's edges", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_SQRT_RATIO, max: MAX_SQRT_RATIO - 1n }), fc.integer({ min: MIN_TICK + 1, max: MAX_TICK - 1 }), (ratio, tick) => {
        expect(getTickAtSqrtRatio(ratio)).to.equal(contractTickAtSqrtRatio(ratio));
        for (const edge of [getSqrtRatioAtTick(tick) - 1n, getSqrtRatioAtTick(tick)]) expect(getTickAtSqrtRatio(edge)).to.equal(contractTickAtSqrtRatio(edge));
      }),
      runs(2000),
    );
  });
});

describe("V3 full-precision and price math", () => {
  it("mulDiv rounds down and mulDivRoundingUp up, past 256-bit products, and both refuse a result of 2^256 or more, as FullMath reverts", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: UINT256_CEILING - 1n }), fc.bigInt({ min: 0n, max: UINT256_CEILING - 1n }), fc.bigInt({ min: 1n, max: UINT256_CEILING - 1n }), (a, b, d) => {
        const exact = (a * b) / d;
        if (exact >= UINT256_CEILING) {
          expect(() => mulDiv(a, b, d)).to.throw(V3MathError);
          return;
        }
        expect(mulDiv(a, b, d)).to.equal(exact);
        const up = (a * b) % d === 0n ? exact : exact + 1n;
        if (up >= UINT256_CEILING) expect(() => mulDivRoundingUp(a, b, d)).to.throw(V3MathError);
        else expect(mulDivRoundingUp(a, b, d)).to.equal(up);
      }),
      runs(500),
    );
    expect(mulDivRoundingUp(UINT256_CEILING - 1n, UINT256_CEILING - 1n, UINT256_CEILING - 1n)).to.equal(UINT256_CEILING - 1n);
    expect(() => mulDiv(1n, 1n, 0n)).to.throw(V3MathError);
  });

  it("next prices and amount deltas match Uniswap's SqrtPriceMath vectors (0.1 of a token in and out at 1:1, deltas between 1 and 1.21)", () => {
    const price = encodePriceSqrt(1n, 1n);
    expect(getNextSqrtPriceFromInput(price, E18, E18 / 10n, false)).to.equal(87150978765690771352898345369n);
    expect(getNextSqrtPriceFromInput(price, E18, E18 / 10n, true)).to.equal(72025602285694852357767227579n);
    expect(getNextSqrtPriceFromOutput(price, E18, E18 / 10n, false)).to.equal(88031291682515930659493278152n);
    expect(getNextSqrtPriceFromOutput(price, E18, E18 / 10n, true)).to.equal(71305346262837903834189555302n);
    const upper = encodePriceSqrt(121n, 100n);
    expect(getAmount0Delta(price, upper, E18, true)).to.equal(90909090909090910n);
    expect(getAmount0Delta(price, upper, E18, false)).to.equal(90909090909090909n);
    expect(getAmount1Delta(price, upper, E18, true)).to.equal(100000000000000000n);
    expect(getAmount1Delta(price, upper, E18, false)).to.equal(99999999999999999n);
    // Taking out all of token1 (or more) at a price is impossible: the contract reverts.
    expect(() => getNextSqrtPriceFromOutput(price, 1n, 4n, true)).to.throw(V3MathError);
    expect(() => getNextSqrtPriceFromInput(price, 0n, 1n, true)).to.throw(V3MathError);
  });

  it("computeSwapStep matches Uniswap's SwapMath vector (exact input capped at the target price, fee 0.06 %)", () => {
    const step = computeSwapStep(encodePriceSqrt(1n, 1n), encodePriceSqrt(101n, 100n), 2n * E18, E18, 600n, newSwapStep());
    expect(step.sqrtRatioNextX96).to.equal(encodePriceSqrt(101n, 100n));
    expect([step.amountIn, step.feeAmount, step.amountOut]).to.deep.equal([9975124224178055n, 5988667735148n, 9925619580021728n]);
  });

  it("a swap step never passes its target, takes at most what remains (exact input) and pays at most what is asked (exact output)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_TICK, max: MAX_TICK }),
        fc.integer({ min: MIN_TICK, max: MAX_TICK }),
        fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }),
        fc.bigInt({ min: -(1n << 200n), max: 1n << 200n }).filter((amount) => amount !== 0n),
        fc.integer({ min: 0, max: 999_999 }),
        (currentTick, targetTick, liquidity, amountRemaining, fee) => {
          const [current, target] = [getSqrtRatioAtTick(currentTick), getSqrtRatioAtTick(targetTick)];
          let step;
          try {
            step = computeSwapStep(current, target, liquidity, amountRemaining, BigInt(fee), newSwapStep());
          } catch (error) {
            expect(error).to.be.instanceOf(V3MathError);
            return;
          }
          const zeroForOne = current >= target;
          expect(zeroForOne ? step.sqrtRatioNextX96 >= target && step.sqrtRatioNextX96 <= current : step.sqrtRatioNextX96 <= target && step.sqrtRatioNextX96 >= current).to.equal(true);
          if (amountRemaining > 0n) expect(step.amountIn + step.feeAmount <= amountRemaining).to.equal(true);
          else expect(step.amountOut <= -amountRemaining).to.equal(true);
        },
      ),
      runs(1000),
    );
  });
});

describe("V3 tick-bitmap word stepping", () => {
  it("stops at the next initialized tick within the 256-spacing word, else at the word's edge, as TickBitmap does", () => {
    const ticks = [-600, -60, 0, 60, 15360].map((index) => ({ index, liquidityNet: 1n }));
    expect(nextInitializedTickWithinOneWord(ticks, 0, 60, true)).to.deep.equal({ next: 0, position: 2 });
    expect(nextInitializedTickWithinOneWord(ticks, 59, 60, true)).to.deep.equal({ next: 0, position: 2 });
    expect(nextInitializedTickWithinOneWord(ticks, -1, 60, true)).to.deep.equal({ next: -60, position: 1 });
    expect(nextInitializedTickWithinOneWord(ticks, 0, 60, false)).to.deep.equal({ next: 60, position: 3 });
    expect(nextInitializedTickWithinOneWord(ticks, 60, 60, false)).to.deep.equal({ next: 15300, position: -1 });
    expect(nextInitializedTickWithinOneWord(ticks, 15300, 60, false)).to.deep.equal({ next: 15360, position: 4 });
    expect(nextInitializedTickWithinOneWord(ticks, -601, 60, true)).to.deep.equal({ next: -15360, position: -1 });
  });
});

/** A pool built from random positions through the same liquidity bookkeeping the API follows events with. */
const poolArbitrary = fc
  .record({
    spacing: fc.constantFrom(1, 10, 60, 200),
    priceTick: fc.integer({ min: -50_000, max: 50_000 }),
    fee: fc.constantFrom(100, 500, 3000, 10000),
    positions: fc.array(fc.record({ from: fc.integer({ min: -400, max: 400 }), width: fc.integer({ min: 1, max: 300 }), liquidity: fc.bigInt({ min: 1n, max: 10n ** 24n }) }), { minLength: 1, maxLength: 12 }),
  })
  .map(({ spacing, priceTick, fee, positions }): ConcentratedPoolState => {
    const sqrtPriceX96 = getSqrtRatioAtTick(priceTick);
    const center = Math.floor(priceTick / spacing) * spacing;
    let pool: V3PoolState = { address: "0x0000000000000000000000000000000000000001", token0: "0x0000000000000000000000000000000000000002", token1: "0x0000000000000000000000000000000000000003", sqrtPriceX96, tick: priceTick, liquidity: 0n, fee, tickSpacing: spacing, ticks: [] };
    for (const position of positions) {
      const lower = Math.max(Math.ceil(MIN_TICK / spacing), Math.floor(center / spacing) + position.from) * spacing;
      const upper = Math.min(Math.floor(MAX_TICK / spacing) * spacing, lower + position.width * spacing);
      pool = afterLiquidityChange(pool, lower, upper, position.liquidity);
    }
    return pool;
  });

describe("V3 swap simulator properties", () => {
  it("an exact-output quote for what an exact input pays never asks more than that input, and more input never pays less", () => {
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 26n }), (pool, zeroForOne, amountIn) => {
        const forward = quoteConcentratedExactInput(pool, zeroForOne, amountIn);
        if (forward === undefined || !forward.filled || forward.amountOut === 0n) return;
        const back = quoteConcentratedExactOutput(pool, zeroForOne, forward.amountOut)!;
        expect(back.filled).to.equal(true);
        expect(back.amountIn <= amountIn, "exact output of the same amount costs at most the input").to.equal(true);
        const more = quoteConcentratedExactInput(pool, zeroForOne, amountIn * 2n)!;
        expect(more.amountOut >= forward.amountOut).to.equal(true);
      }),
      runs(300),
    );
  });

  it("an exact input that drains every position is unfilled (a partial fill that routing must refuse) and ends at the price limit with no liquidity left", () => {
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), (pool, zeroForOne) => {
        const drained = quoteConcentratedExactInput(pool, zeroForOne, 1n << 200n);
        if (drained === undefined) return;
        expect(drained.filled).to.equal(false);
        expect(drained.sqrtPriceAfter).to.equal(zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n);
        expect(drained.liquidityAfter).to.equal(0n);
        expect(drained.amountIn < 1n << 200n).to.equal(true);
      }),
      runs(100),
    );
  });

  it("refuses what the pool reverts on: a zero amount, and a price limit on the wrong side of the price", () => {
    const pool: ConcentratedPoolState = { sqrtPriceX96: Q96, tick: 0, liquidity: E18, fee: 3000, tickSpacing: 60, ticks: [] };
    expect(quoteConcentratedExactInput(pool, true, 0n)).to.equal(undefined);
    expect(quoteConcentratedExactOutput(pool, true, 0n)).to.equal(undefined);
    expect(quoteConcentratedExactInput(pool, true, E18, Q96 + 1n)).to.equal(undefined);
    expect(quoteConcentratedExactInput(pool, false, E18, Q96 - 1n)).to.equal(undefined);
    expect(quoteConcentratedExactInput(pool, true, E18, MIN_SQRT_RATIO)).to.equal(undefined);
  });
});

describe("V3 pricing for route search", () => {
  const token0 = "0x0000000000000000000000000000000000000002" as const;
  const token1 = "0x0000000000000000000000000000000000000003" as const;

  it("the spot price is the first wei's price and the local curve predicts a swap inside the current tick range to a part in a million, both directions", () => {
    let checked = 0;
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), (generated, zeroForOne) => {
        const pool = generated as V3PoolState;
        if (pool.liquidity === 0n) return;
        const tokenIn = zeroForOne ? token0 : token1;
        const [numerator, denominator] = v3SpotPrice(pool, tokenIn)!;
        const curve = v3Curve(pool, tokenIn, 0n)!;
        expect(Math.abs(curve.p / (Number(numerator) / Number(denominator)) - 1)).to.be.lessThan(1e-9);
        // A swap small enough to stay between the current ticks: the virtual-reserve curve holds.
        const amountIn = pool.liquidity / 10n ** 6n + 10n ** 6n;
        const swapped = v3ExactInput(pool, tokenIn, amountIn);
        if (swapped === undefined || swapped.ticksCrossed > 0) return;
        const d = Number(amountIn);
        const predicted = (curve.p * d) / (1 + curve.q * d);
        expect(Math.abs(predicted / Number(swapped.amountOut) - 1)).to.be.lessThan(1e-6);
        checked++;
        // The exact-output quote for that output asks at most the input.
        expect(v3ExactOutput(pool, tokenIn, swapped.amountOut)!.amountIn <= amountIn).to.equal(true);
      }),
      runs(200),
    );
    expect(checked, "cases swapping inside the current range").to.be.greaterThan(20);
  });

  it("refuses a token the pool does not hold and a sale the pool cannot fill", () => {
    const pool: V3PoolState = { address: "0x0000000000000000000000000000000000000001", token0, token1, sqrtPriceX96: Q96, tick: 0, liquidity: E18, fee: 3000, tickSpacing: 60, ticks: [{ index: -60, liquidityNet: E18, liquidityGross: E18 }, { index: 60, liquidityNet: -E18, liquidityGross: E18 }] };
    expect(v3ExactInput(pool, "0x0000000000000000000000000000000000000009", E18)).to.equal(undefined);
    expect(v3SpotPrice(pool, "0x0000000000000000000000000000000000000009")).to.equal(undefined);
    expect(v3ExactInput(pool, token0, 10n * E18), "more than the range holds: a partial fill").to.equal(undefined);
    expect(v3ExactInput(pool, token0, E18 / 1000n)!.amountOut > 0n).to.equal(true);
    expect(v3ExactOutput(pool, token0, 10n * E18)).to.equal(undefined);
  });
});

describe("V3 simulator parameters V4 reuses", () => {
  const pool: ConcentratedPoolState = { sqrtPriceX96: Q96, tick: 0, liquidity: 10n ** 24n, fee: 3000, tickSpacing: 60, ticks: [] };

  it("a V4 protocol fee combines with the LP fee per direction as ProtocolFeeLibrary.calculateSwapFee does, and the swap pays the combined fee", () => {
    const protocolFee = 1000 | (500 << 12);
    expect(swapFeePips(3000, protocolFee, true)).to.equal(3997);
    expect(swapFeePips(3000, protocolFee, false)).to.equal(3499);
    expect(swapFeePips(3000, 0, true)).to.equal(3000);
    for (const zeroForOne of [true, false]) {
      const combined = swapFeePips(3000, protocolFee, zeroForOne);
      expect(quoteConcentratedExactInput({ ...pool, protocolFee }, zeroForOne, E18)).to.deep.equal(quoteConcentratedExactInput({ ...pool, fee: combined }, zeroForOne, E18));
      expect(quoteConcentratedExactOutput({ ...pool, protocolFee }, zeroForOne, E18)).to.deep.equal(quoteConcentratedExactOutput({ ...pool, fee: combined }, zeroForOne, E18));
    }
  });

  it("at a 100 % fee (possible in V4) an exact input buys nothing and an exact output is refused", () => {
    const full = { ...pool, fee: MAX_SWAP_FEE };
    const result = quoteConcentratedExactInput(full, true, E18)!;
    expect([result.amountIn, result.amountOut, result.filled, result.sqrtPriceAfter]).to.deep.equal([E18, 0n, true, Q96]);
    expect(quoteConcentratedExactOutput(full, true, E18)).to.equal(undefined);
  });
});
