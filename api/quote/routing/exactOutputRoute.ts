import type { Address } from "viem";
import { splitAmounts } from "../../../sdk";
import type { PricedMarket } from "./poolGraph";
import { searchRoute, type RouteSearchStats } from "./prunedRouteSearch";
import { bestExecution } from "./splitDecision";
import { hopThrough, MAX_HOPS, type PricedPool, type RouteHop } from "./routeSearch";
import { adapterOf } from "../venues/venueAdapters";
import type { SplitLeg } from "./splitRoute";

/**
 * The least input `pool` needs to pay out `amountOut` of the other token, exactly as the routers'
 * backward pass computes it (its venue's adapter; V2: V2SwapMath.getAmountIn); undefined when the
 * pool cannot pay that much, or may not be priced backwards (pricesBackwards).
 */
export function amountInThrough(pool: PricedPool, tokenIn: Address, amountOut: bigint): bigint | undefined {
  return pricesBackwards(pool) ? adapterOf(pool).amountIn(pool, tokenIn, amountOut) : undefined;
}

/** Whether `pool` may be priced backwards: its venue can (propAMMs cannot) and the pool is not held back (VenueAdapter.backwards: V4 on routers built before exact output over V4). */
export function pricesBackwards(pool: PricedPool): boolean {
  const adapter = adapterOf(pool);
  return adapter.exactOutput && adapter.backwards?.(pool) !== false;
}

/** A token path's pools, backwards: what each step needs, from the output to the input. */
type BackwardStep = Readonly<{ pool: PricedPool; tokenIn: Address; tokenOut: Address; amountIn: bigint }>;

/** Whether `pool`'s venue may only lead an exact-output path (VenueAdapter.exactOutputFirst: V4). */
const leadsOnly = (pool: PricedPool): boolean => adapterOf(pool).exactOutputFirst === true;
const otherVenues = (pool: PricedPool): boolean => !leadsOnly(pool);

/** The pools a hop may use before `next` in an exact-output path: only leading venues' before one of theirs, any otherwise. */
const allowedBefore = (next: BackwardStep): ((pool: PricedPool) => boolean) | undefined => (leadsOnly(next.pool) ? leadsOnly : undefined);

/** Whether every path of `legs` runs its leading-only venues' hops first, as the routers require. */
export function leadsFirst(legs: readonly { readonly hops: readonly RouteHop[] }[]): boolean {
  return legs.every(({ hops }) => hops.every((hop, index) => index === 0 || !leadsOnly(hop.pool) || leadsOnly(hops[index - 1]!.pool)));
}

/**
 * The pool between `tokenIn` and `tokenOut`, among every venue that prices backwards (and `only`
 * admits), that needs the least input for `amountOut`.
 */
function cheapestHop(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountOut: bigint,
  stats: RouteSearchStats | undefined,
  only?: (pool: PricedPool) => boolean,
): BackwardStep | undefined {
  let best: BackwardStep | undefined;
  for (const address of market.graph.between(tokenIn, tokenOut)) {
    const pool = market.pools.get(address);
    if (pool === undefined || (only !== undefined && !only(pool))) continue;
    const amountIn = amountInThrough(pool, tokenIn, amountOut);
    if (amountIn !== undefined && stats?.bySource !== undefined) stats.bySource[pool.source] = (stats.bySource[pool.source] ?? 0) + 1;
    if (amountIn !== undefined && (best === undefined || amountIn < best.amountIn)) best = { pool, tokenIn, tokenOut, amountIn };
  }
  return best;
}

/** A path priced backwards: its steps in order (first pool first) and the input it needs. */
export type ExactOutputPath = Readonly<{ pools: readonly PricedPool[]; tokens: readonly Address[]; amountIn: bigint }>;

/**
 * The path of up to `maxHops` pools that needs the least `tokenIn` to deliver `amountOut` of
 * `tokenOut`, over the same candidates as the exact-input search (`searchRoute`: direct, through one
 * hub, through two hubs). It is exact over them for the same reason, mirrored: a V2 input never
 * falls as the output asked grows, so for a fixed token sequence the cheapest path takes the
 * cheapest pool at each step, and the cheapest three-hop path through X needs the least input at
 * X. Ties go to the shorter path. Amounts are the routers' backward pass (`getAmountIn` per hop).
 * A venue that may only lead (`exactOutputFirst`, V4) is kept first: a hop before one of its hops is
 * chosen among its pools alone, and a last or middle hop whose cheapest pool is one of its is also
 * tried among the other venues, so a path the rule forbids never hides the best one it allows.
 */
export function searchRouteForOutput(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountOut: bigint,
  maxHops: number = MAX_HOPS,
  stats?: RouteSearchStats,
): ExactOutputPath | undefined {
  if (amountOut <= 0n || tokenIn === tokenOut) return undefined;
  let best: ExactOutputPath | undefined;
  const consider = (steps: readonly BackwardStep[]): void => {
    const amountIn = steps[0]!.amountIn;
    if (best === undefined || amountIn < best.amountIn) {
      best = { pools: steps.map((step) => step.pool), tokens: [...steps.map((step) => step.tokenIn), tokenOut], amountIn };
    }
  };
  const tried = (succeeded: boolean): void => {
    if (stats === undefined) return;
    stats.candidatePaths += 1;
    if (succeeded) stats.successfulRoutes += 1;
  };
  const direct = cheapestHop(market, tokenIn, tokenOut, amountOut, stats);
  tried(direct !== undefined);
  if (direct !== undefined) consider([direct]);
  if (maxHops < 2) return best;

  const hubs = market.graph.hubs.filter((token) => token !== tokenIn && token !== tokenOut);
  // The last hop from each hub (and, when it may only lead, the best of the other venues), then the first hop into it.
  const last: BackwardStep[] = [];
  for (const hub of hubs) {
    const step = cheapestHop(market, hub, tokenOut, amountOut, stats);
    if (step !== undefined) last.push(step);
    else tried(false);
    const other = step !== undefined && leadsOnly(step.pool) ? cheapestHop(market, hub, tokenOut, amountOut, stats, otherVenues) : undefined;
    if (other !== undefined) last.push(other);
  }
  for (const step of last) {
    const first = cheapestHop(market, tokenIn, step.tokenIn, step.amountIn, stats, allowedBefore(step));
    tried(first !== undefined);
    if (first !== undefined) consider([first, step]);
  }

  if (maxHops < 3) return best;

  // tokenIn → hub → hub' → tokenOut: for each first hub, the cheapest way on to the output.
  for (const hub of hubs) {
    // The cheapest reach (middle hop, last hop) whose middle hop may only lead, and the cheapest whose
    // middle hop may follow any venue: the first hop before the former is chosen among leading-only
    // pools, which may have none.
    const reaches: { leading?: [BackwardStep, BackwardStep]; following?: [BackwardStep, BackwardStep] } = {};
    for (const step of last) {
      if (step.tokenIn === hub) continue;
      const middle = cheapestHop(market, hub, step.tokenIn, step.amountIn, stats, allowedBefore(step));
      // A leading-only middle constrains the first hop: the cheapest middle of the other venues is tried too.
      const other = middle !== undefined && leadsOnly(middle.pool) && !leadsOnly(step.pool) ? cheapestHop(market, hub, step.tokenIn, step.amountIn, stats, otherVenues) : undefined;
      for (const candidate of [middle, other]) {
        if (candidate === undefined) continue;
        const kind = leadsOnly(candidate.pool) ? "leading" : "following";
        const reach = reaches[kind];
        if (reach === undefined || candidate.amountIn < reach[0].amountIn) reaches[kind] = [candidate, step];
      }
    }
    const found = [reaches.leading, reaches.following].filter((reach) => reach !== undefined);
    if (found.length === 0) {
      tried(false);
      continue;
    }
    for (const reach of found) {
      const first = cheapestHop(market, tokenIn, hub, reach[0].amountIn, stats, allowedBefore(reach[0]));
      tried(first !== undefined);
      if (first !== undefined) consider([first, ...reach]);
    }
  }
  return best;
}

/** The input `pools` (along `tokens`) need for `amountOut` at their end, priced backwards; undefined when a pool cannot pay. */
export function pathAmountIn(pools: readonly PricedPool[], tokens: readonly Address[], amountOut: bigint): bigint | undefined {
  let amount = amountOut;
  for (let index = pools.length - 1; index >= 0; index--) {
    const needed = amountInThrough(pools[index]!, tokens[index]!, amount);
    if (needed === undefined) return undefined;
    amount = needed;
  }
  return amount;
}

/** The path's hops priced forwards from `amountIn`, as the router runs them once it took that input. */
function forwardHops(pools: readonly PricedPool[], tokens: readonly Address[], amountIn: bigint): RouteHop[] | undefined {
  const hops: RouteHop[] = [];
  let amount = amountIn;
  for (const [index, pool] of pools.entries()) {
    const hop = hopThrough(pool, tokens[index]!, amount);
    if (hop === undefined) return undefined;
    hops.push(hop);
    amount = hop.amountOut;
  }
  return hops;
}

/** One leg of an exact-output route: its share of the output, and the input the router gives it. */
export type ExactOutputLeg = SplitLeg;

export type ExactOutputExecution = Readonly<{
  legs: readonly ExactOutputLeg[];
  /** The input the route needs at these reserves: what the router will take. */
  amountIn: bigint;
  /** What the route pays at that input (at least the output asked; rounding may add a few units). */
  amountOut: bigint;
}>;

/**
 * The cheapest way to deliver `amountOut`: the cheapest single path, or a split when the exact-input
 * side would split the input that path needs (`bestExecution`, which weighs a split's gas) and the
 * split, priced backwards, needs less input. An exact-output SPLIT's shares divide the output
 * (IExactOutputSettlement): each share is its leg's part of the exact-input split's output, every leg
 * but the last gets `amountOut × share / 10000` to produce and the last the rest, and each leg's
 * input is priced backwards as the router will.
 */
export function bestExactOutputExecution(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountOut: bigint,
  single: ExactOutputPath,
  gasPriceWei: bigint,
  weth: Address,
  maxHops?: number,
): ExactOutputExecution {
  const singleHops = forwardHops(single.pools, single.tokens, single.amountIn)!;
  const singleExecution: ExactOutputExecution = {
    legs: [{ hops: singleHops, amountOut: singleHops.at(-1)!.amountOut, amountIn: single.amountIn, shareBps: 10_000 }],
    amountIn: single.amountIn,
    amountOut: singleHops.at(-1)!.amountOut,
  };
  const forward = searchRoute(market, tokenIn, tokenOut, single.amountIn, maxHops);
  if (forward === undefined) return singleExecution;
  const split = bestExecution(market, tokenIn, tokenOut, single.amountIn, forward, gasPriceWei, weth, maxHops);
  // The exact-input split's legs may put a V4 hop after another venue's, which no router runs backwards.
  if (split.legs.length < 2 || !leadsFirst(split.legs)) return singleExecution;
  const shares = outputShares(split.legs.map((leg) => leg.amountOut));
  if (shares === undefined) return singleExecution;
  const legOuts = splitAmounts(amountOut, shares);
  const legs: ExactOutputLeg[] = [];
  for (const [index, leg] of split.legs.entries()) {
    const pools = leg.hops.map((hop) => hop.pool);
    const tokens = [...leg.hops.map((hop) => hop.tokenIn), tokenOut];
    const legIn = pathAmountIn(pools, tokens, legOuts[index]!);
    const hops = legIn === undefined ? undefined : forwardHops(pools, tokens, legIn);
    if (legIn === undefined || hops === undefined) return singleExecution;
    legs.push({ hops, amountOut: hops.at(-1)!.amountOut, amountIn: legIn, shareBps: shares[index]! });
  }
  const amountIn = legs.reduce((sum, leg) => sum + leg.amountIn, 0n);
  if (amountIn >= single.amountIn) return singleExecution;
  return { legs, amountIn, amountOut: legs.reduce((sum, leg) => sum + leg.amountOut, 0n) };
}

/** Each output's share in whole bps (at least 1), the first (largest) taking the rounding; undefined if one has none. */
function outputShares(outputs: readonly bigint[]): number[] | undefined {
  const total = outputs.reduce((sum, amount) => sum + amount, 0n);
  if (total === 0n) return undefined;
  const shares = outputs.map((amount) => Number((amount * 10_000n + total / 2n) / total));
  if (shares.some((share) => share < 1)) return undefined;
  shares[0]! += 10_000 - shares.reduce((sum, share) => sum + share, 0);
  return shares[0]! >= 1 ? shares : undefined;
}

/**
 * Whether the routers run these legs backwards (ExactOutputExecutor): a route with a split or a hop
 * on a venue other than V2 (a SWAP_V3). Such a route takes the whole maximum, asks each pool for its
 * exact output and pays exactly what it asks: the recipient gets exactly the output, not the forward
 * pricing's rounding surplus.
 */
export function runsBackwards(legs: readonly ExactOutputLeg[]): boolean {
  return legs.length > 1 || legs.some((leg) => leg.hops.some((hop) => adapterOf(hop.pool).kind !== "v2"));
}

/**
 * `execution` as the router runs it backwards for `amountOut`: each leg's hops priced from its exact
 * share of the output back to its input (the same inputs the search found), and the route's output
 * exactly `amountOut`. An execution the router runs forwards is returned as it is.
 */
export function asRunByRouter(execution: ExactOutputExecution, amountOut: bigint): ExactOutputExecution {
  if (!runsBackwards(execution.legs)) return execution;
  const legOuts = splitAmounts(amountOut, execution.legs.map((leg) => leg.shareBps));
  const legs = execution.legs.map((leg, index) => {
    const hops: RouteHop[] = [];
    let amount = legOuts[index]!;
    for (const hop of [...leg.hops].reverse()) {
      const amountIn = amountInThrough(hop.pool, hop.tokenIn, amount);
      if (amountIn === undefined) return leg;
      hops.unshift({ ...hop, amountIn, amountOut: amount });
      amount = amountIn;
    }
    return { ...leg, hops, amountIn: amount, amountOut: legOuts[index]! };
  });
  return { legs, amountIn: legs.reduce((sum, leg) => sum + leg.amountIn, 0n), amountOut };
}

