import type { Address } from "viem";
import { SdkError } from "./base";

/** What to do about the refusals whose cause is not the request's fields but who sent it. */
const CODE_ADVICE: Readonly<Record<string, string>> = {
  api_key_missing: "Pass apiKey to createTradingClient (SWAP_API_KEY for swap-api); onboard or createApiKey issues one.",
  api_key_invalid: "The API key is not one this API issued: check apiKey (SWAP_API_KEY) and the API URL; a new key comes from createApiKey.",
  api_key_revoked: "This key was revoked: create another with createApiKey (swap-api onboard key) and use that one.",
  invalid_signature: "The message must be signed by owner_wallet itself, exactly as the nonce answer returned it: sign again with that wallet.",
  not_integrator_owner: "Sign with the wallet that owns the integrator (viewProfile lists the profiles a wallet owns), or pass that integrator's id.",
  integrator_not_found: "No integrator has this id: viewProfile lists the ids of the profiles your wallet owns.",
};

/**
 * The API answered with an error status (or could not be reached: `status` 0). `code` is the API's
 * machine code (`rate_limited`, `unsupported_token`, …); `retryable` says whether the same request
 * may succeed later, after `retryAfterSeconds` when the API said so.
 */
export class ApiError extends SdkError {
  override name = "ApiError";
  readonly status: number;
  readonly code: string;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  /** Extra fields of the error body, e.g. `bucket` of a 429. */
  readonly body: Readonly<Record<string, unknown>>;

  constructor(parameters: {
    method: string;
    path: string;
    status: number;
    code: string;
    message: string;
    retryAfterSeconds?: number;
    body?: Record<string, unknown>;
    cause?: unknown;
    /** What to do about it, when a subclass knows better than the generic advice. */
    details?: string;
    /** For a retryable failure: what the client already did about it, and what to do now (see ApiTransport). */
    retryAdvice?: string;
  }) {
    const { method, path, status, code, message, retryAfterSeconds } = parameters;
    const retryable = status === 0 || status === 429 || status === 502 || status === 503 || status === 504;
    super(`${method} ${path} failed${status === 0 ? "" : ` with ${status}`} ${code}: ${message}`, {
      details:
        parameters.details ??
        (retryable
          ? `Retry later${retryAfterSeconds === undefined ? "" : ` (after ${retryAfterSeconds} s)`}.${parameters.retryAdvice === undefined ? "" : ` ${parameters.retryAdvice}`}`
          : (CODE_ADVICE[code] ?? "Fix the request: the same request will fail again.")),
      cause: parameters.cause,
    });
    this.status = status;
    this.code = code;
    this.retryable = retryable;
    this.retryAfterSeconds = retryAfterSeconds;
    this.body = parameters.body ?? {};
  }
}

/** The quote's `issues.balance` is set: the taker holds less than the swap needs. */
export class InsufficientBalanceError extends SdkError {
  override name = "InsufficientBalanceError";
  constructor(
    readonly token: Address,
    readonly actual: bigint,
    readonly expected: bigint,
  ) {
    super(`insufficient balance of ${token}: the taker holds ${actual}, the swap needs ${expected}`, {
      details: "Fund the taker wallet or quote a smaller sell_amount.",
    });
  }
}

/** The quote's transaction no longer simulates from the taker: prices, balances or the deadline moved. */
export class StaleQuoteError extends SdkError {
  override name = "StaleQuoteError";
  constructor(
    readonly quoteId: string,
    cause: unknown,
  ) {
    super(`quote ${quoteId} is stale: simulating its transaction from the taker failed`, {
      details: "Request a fresh quote with getQuote and execute that one; never resend an old quote.",
      cause,
    });
  }
}

/** A quote names a contract the on-chain router registry does not vouch for: the response may be tampered. */
export class UntrustedRouterError extends SdkError {
  override name = "UntrustedRouterError";
  constructor(
    readonly role: string,
    readonly address: Address,
    readonly featureId: bigint,
    readonly accepted: readonly Address[],
  ) {
    super(`refusing ${role} ${address}: it is not the registry's router for feature ${featureId}`, {
      details: `The registry accepts ${accepted.length === 0 ? "no router (the feature is paused or unset)" : accepted.join(" or ")}. Do not send this transaction; re-quote, and report the response if it repeats.`,
    });
  }
}

/**
 * The chain's JSON-RPC endpoint did not answer (refused, timed out, closed, an HTTP error): nothing
 * about the quote is known, so it is neither trusted nor refused. Not a revert, which is an answer.
 */
export class ChainConnectionError extends SdkError {
  override name = "ChainConnectionError";
  constructor(
    /** The endpoint tried, when the transport says which (viem's http and webSocket transports do). */
    readonly url: string | undefined,
    readonly reason: string,
    /** What the client was doing: "reading the router registry", … */
    readonly during: string,
    cause: unknown,
  ) {
    super(`cannot reach ${url ?? "the chain's JSON-RPC endpoint"} while ${during} (${reason})`, {
      details: "Check the RPC URL (RPC_URL, or the publicClient's transport) and that the node is running; then try again. Nothing was signed or sent.",
      cause,
    });
  }
}

/** An address the caller passed (a taker, a recipient, a contract) is not one: named by its field. */
export class AddressInputError extends SdkError {
  override name = "AddressInputError";
  constructor(
    readonly field: string,
    readonly value: unknown,
  ) {
    const shown = typeof value === "string" ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : String(value);
    super(`${field} is not an address: ${shown}`, {
      details: "Pass 0x and 40 hex digits: all lowercase, or mixed case with a valid EIP-55 checksum (getAddress gives it).",
    });
  }
}

/** A token is not in the supported-token snapshot, and the caller did not mark the request as genuine demand. */
export class TokenNotSupportedError extends SdkError {
  override name = "TokenNotSupportedError";
  constructor(
    readonly chainId: number,
    readonly tokens: readonly string[],
  ) {
    super(`${tokens.join(" and ")} ${tokens.length === 1 ? "is" : "are"} not in chain ${chainId}'s supported-token snapshot`, {
      details: "Quote supported tokens only; for a real user's request pass { genuineDemand: true } to send one probe (it is rejected, and counts as demand).",
    });
  }
}

/** The supported-token snapshot body is not what the spec promises (chain, schema version or count). */
export class SnapshotFormatError extends SdkError {
  override name = "SnapshotFormatError";
  constructor(problem: string) {
    super(`supported-token snapshot rejected: ${problem}`, { details: "The previous snapshot stays in use; check the API URL and chain id." });
  }
}

/** A quote of the wrong kind for the call: a gasless quote given to executeQuote, or the reverse. */
export class QuoteKindError extends SdkError {
  override name = "QuoteKindError";
  constructor(quoteId: string, problem: string, next: string) {
    super(`quote ${quoteId}: ${problem}`, { details: next });
  }
}

/** The client needs a setting it was not given. */
export class ClientConfigError extends SdkError {
  override name = "ClientConfigError";
  constructor(problem: string, next: string) {
    super(problem, { details: next });
  }
}

/** A transaction the client sent was mined and reverted. */
export class TransactionRevertedError extends SdkError {
  override name = "TransactionRevertedError";
  constructor(
    readonly hash: `0x${string}`,
    what: string,
  ) {
    super(`${what} transaction ${hash} reverted`, { details: "Re-quote and try again; check balances and allowances." });
  }
}

/** waitForRelay gave up before the relay reached a final status. */
export class RelayTimeoutError extends SdkError {
  override name = "RelayTimeoutError";
  constructor(
    readonly relayId: string,
    readonly lastStatus: string,
    timeoutMs: number,
  ) {
    super(`relay ${relayId} is still ${lastStatus} after ${timeoutMs} ms`, {
      details: "It may still confirm: poll getRelay / waitForRelay again with the same relay id; do not resubmit a new signature.",
    });
  }
}
