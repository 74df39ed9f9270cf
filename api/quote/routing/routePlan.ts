import type { Address } from "viem";
import { NATIVE_CURRENCY, NATIVE_TOKEN_LOWERCASE, type RouteAction } from "../../../sdk";
import { ApiError } from "../../../sdk/server/apiError";
import { isTaxed } from "../../tokens/transferTax";
import type { QuoteInput } from "../response/buildQuote";
import type { PricedMarket } from "./poolGraph";
import { SPLIT_GAS, WRAP_GAS } from "../gas/gasEstimate";
import { legsHopGas, searchRoute, type RouteSearchStats } from "./prunedRouteSearch";
import type { RouteHop } from "./routeSearch";
import { bestExecution, gasCostIn } from "./splitDecision";
import type { SplitLeg } from "./splitRoute";
import { intermediateTokens, marketAvoidingTaxed } from "../admission/taxedIntermediates";
import { adapterOf } from "../venues/venueAdapters";

const NATIVE = NATIVE_TOKEN_LOWERCASE;

/** A quote's route: its legs and hops, actions, gross output (before the platform fee) and the input it takes. */
export type RoutePlan = Readonly<{
  legs: readonly SplitLeg[];
  hops: readonly RouteHop[];
  grossOut: bigint;
  /** The input the route takes: the sell amount, or for an exact-output quote what its backward pass needs. */
  amountIn: bigint;
  actions: RouteAction[];
  sellsNative: boolean;
  buysNative: boolean;
  /** The route starts with WRAP (it sells native ETH through WETH pools) and ends with UNWRAP (it buys native ETH through them). */
  wraps: boolean;
  unwraps: boolean;
  stats: RouteSearchStats;
}>;

/** How a route is planned: forwards from the sell amount (planRoute) or backwards from the buy amount (planExactOutputRoute). */
export type RoutePlanner = (input: QuoteInput, market: PricedMarket, weth: Address, gasPriceWei: bigint) => RoutePlan;

/** The actions of a route over `legs`: WRAP, one path's swaps or one SPLIT, UNWRAP (the fee is added by the caller). */
export function actionsOfLegs(legs: readonly SplitLeg[], wraps: boolean, unwraps: boolean): RouteAction[] {
  // Each hop's action is its venue's (venues/venueAdapter.ts `action`); SPLIT legs carry the same
  // opcode-tagged hops. encodeRouteActions validates and packs the addresses; checksumming them here would be wasted.
  const swapsOf = (hops: readonly RouteHop[]) => hops.map((hop) => adapterOf(hop.pool).action(hop.pool, hop.tokenOut));
  const actions: RouteAction[] = [];
  if (wraps) actions.push({ type: "wrap" });
  if (legs.length > 1) actions.push({ type: "split", legs: legs.map((leg) => ({ shareBps: leg.shareBps, hops: swapsOf(leg.hops) })) });
  else actions.push(...swapsOf(legs[0]?.hops ?? []));
  if (unwraps) actions.push({ type: "unwrap" });
  return actions;
}

/**
 * Where a route may start (or end) for a quote's sell (or buy) token in the market: at the token; for
 * native ETH at WETH (with WRAP / UNWRAP) or at native ETH itself, address(0), which only V4 pools hold
 * (a SWAP_V4 hop pays native input as value and can leave the output native: no WRAP or UNWRAP).
 */
function routeEnds(token: Address, weth: Address): readonly Address[] {
  return token === NATIVE ? [weth, NATIVE_CURRENCY] : [token];
}

/** The execution gas of a route's legs as the gas model counts it: their hops, and a split's own cost. */
function legsGas(legs: readonly SplitLeg[]): number {
  const hops = legsHopGas(legs);
  return legs.length > 1 ? hops + SPLIT_GAS.base + SPLIT_GAS.perLeg * legs.length : hops;
}

/** A route between one pair of ends (routeEnds): whether it wraps first and unwraps last, and the gas its legs and those cost. */
export type EndsCandidate<T> = T & { wraps: boolean; unwraps: boolean; gas: number };

/**
 * Each pair of route ends for a quote's tokens (routeEnds) that `search` finds a route between, with its
 * gas, WRAP's and UNWRAP's counted on the WETH side: the candidates a planner ranks. The two kinds of
 * end never mix in one SPLIT: every leg starts at the route's running token (ISwapSettlement.sol), which
 * is WETH after a WRAP and native ETH without one, so a split's legs all start (and end) at the same node.
 */
export function endCandidates<T extends { legs: readonly SplitLeg[] }>(sellToken: Address, buyToken: Address, weth: Address, search: (tokenIn: Address, tokenOut: Address) => T | undefined): EndsCandidate<T>[] {
  const candidates: EndsCandidate<T>[] = [];
  for (const tokenIn of routeEnds(sellToken, weth)) {
    for (const tokenOut of routeEnds(buyToken, weth)) {
      const found = search(tokenIn, tokenOut);
      if (found === undefined) continue;
      const wraps = sellToken === NATIVE && tokenIn === weth;
      const unwraps = buyToken === NATIVE && tokenOut === weth;
      candidates.push({ ...found, wraps, unwraps, gas: legsGas(found.legs) + (wraps ? WRAP_GAS.wrap : 0) + (unwraps ? WRAP_GAS.unwrap : 0) });
    }
  }
  return candidates;
}

/** ETH → WETH or WETH → ETH: a bare WRAP or UNWRAP of `amount`, no swap. */
export function isBareWrap(sellToken: Address, buyToken: Address, weth: Address): boolean {
  return (sellToken === NATIVE ? weth : sellToken) === (buyToken === NATIVE ? weth : buyToken);
}

/** The plan of a bare WRAP or UNWRAP (isBareWrap): what goes in comes out. */
export function bareWrapPlan(sellToken: Address, buyToken: Address, amount: bigint, stats: RouteSearchStats): RoutePlan {
  const sellsNative = sellToken === NATIVE;
  const buysNative = buyToken === NATIVE;
  return { legs: [], hops: [], grossOut: amount, amountIn: amount, actions: actionsOfLegs([], sellsNative, buysNative), sellsNative, buysNative, wraps: sellsNative, unwraps: buysNative, stats };
}

/**
 * The route's actions and its gross output (before the platform fee), for an exact-input quote. A native
 * end is searched both ways, through WETH pools (WRAP first, UNWRAP last) and through native V4 pools
 * (neither), and the better output net of gas wins (endCandidates).
 */
export function planRoute(input: QuoteInput, market: PricedMarket, weth: Address, gasPriceWei: bigint): RoutePlan {
  const { sellToken, buyToken, query } = input;
  const sellAmount = query.sellAmount!;
  const stats: RouteSearchStats = { candidatePaths: 0, successfulRoutes: 0, bySource: {} };
  if (isBareWrap(sellToken.address, buyToken.address, weth)) return bareWrapPlan(sellToken.address, buyToken.address, sellAmount, stats);
  // Candidates are ranked by output net of their gas in the buy token (native ETH and WETH alike are wei), when the market prices it.
  const gasCost = gasCostIn(market, buyToken.address === NATIVE ? weth : buyToken.address, weth, gasPriceWei);
  const candidates = endCandidates(sellToken.address, buyToken.address, weth, (tokenIn, tokenOut) => {
    const route = searchRoute(market, tokenIn, tokenOut, sellAmount, query.maxHops, stats, gasCost);
    return route === undefined ? undefined : bestExecution(market, tokenIn, tokenOut, sellAmount, route, gasPriceWei, weth, query.maxHops);
  });
  const net = (candidate: EndsCandidate<{ amountOut: bigint }>) => (gasCost === undefined ? candidate.amountOut : candidate.amountOut - gasCost(candidate.gas));
  const best = candidates.reduce<(typeof candidates)[number] | undefined>((kept, candidate) => (kept === undefined || net(candidate) > net(kept) ? candidate : kept), undefined);
  if (best === undefined) {
    throw new ApiError("no_route", `no route from sell_token ${sellToken.symbol} to buy_token ${buyToken.symbol} for sell_amount ${query.sellAmount}${query.maxHops === undefined ? "" : ` within max_hops ${query.maxHops}`}`);
  }
  const { legs, wraps, unwraps } = best;
  return { legs, hops: legs.flatMap((leg) => leg.hops), grossOut: best.amountOut, amountIn: sellAmount, actions: actionsOfLegs(legs, wraps, unwraps), sellsNative: sellToken.address === NATIVE, buysNative: buyToken.address === NATIVE, wraps, unwraps, stats };
}

/**
 * A plan (planRoute, or `planner`) over the market without pools of taxed tokens in the middle of a route. A route through
 * a token whose tax this process has not measured yet (rare: all are measured at start) is planned
 * again once it is known to be taxed; each round excludes at least one more token, so it ends.
 */
export async function planAvoidingTaxed(input: QuoteInput, market: PricedMarket, weth: Address, gasPriceWei: bigint, planner: RoutePlanner = planRoute): Promise<RoutePlan> {
  const { chain, sellToken, buyToken } = input;
  const tokenIn = sellToken.address === NATIVE ? weth : sellToken.address;
  const tokenOut = buyToken.address === NATIVE ? weth : buyToken.address;
  // A taxed middle token found on the way (one the snapshot did not know) is avoided from then on: each
  // round removes at least one token, so the search ends.
  const avoided = new Set(chain.taxes.knownTaxed());
  for (let round = 0; round < MAX_TAXED_ROUNDS; round++) {
    const plan = planner(input, marketAvoidingTaxed(market, avoided, tokenIn, tokenOut), weth, gasPriceWei);
    // Native ETH (address(0)) is only ever a native route's end, never a middle token (PoolGraph.hubs).
    const middles = intermediateTokens(plan.hops, tokenIn, tokenOut).filter((token) => token !== NATIVE_CURRENCY);
    const passed = await Promise.all(middles.map((token) => chain.taxes.of(token)));
    const taxed = middles.filter((_, index) => isTaxed(passed[index]!));
    if (taxed.length === 0) return plan;
    for (const token of taxed) avoided.add(token);
  }
  throw new ApiError("no_route", `no route from sell_token ${input.sellToken.symbol} to buy_token ${input.buyToken.symbol} that avoids tokens taxing transfers`);
}

/** Rounds of planning around taxed middle tokens found on the way (each round avoids at least one more). */
const MAX_TAXED_ROUNDS = 8;
