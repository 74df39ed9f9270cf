import { decodeSettlementCall, settlementFunctionNames, type ExactOutputQuoteCall, type QuoteCall, type QuoteCallKind, type SettlementCall } from "../calldata/decodeQuoteOrder";
import { EXACT_INPUT, EXACT_OUTPUT, type OrderKind } from "../orders/orderKinds";
import { SwapCalldataError } from "../errors/calldata";
import { QuoteCalldataError, QuoteMismatchError } from "../errors/quoteCheck";
import { isNativeToken } from "../tokens/native";
import type { QuoteJson } from "../wire/quoteJson";

/** The router call a quote's settlement mode makes. */
export function quoteCallKind(quote: QuoteJson): QuoteCallKind {
  if (quote.gasless || quote.settlement === "gasless") return "gasless";
  if (quote.settlement === "permit2") return "permit";
  return isNativeToken(quote.sell_token) ? "native" : "allowance";
}

/**
 * The call of order kind `kind` in a quote's `tx.data`, refused unless it decodes canonically
 * (QuoteCalldataError) as the call of the quote's settlement mode (QuoteMismatchError on field `tx.data`).
 */
function readSettlementCall<Order>(kind: OrderKind<Order, unknown, unknown, unknown>, quote: QuoteJson): SettlementCall<Order> {
  let call: SettlementCall<Order>;
  try {
    call = decodeSettlementCall(kind, quote.tx.data);
  } catch (cause) {
    if (cause instanceof SwapCalldataError) throw new QuoteCalldataError(quote.quote_id, "tx.data", cause.shortMessage, cause);
    throw cause;
  }
  const mode = quoteCallKind(quote);
  if (call.kind !== mode) {
    const names = settlementFunctionNames(kind);
    const described = `settlement ${quote.settlement}${quote.gasless ? " (gasless)" : ""}${kind.name === "exactOutput" ? ", exact output" : ""}`;
    throw new QuoteMismatchError(quote.quote_id, "tx.data", names[mode], names[call.kind], described, "is not");
  }
  return call;
}

/** The exact-input call in a quote's `tx.data` (readSettlementCall of EXACT_INPUT). */
export const readQuoteCall = (quote: QuoteJson): QuoteCall => readSettlementCall(EXACT_INPUT, quote);

/** Whether a quote is exact-output (it was asked with buy_amount): it carries `max_sell_amount`. */
export function isExactOutputQuote(quote: Pick<QuoteJson, "max_sell_amount">): boolean {
  return quote.max_sell_amount !== undefined;
}

/** readQuoteCall for an exact-output quote: its `tx.data` must be the exact-output entry point of its mode. */
export const readExactOutputQuoteCall = (quote: QuoteJson): ExactOutputQuoteCall => readSettlementCall(EXACT_OUTPUT, quote);
