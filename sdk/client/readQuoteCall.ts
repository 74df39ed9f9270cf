import { decodeQuoteOrder, quoteCallFunction, type QuoteCall, type QuoteCallKind } from "../calldata/decodeQuoteOrder";
import { decodeExactOutputQuoteOrder, exactOutputCallFunction, type ExactOutputQuoteCall } from "../calldata/decodeExactOutputQuoteOrder";
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
 * The call in a quote's `tx.data`, refused unless it decodes canonically (QuoteCalldataError) as the
 * call of the quote's settlement mode (QuoteMismatchError on field `tx.data`).
 */
export function readQuoteCall(quote: QuoteJson): QuoteCall {
  let call: QuoteCall;
  try {
    call = decodeQuoteOrder(quote.tx.data);
  } catch (cause) {
    if (cause instanceof SwapCalldataError) throw new QuoteCalldataError(quote.quote_id, "tx.data", cause.shortMessage, cause);
    throw cause;
  }
  const kind = quoteCallKind(quote);
  if (call.kind !== kind) {
    const mode = `settlement ${quote.settlement}${quote.gasless ? " (gasless)" : ""}`;
    throw new QuoteMismatchError(quote.quote_id, "tx.data", quoteCallFunction[kind], quoteCallFunction[call.kind], mode, "is not");
  }
  return call;
}

/** Whether a quote is exact-output (it was asked with buy_amount): it carries `max_sell_amount`. */
export function isExactOutputQuote(quote: Pick<QuoteJson, "max_sell_amount">): boolean {
  return quote.max_sell_amount !== undefined;
}

/** readQuoteCall for an exact-output quote: its `tx.data` must be the exact-output entry point of its mode. */
export function readExactOutputQuoteCall(quote: QuoteJson): ExactOutputQuoteCall {
  let call: ExactOutputQuoteCall;
  try {
    call = decodeExactOutputQuoteOrder(quote.tx.data);
  } catch (cause) {
    if (cause instanceof SwapCalldataError) throw new QuoteCalldataError(quote.quote_id, "tx.data", cause.shortMessage, cause);
    throw cause;
  }
  const kind = quoteCallKind(quote);
  if (call.kind !== kind) {
    const mode = `settlement ${quote.settlement}${quote.gasless ? " (gasless)" : ""}, exact output`;
    throw new QuoteMismatchError(quote.quote_id, "tx.data", exactOutputCallFunction[kind], exactOutputCallFunction[call.kind], mode, "is not");
  }
  return call;
}
