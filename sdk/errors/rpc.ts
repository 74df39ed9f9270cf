import { BaseError } from "viem";

/**
 * No RPC endpoint served a request: the message names each endpoint with why it did not, and the last
 * one's failure is the cause. A viem error, so viem's transport passes it on as it is rather than as an
 * "unknown RPC error", and callers that classify failures through causes (isNoAnswer) still can.
 */
export class NoEndpointServedError extends BaseError {
  override name = "NoEndpointServedError";

  constructor(chainId: number, reasons: readonly string[], cause?: unknown) {
    super(`no RPC endpoint serves chain ${chainId} (${reasons.join("; ")})`, {
      ...(cause instanceof Error ? { cause } : {}),
      metaMessages: ["Check the endpoints in RPC_URLS: each must answer, serve this chain and follow its head."],
    });
  }
}
