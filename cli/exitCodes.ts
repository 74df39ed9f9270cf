import {
  ApiError,
  ChainConnectionError,
  InsufficientBalanceError,
  QuoteCalldataError,
  QuoteKindError,
  QuoteMismatchError,
  RelayTimeoutError,
  StaleQuoteError,
  TokenNotSupportedError,
  TransactionRevertedError,
  UntrustedRouterError,
} from "../sdk";

/** The tool's exit codes, documented in docs/integrators/cli.md and docs/reference/error-codes.md; each cause has its own. */
export const ExitCode = {
  ok: 0,
  /** A bug or an error the tool did not expect. */
  unexpected: 1,
  /** Bad command line or missing configuration (unknown option, no PRIVATE_KEY, no confirmation). */
  usage: 2,
  /** The API refused the request (4xx other than 429): invalid input, unknown quote, revoked key, … */
  apiRejected: 3,
  /** The API rate-limited the request (429); retry after the time it printed. */
  rateLimited: 4,
  /** On chain: a transaction reverted, the quote went stale (simulation failed), or a relay ended failed, expired or rejected. */
  onChainFailure: 5,
  /** Nothing answered in time (HTTP request or relay wait). */
  timeout: 6,
  /** The API could not be reached or answered 5xx, or the chain's JSON-RPC endpoint could not be reached. */
  apiUnavailable: 7,
  /** The client's own checks refused: an untrusted router, a tampered quote, an insufficient balance, a token outside the snapshot. */
  refused: 8,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A failure the tool raises itself, with the exit code it maps to. */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCode,
  ) {
    super(message);
  }
}

/** The exit code for an error thrown while running a command. */
export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ApiError) {
    if (error.code === "timeout") return ExitCode.timeout;
    if (error.status === 429) return ExitCode.rateLimited;
    if (error.status === 0 || error.status >= 500) return ExitCode.apiUnavailable;
    return ExitCode.apiRejected;
  }
  if (error instanceof ChainConnectionError) return ExitCode.apiUnavailable;
  if (error instanceof StaleQuoteError || error instanceof TransactionRevertedError) return ExitCode.onChainFailure;
  if (error instanceof RelayTimeoutError) return ExitCode.timeout;
  if (error instanceof UntrustedRouterError || error instanceof QuoteMismatchError || error instanceof QuoteCalldataError) return ExitCode.refused;
  if (error instanceof InsufficientBalanceError || error instanceof TokenNotSupportedError) return ExitCode.refused;
  if (error instanceof QuoteKindError) return ExitCode.usage;
  return ExitCode.unexpected;
}
