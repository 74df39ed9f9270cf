import type { Address } from "viem";
import { getAmountOut } from "../../sdk";

/** A pool with its reserves at the block being quoted. Token addresses are lowercase. */
export type PricedPool = Readonly<{
  address: Address;
  token0: Address;
  token1: Address;
  reserve0: bigint;
  reserve1: bigint;
  feeBps: number;
  source: "uniswap-v2";
  /**
   * Whether the pair's price accumulators are non-zero. A V2 pair's first swap after its first
   * mint writes both from zero, which costs about 34,000 gas more than later swaps.
   */
  oracleStarted: boolean;
  /**
   * The pair's `blockTimestampLast` (uint32) at this state, when known: with it, a `Sync` tells
   * whether it started the oracle, and the pool need not be read again on its first swap.
   */
  timestampLast?: number;
}>;

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

/** A V2 pair keeps reserves in uint112: a swap that would push the input reserve past it reverts. */
const MAX_RESERVE = (1n << 112n) - 1n;

/** What `amountIn` of `tokenIn` buys through `pool`; 0n when the pool cannot take it (no hop). */
export function amountThrough(pool: PricedPool, tokenIn: Address, amountIn: bigint): bigint {
  const zeroForOne = pool.token0 === tokenIn;
  if (!zeroForOne && pool.token1 !== tokenIn) return 0n;
  const [reserveIn, reserveOut] = zeroForOne ? [pool.reserve0, pool.reserve1] : [pool.reserve1, pool.reserve0];
  if (reserveIn + amountIn > MAX_RESERVE) return 0n;
  // An empty side (anyone can make one: send one token to a pair, then sync) would price the whole
  // other reserve for any input, which the pair then refuses to pay out: no hop.
  if (reserveIn === 0n || reserveOut === 0n) return 0n;
  return getAmountOut(amountIn, reserveIn, reserveOut, pool.feeBps);
}

export function hopThrough(pool: PricedPool, tokenIn: Address, amountIn: bigint): RouteHop | undefined {
  const amountOut = amountThrough(pool, tokenIn, amountIn);
  if (amountOut <= 0n) return undefined;
  return { pool, tokenIn, tokenOut: pool.token0 === tokenIn ? pool.token1 : pool.token0, amountIn, amountOut };
}

/**
 * The path that pays the most `tokenOut` for `amountIn` of `tokenIn`, over every simple path of up
 * to `maxHops` pools (no pool or token visited twice). Amounts are the exact on-chain V2 outputs, so
 * the route pays what the router pays at the same reserves. Undefined when no path gives any output.
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
