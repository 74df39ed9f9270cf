import type { Address } from "viem";
import type { PricedMarket } from "./poolGraph";
import { hopThrough, MAX_HOPS, type FoundRoute, type PricedPool, type RouteHop } from "./routeSearch";
import { adapterOf } from "../venues/venueAdapters";

/**
 * The hop through the pool between `tokenIn` and `tokenOut`, among every venue's, that pays the most
 * for `amountIn`: net of its gas when `gasCost` prices gas in `tokenOut` (the route's last hop), else
 * gross. Pools priced are counted by venue into `stats`.
 */
function bestHop(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  stats: RouteSearchStats | undefined,
  gasCost: GasCost | undefined,
): RouteHop | undefined {
  // Amounts first, one hop object for the winner: this runs ~80 times a quote, over every parallel pool.
  let best: PricedPool | undefined;
  let bestScore = 0n;
  let bestOut = 0n;
  for (const address of market.graph.between(tokenIn, tokenOut)) {
    const pool = market.pools.get(address);
    if (pool === undefined) continue;
    const adapter = adapterOf(pool);
    const amountOut = adapter.amountOut(pool, tokenIn, amountIn);
    if (amountOut <= 0n) continue;
    if (stats?.bySource !== undefined) stats.bySource[pool.source] = (stats.bySource[pool.source] ?? 0) + 1;
    const score = gasCost === undefined ? amountOut : amountOut - gasCost(adapter.hopGas(pool, tokenIn, amountIn));
    if (best === undefined || score > bestScore) {
      best = pool;
      bestScore = score;
      bestOut = amountOut;
    }
  }
  return best === undefined || bestOut <= 0n ? undefined : hopThrough(best, tokenIn, amountIn);
}

/** Converts execution gas into the buy token (the gas price and the token's price of ETH), for ranking net of gas. */
export type GasCost = (gas: number) => bigint;

/**
 * The execution gas of hop `index` of a path, as its venue's adapter models it. When `sharedRuns` (the
 * path is the route's only one, not a SPLIT leg), a hop right after one of the same venue saves that
 * venue's `runHopSaving`: the routers run such a run together (V4: one unlock, one settle).
 */
export function hopGasAt(hops: readonly RouteHop[], index: number, sharedRuns: boolean): number {
  const hop = hops[index]!;
  const adapter = adapterOf(hop.pool);
  const gas = adapter.hopGas(hop.pool, hop.tokenIn, hop.amountIn);
  const previous = index > 0 ? hops[index - 1]! : undefined;
  const inRun = sharedRuns && adapter.runHopSaving !== undefined && previous !== undefined && adapterOf(previous.pool) === adapter;
  return inRun ? gas - adapter.runHopSaving! : gas;
}

/** The execution gas of a path's hops (`sharedRuns`: see hopGasAt; true for a route of one path). */
export function hopsGas(hops: readonly RouteHop[], sharedRuns: boolean): number {
  let gas = 0;
  for (let index = 0; index < hops.length; index++) gas += hopGasAt(hops, index, sharedRuns);
  return gas;
}

/** The hop gas of a route's legs: runs are shared only in a route of one leg (a SPLIT leg's V4 hops unlock one by one). */
export function legsHopGas(legs: readonly { readonly hops: readonly RouteHop[] }[]): number {
  return legs.reduce((gas, leg) => gas + hopsGas(leg.hops, legs.length === 1), 0);
}

/**
 * What a search tried, for the quote's route statistics; searches add to it. `bySource`, when given,
 * counts the pools priced (those that could take the hop) per venue name.
 */
export type RouteSearchStats = { candidatePaths: number; successfulRoutes: number; bySource?: Record<string, number> };

/**
 * The best path of up to `maxHops` pools whose intermediate tokens are among the market's hubs (its
 * best-connected tokens, `PoolGraph.hubs`). Its cost depends on the number of hubs and on the pools
 * joining each pair of tokens, not on the size of the market: about `1 + 2H + H²` pool lookups for
 * H hubs, where the exhaustive search (`findBestRoute`) walks every simple path.
 *
 * Each hop chooses among the pools of every venue joining its two tokens (V2 pairs and its forks, V3
 * pools of every fee tier, propAMMs), each priced by its venue's adapter.
 *
 * Without `gasCost` it is exact over those paths, not a heuristic among them: no venue's output falls
 * as its input grows, so for a fixed sequence of tokens the best path takes the best pool at each
 * step, and the best three-hop path through Y starts from the largest amount any hub X delivers to Y.
 * Ties go to the shorter path, as in the exhaustive search. When a market has at most `HUB_COUNT`
 * tokens, every token is a hub and the result pays exactly what the exhaustive search's does (a test
 * checks this on the devnet market). With `gasCost` (gas priced in the buy token), candidates are
 * ranked by output net of their hops' gas, and the last hop's pool is chosen net of its gas; a middle
 * hop's pool is chosen by output (its gas cannot be priced in a middle token without a search per
 * token), and its gas then counts in its path's rank. `sharedRuns` says whether the path would be the
 * route's only one (a run of V4 hops then shares one unlock, hopGasAt) or a SPLIT leg (each hop pays in
 * full). Amounts are the exact on-chain outputs.
 */
export function searchRoute(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  maxHops: number = MAX_HOPS,
  stats?: RouteSearchStats,
  gasCost?: GasCost,
  sharedRuns = true,
): FoundRoute | undefined {
  if (amountIn <= 0n || tokenIn === tokenOut) return undefined;
  let best: FoundRoute | undefined;
  let bestScore = 0n;
  const consider = (hops: RouteHop[]): void => {
    const amountOut = hops[hops.length - 1]!.amountOut;
    const score = gasCost === undefined ? amountOut : amountOut - gasCost(hopsGas(hops, sharedRuns));
    if (best === undefined || score > bestScore) {
      best = { hops, amountOut };
      bestScore = score;
    }
  };
  // A candidate is a token path tried; it succeeds when every hop has a pool that gives a positive output.
  const tried = (succeeded: boolean): void => {
    if (stats === undefined) return;
    stats.candidatePaths += 1;
    if (succeeded) stats.successfulRoutes += 1;
  };
  const direct = bestHop(market, tokenIn, tokenOut, amountIn, stats, gasCost);
  tried(direct !== undefined);
  if (direct !== undefined) consider([direct]);
  if (maxHops < 2) return best;

  const hubs = market.graph.hubs.filter((token) => token !== tokenIn && token !== tokenOut);
  const first: RouteHop[] = [];
  for (const hub of hubs) {
    const hop = bestHop(market, tokenIn, hub, amountIn, stats, undefined);
    if (hop !== undefined) first.push(hop);
    else tried(false); // the two-hop path through this hub fails at its first hop
  }
  for (const hop of first) {
    const last = bestHop(market, hop.tokenOut, tokenOut, hop.amountOut, stats, gasCost);
    tried(last !== undefined);
    if (last !== undefined) consider([hop, last]);
  }

  if (maxHops < 3) return best;

  for (const hub of hubs) {
    // No pool joins this hub to the buy token: no three-hop path ends through it, so what reaches it
    // is not priced (most hubs, for a token with a few pools: half the hops a quote priced on a large market).
    if (market.graph.between(hub, tokenOut).length === 0) {
      tried(false);
      continue;
    }
    let reach: [RouteHop, RouteHop] | undefined;
    for (const hop of first) {
      if (hop.tokenOut === hub) continue;
      const second = bestHop(market, hop.tokenOut, hub, hop.amountOut, stats, undefined);
      if (second !== undefined && (reach === undefined || second.amountOut > reach[1].amountOut)) reach = [hop, second];
    }
    if (reach === undefined) {
      tried(false);
      continue;
    }
    const last = bestHop(market, hub, tokenOut, reach[1].amountOut, stats, gasCost);
    tried(last !== undefined);
    if (last !== undefined) consider([...reach, last]);
  }
  return best;
}
