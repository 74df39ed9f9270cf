import type { Address } from "viem";
import { splitAmounts } from "../../sdk";
import type { PricedMarket } from "./poolGraph";
import { searchRoute } from "./prunedRouteSearch";
import { hopThrough, type FoundRoute, type PricedPool, type RouteHop } from "./routeSearch";

/**
 * One leg of a split: a path, its share of the sell amount in bps as the router's SPLIT action states
 * it, and the part of the sell amount that share gives it on chain (`splitAmounts`).
 */
export type SplitLeg = FoundRoute & Readonly<{ amountIn: bigint; shareBps: number }>;

export type SplitRoute = Readonly<{
  /** The legs, largest first; one leg when splitting does not pay. */
  legs: readonly SplitLeg[];
  /** Total output of the legs. */
  amountOut: bigint;
  /** The best single path's output, for comparison. */
  singleAmountOut: bigint;
}>;

export type SplitOptions = Readonly<{
  /** Paths considered (pool-disjoint, best first); default 3. */
  maxPaths?: number;
  /**
   * What a path of `hops` hops costs in the buy token (the gas model's price of it); a split pays for
   * its legs beyond the single path's one. Default nothing.
   */
  legCost?: (hops: number) => bigint;
  /** What splitting at all costs over the single path, in the buy token; default nothing. */
  splitCost?: bigint;
  /** The best single path for the whole amount, when the caller already searched it. */
  single?: FoundRoute;
  /** Pools per path at most (a request's `max_hops`); default the search's MAX_HOPS. */
  maxHops?: number;
}>;

/** The output of `path` (its pools and direction) for `amountIn`, or 0 when a hop cannot take it. */
export function pathOutput(hops: readonly RouteHop[], amountIn: bigint): bigint {
  if (hops.length === 0) return amountIn;
  return legHops(hops, amountIn)?.at(-1)?.amountOut ?? 0n;
}

/**
 * What the best single path loses to price impact: its output at the pools' marginal prices (fees
 * included) minus its actual output. Splitting can recover at most about this much when the path
 * also has the best marginal price, so a loss below a split's cost is not worth a search.
 */
export function priceImpactLoss(route: FoundRoute): bigint {
  const first = route.hops[0];
  if (first === undefined) return 0n;
  let numerator = first.amountIn;
  let denominator = 1n;
  for (const hop of route.hops) {
    const zeroForOne = hop.pool.token0 === hop.tokenIn;
    const [reserveIn, reserveOut] = zeroForOne ? [hop.pool.reserve0, hop.pool.reserve1] : [hop.pool.reserve1, hop.pool.reserve0];
    numerator *= reserveOut * BigInt(10_000 - hop.pool.feeBps);
    denominator *= reserveIn * 10_000n;
  }
  if (denominator === 0n) return 0n;
  const atMarginalPrice = numerator / denominator;
  return atMarginalPrice > route.amountOut ? atMarginalPrice - route.amountOut : 0n;
}

/** The market's pools without some of them: a view, so a split of a 5,000-pool market copies nothing. */
class PoolsWithout implements ReadonlyMap<Address, PricedPool> {
  constructor(
    private readonly pools: ReadonlyMap<Address, PricedPool>,
    private readonly excluded: ReadonlySet<Address>,
  ) {}
  get(address: Address): PricedPool | undefined {
    return this.excluded.has(address) ? undefined : this.pools.get(address);
  }
  has(address: Address): boolean {
    return !this.excluded.has(address) && this.pools.has(address);
  }
  get size(): number {
    return [...this.keys()].length;
  }
  *entries(): MapIterator<[Address, PricedPool]> {
    for (const entry of this.pools) if (!this.excluded.has(entry[0])) yield entry;
  }
  *keys(): MapIterator<Address> {
    for (const [address] of this.entries()) yield address;
  }
  *values(): MapIterator<PricedPool> {
    for (const [, pool] of this.entries()) yield pool;
  }
  [Symbol.iterator](): MapIterator<[Address, PricedPool]> {
    return this.entries();
  }
  forEach(callback: (pool: PricedPool, address: Address, map: ReadonlyMap<Address, PricedPool>) => void): void {
    for (const [address, pool] of this.entries()) callback(pool, address, this);
  }
}

function without(market: PricedMarket, excluded: ReadonlySet<Address>): PricedMarket {
  return { graph: market.graph, pools: new PoolsWithout(market.pools, excluded) };
}

/**
 * A path's output as a function of its input, `p·x / (1 + q·x)`, ignoring integer rounding. One V2 hop
 * with reserves (Rin, Rout) and fee factor γ pays `γ·x·Rout / (Rin + γ·x)`: p = γ·Rout/Rin (its
 * marginal price at zero), q = γ/Rin. Such linear-fractional maps compose into the same form, so a
 * whole path has one (p, q): after a hop (p1, q1), a hop (p2, q2) gives (p1·p2, q1 + q2·p1). Its
 * marginal price at x is p / (1 + q·x)².
 */
type PathCurve = { p: number; q: number };

function curveOf(hops: readonly RouteHop[]): PathCurve {
  let p = 1;
  let q = 0;
  for (const hop of hops) {
    const zeroForOne = hop.pool.token0 === hop.tokenIn;
    const [reserveIn, reserveOut] = zeroForOne ? [hop.pool.reserve0, hop.pool.reserve1] : [hop.pool.reserve1, hop.pool.reserve0];
    const gamma = (10_000 - hop.pool.feeBps) / 10_000;
    const hopP = (gamma * Number(reserveOut)) / Number(reserveIn);
    const hopQ = gamma / Number(reserveIn);
    q += hopQ * p;
    p *= hopP;
  }
  return { p, q };
}

/**
 * The amounts that equalise the paths' marginal prices, which maximises their total output (each
 * output is concave): with marginal λ on every leg, leg i takes x_i = (√(p_i/λ) − 1) / q_i, and the
 * x_i add up to the amount, so 1/√λ = (X + Σ 1/q_i) / Σ (√p_i / q_i). A leg whose marginal price
 * at zero is already below λ gets nothing: it is dropped and λ found again over the others.
 */
function equalMarginalAllotment(curves: readonly PathCurve[], amountIn: bigint): number[] {
  const total = Number(amountIn);
  const active = curves.map((curve) => Number.isFinite(curve.p) && Number.isFinite(curve.q) && curve.p > 0 && curve.q > 0);
  for (;;) {
    let sumInverseQ = 0;
    let sumRootP = 0;
    curves.forEach((curve, index) => {
      if (!active[index]) return;
      sumInverseQ += 1 / curve.q;
      sumRootP += Math.sqrt(curve.p) / curve.q;
    });
    if (sumRootP === 0) return curves.map(() => 0);
    const scale = (total + sumInverseQ) / sumRootP;
    const allotted = curves.map((curve, index) => (active[index] ? (Math.sqrt(curve.p) * scale - 1) / curve.q : 0));
    const negative = allotted.findIndex((amount, index) => active[index] && amount <= 0);
    if (negative === -1) return allotted;
    active[negative] = false;
  }
}

/**
 * Splits a sell across up to `maxPaths` pool-disjoint paths (each the best path left once the pools
 * of the earlier ones are taken out, found at the full amount). Disjoint paths have separable, concave
 * outputs, so the best allotment equalises their marginal prices; each path's output curve has a
 * closed form (`PathCurve`), and so does the allotment (`equalMarginalAllotment`): a few floating-point
 * operations per leg instead of a search. The legs are then priced exactly, at the whole-bps shares
 * the router executes. The split is returned only when it pays more than the best single path after
 * its extra gas (`splitCost`, `legCost`); otherwise the single path is.
 */
export function splitRoute(market: PricedMarket, tokenIn: Address, tokenOut: Address, amountIn: bigint, options: SplitOptions = {}): SplitRoute | undefined {
  const single = options.single ?? searchRoute(market, tokenIn, tokenOut, amountIn, options.maxHops);
  if (single === undefined) return undefined;
  const singleResult: SplitRoute = { legs: [{ ...single, amountIn, shareBps: 10_000 }], amountOut: single.amountOut, singleAmountOut: single.amountOut };
  const paths: FoundRoute[] = [single];
  const used = new Set<Address>(single.hops.map((hop) => hop.pool.address));
  while (paths.length < (options.maxPaths ?? 3)) {
    const next = searchRoute(without(market, used), tokenIn, tokenOut, amountIn, options.maxHops);
    if (next === undefined) break;
    paths.push(next);
    for (const hop of next.hops) used.add(hop.pool.address);
  }
  if (paths.length === 1) return singleResult;

  const amounts = equalMarginalAllotment(paths.map((path) => curveOf(path.hops)), amountIn);
  const allotments = paths.map((path, index) => ({ hops: path.hops, fraction: amounts[index]! / Number(amountIn) }));
  // A leg whose best share is below half a bps would be dropped by rounding, yet a thin path with a far
  // better price (a small pool behind a deep first hop) can pay more for one bps than the others lose:
  // price both and keep the better.
  const legs = [settledLegs(allotments, amountIn, 0), settledLegs(allotments, amountIn, 1)]
    .filter((candidate): candidate is SplitLeg[] => candidate !== undefined && candidate.length >= 2)
    .reduce<SplitLeg[] | undefined>((best, candidate) => (best === undefined || outputOf(candidate) > outputOf(best) ? candidate : best), undefined);
  if (legs === undefined) return singleResult;
  const amountOut = outputOf(legs);
  const legCost = (hops: number) => options.legCost?.(hops) ?? 0n;
  const cost = legs.reduce((sum, leg) => sum + legCost(leg.hops.length), options.splitCost ?? 0n) - legCost(single.hops.length);
  if (amountOut - cost <= single.amountOut) return singleResult;
  return { legs, amountOut, singleAmountOut: single.amountOut };
}

/**
 * The allotments as the router will execute them: shares in whole bps (the SPLIT action's unit), largest
 * first, every leg but the last taking its share rounded down and the last the rest, each leg priced at
 * exactly that amount. A leg whose share rounds to zero is dropped (its bps go to the largest), unless
 * `leastShareBps` keeps every leg with a positive allotment at one bps or more. Rounding
 * moves at most half a bps of the amount between legs whose marginal prices are nearly equal, so it
 * costs a second-order sliver of output. Undefined when a leg would buy nothing at its amount.
 */
function settledLegs(allotments: readonly { hops: readonly RouteHop[]; fraction: number }[], amountIn: bigint, leastShareBps: 0 | 1): SplitLeg[] | undefined {
  const ranked = allotments
    .map((allotment) => ({ ...allotment, shareBps: allotment.fraction > 0 ? Math.max(leastShareBps, Math.round(allotment.fraction * 10_000)) : 0 }))
    .filter((allotment) => allotment.shareBps > 0)
    .sort((a, b) => b.fraction - a.fraction);
  if (ranked.length === 0) return undefined;
  ranked[0]!.shareBps += 10_000 - ranked.reduce((sum, leg) => sum + leg.shareBps, 0);
  const amounts = splitAmounts(amountIn, ranked.map((leg) => leg.shareBps));
  const legs: SplitLeg[] = [];
  for (const [index, leg] of ranked.entries()) {
    const hops = legHops(leg.hops, amounts[index]!);
    if (hops === undefined) return undefined;
    legs.push({ hops, amountOut: hops.at(-1)!.amountOut, amountIn: amounts[index]!, shareBps: leg.shareBps });
  }
  return legs;
}

function outputOf(legs: readonly SplitLeg[]): bigint {
  return legs.reduce((sum, leg) => sum + leg.amountOut, 0n);
}

/** The path's hops re-priced for `amountIn`; undefined when a hop would pay nothing (or `amountIn` is 0). */
function legHops(hops: readonly RouteHop[], amountIn: bigint): RouteHop[] | undefined {
  const priced: RouteHop[] = [];
  let amount = amountIn;
  for (const hop of hops) {
    const next = amount > 0n ? hopThrough(hop.pool, hop.tokenIn, amount) : undefined;
    if (next === undefined) return undefined;
    priced.push(next);
    amount = next.amountOut;
  }
  return priced;
}
