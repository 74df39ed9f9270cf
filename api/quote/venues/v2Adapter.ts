import type { Address } from "viem";
import { getAmountIn, getAmountOut } from "../../../sdk";
import { V2_HOP_GAS } from "../gas/gasEstimate";
import type { V2Pool } from "./pricedPool";
import type { VenueAdapter } from "./venueAdapter";

/** A V2 pair keeps reserves in uint112: a swap that would push the input reserve past it reverts. */
const MAX_RESERVE = (1n << 112n) - 1n;

/** The pair's reserves as (in, out) for a sale of `tokenIn`; undefined when it does not hold that token. */
function reservesFor(pool: V2Pool, tokenIn: Address): readonly [bigint, bigint] | undefined {
  if (pool.token0 === tokenIn) return [pool.reserve0, pool.reserve1];
  if (pool.token1 === tokenIn) return [pool.reserve1, pool.reserve0];
  return undefined;
}

function amountOut(pool: V2Pool, tokenIn: Address, amountIn: bigint): bigint {
  const reserves = reservesFor(pool, tokenIn);
  if (reserves === undefined) return 0n;
  const [reserveIn, reserveOut] = reserves;
  if (reserveIn + amountIn > MAX_RESERVE) return 0n;
  // An empty side (anyone can make one: send one token to a pair, then sync) would price the whole
  // other reserve for any input, which the pair then refuses to pay out: no hop.
  if (reserveIn === 0n || reserveOut === 0n) return 0n;
  return getAmountOut(amountIn, reserveIn, reserveOut, pool.feeBps);
}

/**
 * Uniswap V2 and its forks (a fork is a venue name, a factory, an init-code hash and a fee: the same
 * adapter). Exact on-chain V2 arithmetic; the output curve is exactly linear-fractional.
 */
export const v2Adapter: VenueAdapter<V2Pool> = {
  kind: "v2",
  exactOutput: true,
  exactCurve: true,
  amountOut,
  amountIn(pool, tokenIn, amountOut) {
    const reserves = reservesFor(pool, tokenIn);
    if (reserves === undefined) return undefined;
    const [reserveIn, reserveOut] = reserves;
    if (reserveIn === 0n || reserveOut === 0n || amountOut <= 0n) return undefined;
    const amountIn = getAmountIn(amountOut, reserveIn, reserveOut, pool.feeBps);
    if (amountIn === undefined || reserveIn + amountIn > MAX_RESERVE) return undefined;
    return amountIn;
  },
  spotPrice(pool, tokenIn) {
    const reserves = reservesFor(pool, tokenIn);
    if (reserves === undefined || reserves[0] === 0n) return undefined;
    return [reserves[1] * BigInt(10_000 - pool.feeBps), reserves[0] * 10_000n];
  },
  curve(pool, tokenIn, amountIn) {
    // With reserves (Rin, Rout) after the input already sold, d more pays γ·d·Rout / (Rin + γ·d).
    const reserves = reservesFor(pool, tokenIn);
    if (reserves === undefined) return undefined;
    const sold = amountIn > 0n ? amountOut(pool, tokenIn, amountIn) : 0n;
    const reserveIn = Number(reserves[0] + amountIn);
    const reserveOut = Number(reserves[1] - sold);
    if (!(reserveIn > 0) || !(reserveOut > 0)) return undefined;
    const gamma = (10_000 - pool.feeBps) / 10_000;
    return { p: (gamma * reserveOut) / reserveIn, q: gamma / reserveIn };
  },
  hopGas(pool) {
    return V2_HOP_GAS.perHop + (pool.oracleStarted ? 0 : V2_HOP_GAS.oracleStart);
  },
  action(pool, tokenOut) {
    return { type: "swapV2", pair: pool.address, tokenOut, feeBps: pool.feeBps };
  },
  feePips(pool) {
    return pool.feeBps * 100;
  },
};
