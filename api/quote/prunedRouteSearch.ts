import type { Address } from "viem";
import type { PricedMarket } from "./poolGraph";
import { amountThrough, hopThrough, MAX_HOPS, type FoundRoute, type PricedPool, type RouteHop } from "./routeSearch";

/** The hop through the pool between `tokenIn` and `tokenOut` that pays the most for `amountIn`. */
function bestHop(market: PricedMarket, tokenIn: Address, tokenOut: Address, amountIn: bigint): RouteHop | undefined {
  // Amounts first, one hop object for the winner: this runs ~80 times a quote, over every parallel pool.
  let best: PricedPool | undefined;
  let bestOut = 0n;
  for (const address of market.graph.between(tokenIn, tokenOut)) {
    const pool = market.pools.get(address);
    if (pool === undefined) continue;
    const amountOut = amountThrough(pool, tokenIn, amountIn);
    if (amountOut > bestOut) {
      best = pool;
      bestOut = amountOut;
    }
  }
  return best === undefined ? undefined : hopThrough(best, tokenIn, amountIn);
}

/** What a search tried, for the quote's route statistics; searches add to it. */
export type RouteSearchStats = { candidatePaths: number; successfulRoutes: number };

/**
 * The best path of up to `maxHops` pools whose intermediate tokens are among the market's hubs (its
 * best-connected tokens, `PoolGraph.hubs`). Its cost depends on the number of hubs and on the pools
 * joining each pair of tokens, not on the size of the market: about `1 + 2H + H²` pool lookups for
 * H hubs, where the exhaustive search (`findBestRoute`) walks every simple path.
 *
 * It is exact over those paths, not a heuristic among them: a V2 output never falls as its input
 * grows, so for a fixed sequence of tokens the best path takes the best pool at each step, and the
 * best three-hop path through Y starts from the largest amount any hub X delivers to Y. Ties go
 * to the shorter path, as in the exhaustive search. When a market has at most `HUB_COUNT` tokens,
 * every token is a hub and the result pays exactly what the exhaustive search's does (a test checks
 * this on the devnet market). Amounts are the exact on-chain V2 outputs.
 */
export function searchRoute(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  maxHops: number = MAX_HOPS,
  stats?: RouteSearchStats,
): FoundRoute | undefined {
  if (amountIn <= 0n || tokenIn === tokenOut) return undefined;
  let best: FoundRoute | undefined;
  const consider = (hops: RouteHop[]): void => {
    const amountOut = hops[hops.length - 1]!.amountOut;
    if (best === undefined || amountOut > best.amountOut) best = { hops, amountOut };
  };
  // A candidate is a token path tried; it succeeds when every hop has a pool that gives a positive output.
  const tried = (succeeded: boolean): void => {
    if (stats === undefined) return;
    stats.candidatePaths += 1;
    if (succeeded) stats.successfulRoutes += 1;
  };
  const direct = bestHop(market, tokenIn, tokenOut, amountIn);
  tried(direct !== undefined);
  if (direct !== undefined) consider([direct]);
  if (maxHops < 2) return best;

  const hubs = market.graph.hubs.filter((token) => token !== tokenIn && token !== tokenOut);
  const first: RouteHop[] = [];
  for (const hub of hubs) {
    const hop = bestHop(market, tokenIn, hub, amountIn);
    if (hop !== undefined) first.push(hop);
    else tried(false); // the two-hop path through this hub fails at its first hop
  }
  for (const hop of first) {
    const last = bestHop(market, hop.tokenOut, tokenOut, hop.amountOut);
    tried(last !== undefined);
    if (last !== undefined) consider([hop, last]);
  }

  if (maxHops < 3) return best;

  for (const hub of hubs) {
    let reach: [RouteHop, RouteHop] | undefined;
    for (const hop of first) {
      if (hop.tokenOut === hub) continue;
      const second = bestHop(market, hop.tokenOut, hub, hop.amountOut);
      if (second !== undefined && (reach === undefined || second.amountOut > reach[1].amountOut)) reach = [hop, second];
    }
    if (reach === undefined) {
      tried(false);
      continue;
    }
    const last = bestHop(market, hub, tokenOut, reach[1].amountOut);
    tried(last !== undefined);
    if (last !== undefined) consider([...reach, last]);
  }
  return best;
}
