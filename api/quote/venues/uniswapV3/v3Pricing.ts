import type { Address } from "viem";
import { quoteConcentratedExactInput, quoteConcentratedExactOutput, type ConcentratedSwapResult, type V3PoolState } from "../../../../sdk";

/**
 * What a venue adapter needs to route through a V3 pool (V3 forks alike; V4 pools the same over their
 * own state): exact amounts from the swap simulator, and for choosing, the marginal price and the
 * local output curve. Tokens are compared lowercase, as pool states store them.
 */

const FEE_UNITS = 1_000_000n;
const Q192 = 1n << 192n;

/** Whether selling `tokenIn` through `pool` is token0 for token1; undefined when the pool does not hold it. */
export function v3Direction(pool: V3PoolState, tokenIn: Address): boolean | undefined {
  const token = tokenIn.toLowerCase();
  if (token === pool.token0) return true;
  if (token === pool.token1) return false;
  return undefined;
}

/**
 * Selling exactly `amountIn` of `tokenIn` through `pool`, as the pool would settle it (amounts,
 * ticks crossed for the gas model); undefined when the pool cannot fill all of it (a partial fill, a
 * swap leaving the ticks known, a revert), which routing must not use.
 */
export function v3ExactInput(pool: V3PoolState, tokenIn: Address, amountIn: bigint): ConcentratedSwapResult | undefined {
  const zeroForOne = v3Direction(pool, tokenIn);
  if (zeroForOne === undefined) return undefined;
  const last = lastExactInput.get(pool);
  if (last !== undefined && last.zeroForOne === zeroForOne && last.amountIn === amountIn) return last.result;
  const swapped = quoteConcentratedExactInput(pool, zeroForOne, amountIn);
  const result = swapped !== undefined && swapped.filled && swapped.amountOut > 0n ? swapped : undefined;
  if (last === undefined) lastExactInput.set(pool, { zeroForOne, amountIn, result });
  else {
    last.zeroForOne = zeroForOne;
    last.amountIn = amountIn;
    last.result = result;
  }
  return result;
}

/**
 * The last exact-input swap simulated through each pool state. A route search asks one pool the same
 * question several times in a row (its output, then its gas from the ticks it crosses, then the hop
 * of the winner, then the path's gas), and a simulation is most of a quote's time on a V3 market
 * (the profile of `bench:routing`'s mixed market): the answer is kept rather than simulated again.
 * States are immutable, so an entry never goes stale; it goes with its state.
 */
const lastExactInput = new WeakMap<V3PoolState, { zeroForOne: boolean; amountIn: bigint; result: ConcentratedSwapResult | undefined }>();

/** Buying exactly `amountOut` of the other token with `tokenIn`: the input the pool asks; undefined when it cannot pay that much. */
export function v3ExactOutput(pool: V3PoolState, tokenIn: Address, amountOut: bigint): ConcentratedSwapResult | undefined {
  const zeroForOne = v3Direction(pool, tokenIn);
  if (zeroForOne === undefined) return undefined;
  const result = quoteConcentratedExactOutput(pool, zeroForOne, amountOut);
  return result !== undefined && result.filled ? result : undefined;
}

/**
 * The marginal price of selling `tokenIn` at the pool's price, fee included, as an exact ratio (out
 * per in): P·(1 - fee) selling token0, (1 - fee)/P selling token1, with P = (sqrtPriceX96 / 2^96)^2.
 * Undefined when the pool holds no liquidity at its price.
 */
export function v3SpotPrice(pool: V3PoolState, tokenIn: Address): readonly [numerator: bigint, denominator: bigint] | undefined {
  const zeroForOne = v3Direction(pool, tokenIn);
  if (zeroForOne === undefined || pool.sqrtPriceX96 === 0n || pool.liquidity === 0n) return undefined;
  const squared = pool.sqrtPriceX96 * pool.sqrtPriceX96;
  const keep = FEE_UNITS - BigInt(pool.fee);
  return zeroForOne ? [squared * keep, Q192 * FEE_UNITS] : [Q192 * keep, squared * FEE_UNITS];
}

/**
 * The local output curve `p·d / (1 + q·d)` for `d` more input beyond `amountIn` already sold: within a
 * tick range a V3 pool is a constant product over virtual reserves x = L / √P and y = L·√P, so
 * p = γ·y/x and q = γ/x selling token0 (γ = 1 - fee), mirrored selling token1. Exact only until the
 * next initialized tick: for choosing, never for amounts. Undefined when no liquidity is left there.
 */
export function v3Curve(pool: V3PoolState, tokenIn: Address, amountIn: bigint): Readonly<{ p: number; q: number }> | undefined {
  const zeroForOne = v3Direction(pool, tokenIn);
  if (zeroForOne === undefined || pool.sqrtPriceX96 === 0n) return undefined;
  let sqrtPriceX96 = pool.sqrtPriceX96;
  let liquidity = pool.liquidity;
  if (amountIn > 0n) {
    const sold = v3ExactInput(pool, tokenIn, amountIn);
    if (sold === undefined) return undefined;
    sqrtPriceX96 = sold.sqrtPriceAfter;
    liquidity = sold.liquidityAfter;
  }
  if (liquidity === 0n) return undefined;
  const sqrtPrice = Number(sqrtPriceX96) / 2 ** 96;
  const virtual0 = Number(liquidity) / sqrtPrice;
  const virtual1 = Number(liquidity) * sqrtPrice;
  const gamma = 1 - pool.fee / 1e6;
  const [reserveIn, reserveOut] = zeroForOne ? [virtual0, virtual1] : [virtual1, virtual0];
  if (!(reserveIn > 0) || !(reserveOut > 0)) return undefined;
  return { p: (gamma * reserveOut) / reserveIn, q: gamma / reserveIn };
}
