import { BaseError } from "viem";

/** The node's message for a refused raw transaction, lowercased, to classify "nonce too low" and friends. */
export function rpcErrorText(error: unknown): string {
  if (error instanceof BaseError) return `${error.shortMessage} ${error.details ?? ""}`.toLowerCase();
  return error instanceof Error ? error.message.toLowerCase() : String(error).toLowerCase();
}

/** Exponential backoff with a cap: 200 ms, 400 ms, … up to `capMs`. */
export function backoffMs(attempt: number, capMs = 5_000): number {
  return Math.min(capMs, 200 * 2 ** Math.min(attempt, 10));
}
