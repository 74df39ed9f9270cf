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
  /** The sell amount is allotted in this many equal parts; default 200. */
  parts?: number;
  /**
   * What a path of `hops` hops costs in the buy token (the gas model's price of it); a split pays for
   * its legs beyond the single path's one. Default nothing.
   */
  legCost?: (hops: number) => bigint;
  /** What splitting at all costs over the single path, in the buy token; default nothing. */
  splitCost?: bigint;
  /** The best single path for the whole amount, when the caller already searched it. */
  single?: FoundRoute;
}>;

/** The output of `path` (its pools and direction) for `amountIn`, or 0 when a hop cannot take it. */
export function pathOutput(hops: readonly RouteHop[], amountIn: bigint): bigint {
  let amount = amountIn;
  for (const hop of hops) {
    if (amount <= 0n) return 0n;
    const next = hopThrough(hop.pool, hop.tokenIn, amount);
    if (next === undefined) return 0n;
    amount = next.amountOut;
  }
  return amount;
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
 * Splits a sell across up to `maxPaths` pool-disjoint paths (each the best path left once the pools
 * of the earlier ones are taken out, found at the full amount). Disjoint paths have separable, concave
 * outputs (a V2 output's marginal falls as its input grows, and so does a chain of them), so filling
 * the legs greedily, one part at a time, to the leg whose next part pays most equalises their
 * marginal prices up to one part's width; moving halving amounts between legs while that pays then
 * narrows it to 1/4096 of a part (a leg that saturates within one part needs it). The split is returned only when it pays
 * more than the best single path after its extra gas (`splitCost`, `legCost`); otherwise the single path is.
 */
export function splitRoute(market: PricedMarket, tokenIn: Address, tokenOut: Address, amountIn: bigint, options: SplitOptions = {}): SplitRoute | undefined {
  const single = options.single ?? searchRoute(market, tokenIn, tokenOut, amountIn);
  if (single === undefined) return undefined;
  const singleResult: SplitRoute = { legs: [{ ...single, amountIn, shareBps: 10_000 }], amountOut: single.amountOut, singleAmountOut: single.amountOut };
  const paths: FoundRoute[] = [single];
  const used = new Set<Address>(single.hops.map((hop) => hop.pool.address));
  while (paths.length < (options.maxPaths ?? 3)) {
    const next = searchRoute(without(market, used), tokenIn, tokenOut, amountIn);
    if (next === undefined) break;
    paths.push(next);
    for (const hop of next.hops) used.add(hop.pool.address);
  }
  if (paths.length === 1) return singleResult;

  const parts = BigInt(options.parts ?? 200);
  const part = amountIn / parts;
  if (part === 0n) return singleResult;
  const allotted = paths.map(() => 0n);
  const outputs = paths.map(() => 0n);
  const gainOf = (index: number, extra: bigint) => pathOutput(paths[index]!.hops, allotted[index]! + extra) - outputs[index]!;
  let remaining = amountIn;
  while (remaining > 0n) {
    const step = remaining < part * 2n ? remaining : part;
    let best = 0;
    let bestGain = -1n;
    for (let index = 0; index < paths.length; index++) {
      const gain = gainOf(index, step);
      if (gain > bestGain) [best, bestGain] = [index, gain];
    }
    allotted[best] = allotted[best]! + step;
    outputs[best] = outputs[best]! + bestGain;
    remaining -= step;
  }

  // A leg that saturates within one part (a shallow pool behind a deep one) is over-filled by a whole
  // part: move ever-smaller amounts between legs while that pays, down to 1/4096 of a part.
  for (let step = part / 2n; step > 0n && step * 4096n >= part; step /= 2n) {
    for (let moved = true; moved; ) {
      moved = false;
      for (let from = 0; from < paths.length; from++) {
        for (let to = 0; to < paths.length; to++) {
          if (from === to || allotted[from]! < step) continue;
          const fromOut = pathOutput(paths[from]!.hops, allotted[from]! - step);
          const toOut = pathOutput(paths[to]!.hops, allotted[to]! + step);
          if (fromOut + toOut <= outputs[from]! + outputs[to]!) continue;
          [allotted[from], allotted[to], outputs[from], outputs[to]] = [allotted[from]! - step, allotted[to]! + step, fromOut, toOut];
          moved = true;
        }
      }
    }
  }

  const legs = settledLegs(
    paths.map((path, index) => ({ hops: path.hops, allotted: allotted[index]! })),
    amountIn,
  );
  if (legs === undefined || legs.length < 2) return singleResult;
  const amountOut = legs.reduce((sum, leg) => sum + leg.amountOut, 0n);
  const legCost = (hops: number) => options.legCost?.(hops) ?? 0n;
  const cost = legs.reduce((sum, leg) => sum + legCost(leg.hops.length), options.splitCost ?? 0n) - legCost(single.hops.length);
  if (amountOut - cost <= single.amountOut) return singleResult;
  return { legs, amountOut, singleAmountOut: single.amountOut };
}

/**
 * The allotments as the router will execute them: shares in whole bps (the SPLIT action's unit), largest
 * first, every leg but the last taking its share rounded down and the last the rest, each leg priced at
 * exactly that amount. A leg whose share rounds to zero is dropped (its bps go to the largest). Rounding
 * moves at most half a bps of the amount between legs whose marginal prices are nearly equal, so it
 * costs a second-order sliver of output. Undefined when a leg would buy nothing at its amount.
 */
function settledLegs(allotments: readonly { hops: readonly RouteHop[]; allotted: bigint }[], amountIn: bigint): SplitLeg[] | undefined {
  const ranked = allotments
    .map((allotment) => ({ ...allotment, shareBps: Number((allotment.allotted * 10_000n + amountIn / 2n) / amountIn) }))
    .filter((allotment) => allotment.shareBps > 0)
    .sort((a, b) => (a.allotted > b.allotted ? -1 : a.allotted < b.allotted ? 1 : 0));
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

/** The path's hops re-priced for `amountIn`; undefined when a hop would pay nothing. */
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
