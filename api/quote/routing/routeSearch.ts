import type { Address } from "viem";
import type { PricedPool } from "../venues/pricedPool";
import { amountThroughPool } from "../venues/venueAdapters";

/** A pool at the block being quoted, of any venue (venues/pricedPool.ts). */
export type { PricedPool, V2Pool, VenuePool } from "../venues/pricedPool";

export type RouteHop = Readonly<{
  pool: PricedPool;
  tokenIn: Address;
  tokenOut: Address;
  amountIn: bigint;
  amountOut: bigint;
}>;

export type FoundRoute = Readonly<{ hops: readonly RouteHop[]; amountOut: bigint }>;

/** Routes may cross at most this many pools. */
export const MAX_HOPS = 3;

/** What `amountIn` of `tokenIn` buys through `pool` (its venue's adapter); 0n when the pool cannot take it (no hop). */
export function amountThrough(pool: PricedPool, tokenIn: Address, amountIn: bigint): bigint {
  return amountThroughPool(pool, tokenIn, amountIn);
}

export function hopThrough(pool: PricedPool, tokenIn: Address, amountIn: bigint): RouteHop | undefined {
  const amountOut = amountThrough(pool, tokenIn, amountIn);
  if (amountOut <= 0n) return undefined;
  return { pool, tokenIn, tokenOut: pool.token0 === tokenIn ? pool.token1 : pool.token0, amountIn, amountOut };
}

/**
 * The path that pays the most `tokenOut` for `amountIn` of `tokenIn`, over every simple path of up
 * to `maxHops` pools (no pool or token visited twice), across every venue. Amounts are the exact
 * on-chain outputs (each venue's adapter), so the route pays what the router pays at the same state. Undefined when no path gives any output.
 */
export function findBestRoute(
  pools: readonly PricedPool[],
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  maxHops: number = MAX_HOPS,
): FoundRoute | undefined {
  const byToken = new Map<Address, PricedPool[]>();
  for (const pool of pools) {
    for (const token of [pool.token0, pool.token1]) {
      const list = byToken.get(token) ?? [];
      list.push(pool);
      byToken.set(token, list);
    }
  }
  let best: FoundRoute | undefined;
  const visitedTokens = new Set<Address>([tokenIn]);
  const path: RouteHop[] = [];

  const explore = (token: Address, amount: bigint): void => {
    for (const pool of byToken.get(token) ?? []) {
      if (path.some((hop) => hop.pool.address === pool.address)) continue;
      const hop = hopThrough(pool, token, amount);
      if (hop === undefined || visitedTokens.has(hop.tokenOut)) continue;
      path.push(hop);
      if (hop.tokenOut === tokenOut) {
        if (best === undefined || hop.amountOut > best.amountOut || (hop.amountOut === best.amountOut && path.length < best.hops.length)) {
          best = { hops: [...path], amountOut: hop.amountOut };
        }
      } else if (path.length < maxHops) {
        visitedTokens.add(hop.tokenOut);
        explore(hop.tokenOut, hop.amountOut);
        visitedTokens.delete(hop.tokenOut);
      }
      path.pop();
    }
  };
  if (amountIn > 0n && tokenIn !== tokenOut) explore(tokenIn, amountIn);
  return best;
}
