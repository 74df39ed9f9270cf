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
  const v3Venues = hasV3Hop(quote) ? await readRouterV3Venues(reader, router) : undefined;
  const call = verifyQuoteOrder(quote, { ...expected, permit2: expected.permit2 ?? contracts.permit2 }, v3Venues);
  await refuseAllowlistedPairTokens(reader, router, quote.quote_id, call.order);
}

/** Whether the order in `tx.data` has a SWAP_V3 hop; false when it does not decode (verifyQuoteOrder then says why). */
function hasV3Hop(quote: QuoteJson): boolean {
  let actions: RouteAction[];
  try {
    actions = decodeRouteActions((isExactOutputQuote(quote) ? readExactOutputQuoteCall(quote) : readQuoteCall(quote)).order.actions);
  } catch {
    return false;
  }
  return actions.some((action) => action.type === "swapV3" || (action.type === "split" && action.legs.some((leg) => leg.hops.some((hop) => hop.type === "swapV3"))));
}
