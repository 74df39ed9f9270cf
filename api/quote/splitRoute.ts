import type { Address } from "viem";
import type { PricedMarket } from "./poolGraph";
import { searchRoute } from "./prunedRouteSearch";
import { hopThrough, type FoundRoute, type PricedPool, type RouteHop } from "./routeSearch";

/** One leg of a split: a path and the part of the sell amount it takes. */
export type SplitLeg = FoundRoute & Readonly<{ amountIn: bigint }>;

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
  /** What the hops of every leg after the first cost, in the buy token (the gas model's price of them); default nothing. */
  extraLegCost?: (hops: number) => bigint;
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

/** The market without these pools. */
function without(market: PricedMarket, excluded: ReadonlySet<Address>): PricedMarket {
  const pools = new Map<Address, PricedPool>(market.pools);
  for (const address of excluded) pools.delete(address);
  return { graph: market.graph, pools };
}

/**
 * Splits a sell across up to `maxPaths` pool-disjoint paths (each the best path left once the pools
 * of the earlier ones are taken out, found at the full amount). Disjoint paths have separable, concave
 * outputs (a V2 output's marginal falls as its input grows, and so does a chain of them), so filling
 * the legs greedily, one part at a time, to the leg whose next part pays most equalises their
 * marginal prices up to one part's width; moving halving amounts between legs while that pays then
 * narrows it to 1/4096 of a part (a leg that saturates within one part needs it). The split is returned only when it pays
 * more than the best single path after `extraLegCost`; otherwise the single path is.
 */
export function splitRoute(market: PricedMarket, tokenIn: Address, tokenOut: Address, amountIn: bigint, options: SplitOptions = {}): SplitRoute | undefined {
  const single = searchRoute(market, tokenIn, tokenOut, amountIn);
  if (single === undefined) return undefined;
  const singleResult: SplitRoute = { legs: [{ ...single, amountIn }], amountOut: single.amountOut, singleAmountOut: single.amountOut };
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

  const legs: SplitLeg[] = [];
  for (const [index, path] of paths.entries()) {
    const legIn = allotted[index]!;
    if (legIn === 0n) continue;
    legs.push({ hops: legHops(path.hops, legIn), amountOut: outputs[index]!, amountIn: legIn });
  }
  legs.sort((a, b) => (a.amountIn > b.amountIn ? -1 : a.amountIn < b.amountIn ? 1 : 0));
  const amountOut = legs.reduce((sum, leg) => sum + leg.amountOut, 0n);
  const cost = legs.slice(1).reduce((sum, leg) => sum + (options.extraLegCost?.(leg.hops.length) ?? 0n), 0n);
  if (legs.length < 2 || amountOut - cost <= single.amountOut) return singleResult;
  return { legs, amountOut, singleAmountOut: single.amountOut };
}

/** The path's hops re-priced for `amountIn`. */
function legHops(hops: readonly RouteHop[], amountIn: bigint): RouteHop[] {
  const priced: RouteHop[] = [];
  let amount = amountIn;
  for (const hop of hops) {
    const next = hopThrough(hop.pool, hop.tokenIn, amount)!;
    priced.push(next);
    amount = next.amountOut;
  }
  return priced;
}
