import { decodeRouteActions, type RouteAction } from "../calldata/routeActions";
import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import { isExactOutputQuote, readExactOutputQuoteCall, readQuoteCall } from "./readQuoteCall";
import { refuseAllowlistedPairTokens } from "./routePairTokens";
import { readRouterV3Venues } from "./routerV3Venues";
import type { ChainReader } from "./tradingWallet";
import { verifyQuoteOrder } from "./verifyQuoteOrder";
import { verifyQuoteTargets, type TrustedContracts } from "./verifyQuoteTargets";

/**
 * Every check of a quote before anything is signed or sent: the contracts against the router registry
 * (verifyQuoteTargets; first, so a foreign router is reported as such), then what `tx.data` and the
 * permit message say against the request and the quote JSON (verifyQuoteOrder), each V3 hop bound to
 * the pool the quote names through the router's own V3 venue table (read only when the route has one),
 * and no token of the route is a pair on the router's propAMM allowlist (refuseAllowlistedPairTokens).
 */
export async function verifyQuote(reader: ChainReader, contracts: TrustedContracts, quote: QuoteJson, expected: QuoteExpectation): Promise<void> {
  const router = await verifyQuoteTargets(reader, contracts, quote);
  const v3Venues = hasComputedPoolHop(quote) ? await readRouterV3Venues(reader, router) : undefined;
  const call = verifyQuoteOrder(quote, { ...expected, permit2: expected.permit2 ?? contracts.permit2 }, v3Venues);
  await refuseAllowlistedPairTokens(reader, router, quote.quote_id, call.order);
}

/**
 * Whether the order in `tx.data` has a hop whose pool the router computes (SWAP_V3 from its venue
 * table, SWAP_V4 from the pool key: both are bound to the pool the quote names with the running token,
 * which a native sell's WRAP makes the router's `weth`); false when it does not decode (verifyQuoteOrder then says why).
 */
function hasComputedPoolHop(quote: QuoteJson): boolean {
  let actions: RouteAction[];
  try {
    actions = decodeRouteActions((isExactOutputQuote(quote) ? readExactOutputQuoteCall(quote) : readQuoteCall(quote)).order.actions);
  } catch {
    return false;
  }
  const computed = (type: RouteAction["type"]) => type === "swapV3" || type === "swapV4";
  return actions.some((action) => computed(action.type) || (action.type === "split" && action.legs.some((leg) => leg.hops.some((hop) => computed(hop.type)))));
}
