import { BaseError, HttpRequestError, RpcRequestError, TimeoutError } from "viem";

/**
 * Whether an error means "the node could not be reached or did not answer" (retry later) rather
 * than "the node answered no" (act on it). A relay is never failed for a transient error.
 */
export function isTransientRpcError(error: unknown): boolean {
  if (error instanceof BaseError) {
    if (error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError) !== null) return true;
    const rpc = error.walk((cause) => cause instanceof RpcRequestError) as RpcRequestError | null;
    // -32603 internal error, -32005 limit exceeded: the node's trouble, not the request's.
    if (rpc !== null) return rpc.code === -32603 || rpc.code === -32005;
  }
  const text = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error);
  return /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|fetch failed|socket hang up|network/i.test(text);
}

/** The node's message for a refused raw transaction, lowercased, to classify "nonce too low" and friends. */
export function rpcErrorText(error: unknown): string {
  if (error instanceof BaseError) return `${error.shortMessage} ${error.details ?? ""}`.toLowerCase();
  return error instanceof Error ? error.message.toLowerCase() : String(error).toLowerCase();
}

/** Exponential backoff with a cap: 200 ms, 400 ms, … up to `capMs`. */
export function backoffMs(attempt: number, capMs = 5_000): number {
  return Math.min(capMs, 200 * 2 ** Math.min(attempt, 10));
}
