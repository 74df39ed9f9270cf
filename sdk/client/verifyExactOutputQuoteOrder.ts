import type { ExactOutputQuoteCall } from "../calldata/decodeQuoteOrder";
import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import type { QuoteFieldCheck } from "./quoteFieldCheck";
import { readExactOutputQuoteCall } from "./readQuoteCall";
import type { RouterV3Venues } from "./routerV3Venues";
import { verifyRecipientDeadlineAndCall } from "./verifyQuoteOrder";

/**
 * verifyQuoteOrder for an exact-output quote (one with `max_sell_amount`), once the quote JSON was
 * checked against the request: `tx.data` must be the mode's exact-output entry point, its order must
 * sell `sell_token` for at most `max_sell_amount` and buy exactly `buy_amount` of `buy_token` for the
 * recipient by `expires_at`, over the quote's `route`; a native sell sends `max_sell_amount` as value;
 * the permit signs `max_sell_amount` (plus the relayer fee when gasless) with an exact-output witness
 * equal to the order. Throws QuoteMismatchError, QuoteFeeError or QuoteCalldataError naming the field.
 */
export function verifyExactOutputQuoteOrder(check: QuoteFieldCheck, quote: QuoteJson, expected: QuoteExpectation, v3Venues?: RouterV3Venues): ExactOutputQuoteCall {
  const call = readExactOutputQuoteCall(quote);
  const { order } = call;
  check.address("tx.data.order.sellToken", order.sellToken, quote.sell_token, "sell_token");
  check.amount("tx.data.order.maxSellAmount", order.maxSellAmount, BigInt(quote.max_sell_amount!), "max_sell_amount");
  check.address("tx.data.order.buyToken", order.buyToken, quote.buy_token, "buy_token");
  check.amount("tx.data.order.buyAmount", order.buyAmount, BigInt(quote.buy_amount), "buy_amount");
  return verifyRecipientDeadlineAndCall(check, quote, call, expected, v3Venues);
}
