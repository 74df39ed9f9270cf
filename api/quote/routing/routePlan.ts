import type { Address } from "viem";
import { NATIVE_TOKEN_LOWERCASE, type RouteAction } from "../../../sdk";
import { ApiError } from "../../../sdk/server/apiError";
import { isTaxed } from "../../tokens/transferTax";
import type { QuoteInput } from "../response/buildQuote";
import type { PricedMarket } from "./poolGraph";
import { searchRoute, type RouteSearchStats } from "./prunedRouteSearch";
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
  stats: RouteSearchStats;
}>;

/** How a route is planned: forwards from the sell amount (planRoute) or backwards from the buy amount (planExactOutputRoute). */
export type RoutePlanner = (input: QuoteInput, market: PricedMarket, weth: Address, gasPriceWei: bigint) => RoutePlan;

/** The actions of a route over `legs`: WRAP, one path's swaps or one SPLIT, UNWRAP (the fee is added by the caller). */
export function actionsOfLegs(legs: readonly SplitLeg[], sellsNative: boolean, buysNative: boolean): RouteAction[] {
  // Each hop's action is its venue's (venues/venueAdapter.ts `action`); SPLIT legs carry the same
  // opcode-tagged hops. encodeRouteActions validates and packs the addresses; checksumming them here would be wasted.
  const swapsOf = (hops: readonly RouteHop[]) => hops.map((hop) => adapterOf(hop.pool).action(hop.pool, hop.tokenOut));
  const actions: RouteAction[] = [];
  if (sellsNative) actions.push({ type: "wrap" });
  if (legs.length > 1) actions.push({ type: "split", legs: legs.map((leg) => ({ shareBps: leg.shareBps, hops: swapsOf(leg.hops) })) });
  else actions.push(...swapsOf(legs[0]?.hops ?? []));
  if (buysNative) actions.push({ type: "unwrap" });
  return actions;
}

/** The route's actions and its gross output (before the platform fee), for an exact-input quote. */
export function planRoute(input: QuoteInput, market: PricedMarket, weth: Address, gasPriceWei: bigint): RoutePlan {
  const { sellToken, buyToken, query } = input;
  const sellsNative = sellToken.address === NATIVE;
  const buysNative = buyToken.address === NATIVE;
  const tokenIn = sellsNative ? weth : sellToken.address;
  const tokenOut = buysNative ? weth : buyToken.address;
  let legs: readonly SplitLeg[] = [];
  const sellAmount = query.sellAmount!;
  let grossOut = sellAmount;
  const stats: RouteSearchStats = { candidatePaths: 0, successfulRoutes: 0, bySource: {} };
  if (tokenIn !== tokenOut) {
    // Candidates are ranked by output net of their gas in the buy token, when the market prices it.
    const gasCost = gasCostIn(market, tokenOut, weth, gasPriceWei);
    const route = searchRoute(market, tokenIn, tokenOut, sellAmount, query.maxHops, stats, gasCost);
    if (route === undefined) {
      throw new ApiError("no_route", `no route from sell_token ${sellToken.symbol} to buy_token ${buyToken.symbol} for sell_amount ${query.sellAmount}${query.maxHops === undefined ? "" : ` within max_hops ${query.maxHops}`}`);
    }
    const execution = bestExecution(market, tokenIn, tokenOut, sellAmount, route, gasPriceWei, weth, query.maxHops);
    legs = execution.legs;
    grossOut = execution.amountOut;
  }
  return { legs, hops: legs.flatMap((leg) => leg.hops), grossOut, amountIn: sellAmount, actions: actionsOfLegs(legs, sellsNative, buysNative), sellsNative, buysNative, stats };
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
    const middles = intermediateTokens(plan.hops, tokenIn, tokenOut);
    const passed = await Promise.all(middles.map((token) => chain.taxes.of(token)));
    const taxed = middles.filter((_, index) => isTaxed(passed[index]!));
    if (taxed.length === 0) return plan;
    for (const token of taxed) avoided.add(token);
  }
  throw new ApiError("no_route", `no route from sell_token ${input.sellToken.symbol} to buy_token ${input.buyToken.symbol} that avoids tokens taxing transfers`);
}

/** Rounds of planning around taxed middle tokens found on the way (each round avoids at least one more). */
const MAX_TAXED_ROUNDS = 8;
