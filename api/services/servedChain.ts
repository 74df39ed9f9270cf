import type { ApiConfig } from "../config";
import { ApiError } from "../../sdk/server/apiError";

/** One API serves one chain; a request naming another chain is refused rather than signed for it. */
export function assertServedChain(config: ApiConfig, chainId: number | undefined): void {
  if (chainId !== undefined && chainId !== config.chainId) {
    throw new ApiError("unsupported_chain", `chain_id ${chainId} is not served here; this API serves chain ${config.chainId}`);
  }
}
