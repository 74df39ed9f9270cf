import { BaseError } from "viem";

/** The node's message for a refused raw transaction, lowercased, to classify "nonce too low" and friends. */
export function rpcErrorText(error: unknown): string {
  if (error instanceof BaseError) return `${error.shortMessage} ${error.details ?? ""}`.toLowerCase();
  return error instanceof Error ? error.message.toLowerCase() : String(error).toLowerCase();
}
