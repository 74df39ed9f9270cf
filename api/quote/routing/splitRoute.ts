import type { Address } from "viem";
import { splitAmounts } from "../../../sdk";
import type { PricedMarket } from "./poolGraph";
import { marketWhere } from "../market/marketView";
import { searchRoute, type GasCost } from "./prunedRouteSearch";
import { hopThrough, type FoundRoute, type RouteHop } from "./routeSearch";
import { adapterOf } from "../venues/venueAdapters";

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
   * What a leg through `hops` costs in the buy token (the gas model's price of its hops, each by its
   * venue's adapter, and of the leg itself); a split pays for its legs beyond the single path's one.
   * Default nothing.
   */
  legCost?: (hops: readonly RouteHop[]) => bigint;
  /** Ranks the further paths by output net of their gas in the buy token (searchRoute's `gasCost`). */
  gasCost?: GasCost;
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
    const price = adapterOf(hop.pool).spotPrice(hop.pool, hop.tokenIn);
    if (price === undefined) return 0n;
    numerator *= price[0];
    denominator *= price[1];
  }
  if (denominator === 0n) return 0n;
  const atMarginalPrice = numerator / denominator;
  return atMarginalPrice > route.amountOut ? atMarginalPrice - route.amountOut : 0n;
}

/**
 * A path's output as a function of its input beyond `base` already allotted to it, `p·d / (1 + q·d)`
 * (venues/venueAdapter.ts HopCurve): the hops' local curves, each read by its venue's adapter at the
 * input the hop takes when the path carries `base`, composed. After a hop (p1, q1), a hop (p2, q2)
 * gives (p1·p2, q1 + q2·p1). Its marginal price at d is p / (1 + q·d)². Undefined when a hop has no
 * curve there (it cannot take more).
 */
type PathCurve = { p: number; q: number };

function curveOf(hops: readonly RouteHop[], base: bigint): PathCurve | undefined {
  const priced = base > 0n ? legHops(hops, base) : undefined;
  if (base > 0n && priced === undefined) return undefined;
  let p = 1;
  let q = 0;
  for (const [index, hop] of hops.entries()) {
    const curve = adapterOf(hop.pool).curve(hop.pool, hop.tokenIn, priced?.[index]!.amountIn ?? 0n);
    if (curve === undefined) return undefined;
    q += curve.q * p;
    p *= curve.p;
  }
  return { p, q };
}

/**
 * The amounts that equalise the paths' marginal prices, which maximises their total output (each
 * output is concave), from curves read at `base` (each leg's allotment so far): with marginal λ on
 * every leg, leg i moves by d_i = (√(p_i/λ) − 1) / q_i, and the allotments still add up to the
 * amount, so 1/√λ = (X − Σ base_i + Σ 1/q_i) / Σ (√p_i / q_i). A leg that would fall to zero or below
 * is dropped (it takes nothing) and λ found again over the others. From zero bases over V2 curves,
 * which are exact, one pass is the optimum.
 */
function equalMarginalAllotment(curves: readonly (PathCurve | undefined)[], base: readonly number[], amountIn: bigint): number[] {
  const total = Number(amountIn);
  const active = curves.map((curve) => curve !== undefined && Number.isFinite(curve.p) && Number.isFinite(curve.q) && curve.p > 0 && curve.q > 0);
  for (;;) {
    let sumInverseQ = 0;
    let sumRootP = 0;
    let sumBase = 0;
    curves.forEach((curve, index) => {
      if (!active[index]) return;
      sumInverseQ += 1 / curve!.q;
      sumRootP += Math.sqrt(curve!.p) / curve!.q;
      sumBase += base[index]!;
    });
    if (sumRootP === 0) return curves.map(() => 0);
    const scale = (total - sumBase + sumInverseQ) / sumRootP;
    const allotted = curves.map((curve, index) => (active[index] ? base[index]! + (Math.sqrt(curve!.p) * scale - 1) / curve!.q : 0));
    const negative = allotted.findIndex((amount, index) => active[index] && amount <= 0);
    if (negative === -1) return allotted;
    active[negative] = false;
  }
}

/**
 * Passes of the allotment when some hop's curve is only local (a V3 pool's, exact within its tick
 * range): each re-reads the curves at the allotment the previous pass found. Each pass's allotment is
 * priced exactly and the best kept, so a pass can only help.
 */
const ALLOTMENT_PASSES = 4;

/**
 * Splits a sell across up to `maxPaths` pool-disjoint paths (each the best path left once the pools
 * of the earlier ones are taken out, found at the full amount): paths of any venues, so one order
 * splits across V2, V3 and propAMM pools of the same pair, and a leg may mix venues. Disjoint paths
 * have separable, concave outputs, so the best allotment equalises their marginal prices; each path's
 * output curve has a local closed form (`PathCurve`), and so does the allotment
 * (`equalMarginalAllotment`): a few floating-point operations per leg instead of a search, once over
 * V2 pools (their curves are exact), a few passes when a curve is only local. The legs are then priced exactly, at the whole-bps shares
 * the router executes. The split is returned only when it pays more than the best single path after
 * its extra gas (`splitCost`, `legCost`); otherwise the single path is.
 */
export function splitRoute(market: PricedMarket, tokenIn: Address, tokenOut: Address, amountIn: bigint, options: SplitOptions = {}): SplitRoute | undefined {
  const single = options.single ?? searchRoute(market, tokenIn, tokenOut, amountIn, options.maxHops, undefined, options.gasCost);
  if (single === undefined) return undefined;
  const singleResult: SplitRoute = { legs: [{ ...single, amountIn, shareBps: 10_000 }], amountOut: single.amountOut, singleAmountOut: single.amountOut };
  const paths: FoundRoute[] = [single];
  const used = new Set<Address>(single.hops.map((hop) => hop.pool.address));
  const maxPaths = options.maxPaths ?? 3;
  // The other paths are found at the share they would carry, not the whole amount: a pool that cannot
  // take the whole order (a V3 pool's narrow range, a propAMM's inventory) can still be the best leg.
  const legProbe = amountIn / BigInt(maxPaths) > 0n ? amountIn / BigInt(maxPaths) : amountIn;
  while (paths.length < maxPaths) {
    const next = searchRoute(
      marketWhere(market, (pool) => !used.has(pool.address)),
      tokenIn,
      tokenOut,
      legProbe,
      options.maxHops,
      undefined,
      options.gasCost,
      false, // a further path is only ever a SPLIT leg, whose V4 hops unlock one by one
    );
    if (next === undefined) break;
    paths.push(next);
    for (const hop of next.hops) used.add(hop.pool.address);
  }
  if (paths.length === 1) return singleResult;

  const legCost = (hops: readonly RouteHop[]) => options.legCost?.(hops) ?? 0n;
  // Candidates are compared net of their legs' gas: settlements with more legs, or legs through
  // venues that cost more, must pay for it.
  const netOf = (candidate: readonly SplitLeg[]) => candidate.reduce((sum, leg) => sum + leg.amountOut - legCost(leg.hops), 0n);
  const exactCurves = paths.every((path) => path.hops.every((hop) => adapterOf(hop.pool).exactCurve));
  let base = paths.map(() => 0);
  let legs: SplitLeg[] | undefined;
  for (let pass = 0; pass < (exactCurves ? 1 : ALLOTMENT_PASSES); pass++) {
    const curves = paths.map((path, index) => curveOf(path.hops, BigInt(Math.floor(base[index]!))));
    const amounts = equalMarginalAllotment(curves, base, amountIn);
    const allotments = paths.map((path, index) => ({ hops: path.hops, fraction: amounts[index]! / Number(amountIn) }));
    // A leg whose best share is below half a bps would be dropped by rounding, yet a thin path with a far
    // better price (a small pool behind a deep first hop) can pay more for one bps than the others lose:
    // price both and keep the better.
    for (const candidate of [settledLegs(allotments, amountIn, 0), settledLegs(allotments, amountIn, 1)]) {
      if (candidate !== undefined && candidate.length >= 2 && (legs === undefined || netOf(candidate) > netOf(legs))) legs = candidate;
    }
    base = amounts;
  }
  if (legs === undefined) return singleResult;
  const amountOut = outputOf(legs);
  const cost = legs.reduce((sum, leg) => sum + legCost(leg.hops), options.splitCost ?? 0n) - legCost(single.hops);
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
