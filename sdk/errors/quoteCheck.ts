import { SdkError } from "./base";

const REFUSE = "Do not sign or send this quote: the response was altered between the API and you (a proxy, plain http, a compromised API) or does not answer your request. Re-quote over https, and report it if it repeats.";

/**
 * A field of the quote's transaction or typed data differs from what it must be: the request, another
 * field of the quote JSON, or the other half of the quote (tx.data against the permit message).
 * `field` is the path of the value refused (`tx.data.order.recipient`,
 * `permit2.message.witness.minBuyAmount`, …); `source` says where `expected` came from.
 */
export class QuoteMismatchError extends SdkError {
  override name = "QuoteMismatchError";
  constructor(
    readonly quoteId: string,
    readonly field: string,
    readonly expected: string,
    readonly actual: string,
    readonly source: string,
    problem = "is not",
  ) {
    super(`quote ${quoteId}: ${field} is ${actual}, which ${problem} ${expected} (${source})`, { details: REFUSE });
  }
}

/** The route pays a fee to someone other than the integrator's fee recipient, or more than the fee asked for. */
export class QuoteFeeError extends QuoteMismatchError {
  override name = "QuoteFeeError";
}

/**
 * `tx.data` is not a router call a quote makes (another function, calldata that does not decode, or a
 * non-canonical encoding that could read differently on chain). `problem` names the field itself.
 */
export class QuoteCalldataError extends SdkError {
  override name = "QuoteCalldataError";
  constructor(
    readonly quoteId: string,
    readonly field: string,
    problem: string,
    cause?: unknown,
  ) {
    super(`quote ${quoteId}: ${problem}`, { details: REFUSE, cause });
  }
}
