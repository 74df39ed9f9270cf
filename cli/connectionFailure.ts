import { BaseError } from "viem";
import { ChainConnectionError, rpcConnectionFailure } from "../sdk";

/** The low-level reason a fetch gave (`fetch failed` hides ECONNREFUSED and friends in its cause). */
function fetchReason(error: Error): string {
  const cause = (error as Error & { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === "string" ? cause.code : typeof cause?.message === "string" ? cause.message : undefined;
  return detail === undefined ? error.message : `${error.message}: ${detail}`;
}

/**
 * One line that says which URL could not be reached and why, or undefined when `error` is not a
 * connection failure. viem's own first line ("HTTP request failed.") names no URL.
 */
export function connectionFailure(error: unknown, url?: string): string | undefined {
  if (error instanceof ChainConnectionError) return error.shortMessage;
  if (error instanceof BaseError) {
    const failure = rpcConnectionFailure(error);
    if (failure === undefined) return undefined;
    return `cannot reach ${failure.url ?? url ?? "the JSON-RPC endpoint"} (${failure.reason})`;
  }
  if (error instanceof TypeError && error.message === "fetch failed") return `cannot reach ${url ?? "the API"} (${fetchReason(error)})`;
  if (error instanceof Error && error.name === "TimeoutError") return `${url ?? "the API"} did not answer in time (${error.message})`;
  return undefined;
}

/** `connectionFailure`, else the error's first line. */
export function describeFailure(error: unknown, url?: string): string {
  return connectionFailure(error, url) ?? (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}
