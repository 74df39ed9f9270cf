import type { Address } from "viem";
import { NATIVE_TOKEN_LOWERCASE } from "../../../sdk";
import { ApiError } from "../../../sdk/server/apiError";
import type { QuoteInput } from "../response/buildQuote";
import { asRunByRouter, bestExactOutputExecution, pricesBackwards, searchRouteForOutput } from "./exactOutputRoute";
import { marketWhere } from "../market/marketView";
import type { PricedMarket } from "./poolGraph";
import type { RouteSearchStats } from "./prunedRouteSearch";
import { actionsOfLegs, bareWrapPlan, endCandidates, isBareWrap, type EndsCandidate, type RoutePlan } from "./routePlan";
import { gasCostIn } from "./splitDecision";

const NATIVE = NATIVE_TOKEN_LOWERCASE;
const BPS = 10_000n;

/**
 * The gross output a FEE action of `bps` must receive to leave at least `net`, rounded up exactly as
 * the routers' backward pass rounds it (ExactOutputExecutor: the forward FEE takes floor(gross·bps/BPS)).
 */
export function grossBeforeFee(net: bigint, bps: number): bigint {
  const keep = BPS - BigInt(bps);
  return (net * BPS + keep - 1n) / keep;
}

/**
 * The route of an exact-output quote: the cheapest input for `query.buyAmount` (grossed up for the
 * integrator fee), over the same paths and splits as an exact-input quote. `amountIn` is what the
 * router's backward pass will compute at these reserves; `grossOut` what the route then pays before
 * the fee (at least what was asked; on a V2 route run forwards rounding may add a few units; a route
 * the router runs backwards, with a split or a V3 or V4 hop, pays exactly what was asked). A native end
 * is searched both ways, as planRoute searches it, and the smaller input plus its gas in the sell token wins.
 */
export function planExactOutputRoute(input: QuoteInput, pricedMarket: PricedMarket, weth: Address, gasPriceWei: bigint): RoutePlan {
  const { sellToken, buyToken, query } = input;
  const buyAmount = query.buyAmount!;
  const needed = grossBeforeFee(buyAmount, query.feeBps);
  const stats: RouteSearchStats = { candidatePaths: 0, successfulRoutes: 0, bySource: {} };
  if (isBareWrap(sellToken.address, buyToken.address, weth)) return bareWrapPlan(sellToken.address, buyToken.address, needed, stats);
  // Pools that cannot be priced backwards (propAMMs; V4 on routers that refuse it) would only break splits: the whole search leaves them out.
  const market = marketWhere(pricedMarket, pricesBackwards);
  // Gas is priced over the whole market: a propAMM may be what prices the sell token in ETH.
  const gasCost = gasCostIn(pricedMarket, sellToken.address === NATIVE ? weth : sellToken.address, weth, gasPriceWei);
  const candidates = endCandidates(sellToken.address, buyToken.address, weth, (tokenIn, tokenOut) => {
    const single = searchRouteForOutput(market, tokenIn, tokenOut, needed, query.maxHops, stats);
    return single === undefined ? undefined : asRunByRouter(bestExactOutputExecution(market, tokenIn, tokenOut, needed, single, gasPriceWei, weth, query.maxHops), needed);
  });
  const cost = (candidate: EndsCandidate<{ amountIn: bigint }>) => (gasCost === undefined ? candidate.amountIn : candidate.amountIn + gasCost(candidate.gas));
  const best = candidates.reduce<(typeof candidates)[number] | undefined>((kept, candidate) => (kept === undefined || cost(candidate) < cost(kept) ? candidate : kept), undefined);
  if (best === undefined) {
    throw new ApiError(
      "no_route",
      `no route from sell_token ${sellToken.symbol} to buy_token ${buyToken.symbol} can deliver buy_amount ${buyAmount}${query.maxHops === undefined ? "" : ` within max_hops ${query.maxHops}`} (the pools may not hold that much)`,
    );
  }
  const { legs, wraps, unwraps } = best;
  return { legs, hops: legs.flatMap((leg) => leg.hops), grossOut: best.amountOut, amountIn: best.amountIn, actions: actionsOfLegs(legs, wraps, unwraps), sellsNative: sellToken.address === NATIVE, buysNative: buyToken.address === NATIVE, wraps, unwraps, stats };
}
