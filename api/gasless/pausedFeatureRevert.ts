import { BaseError, decodeErrorResult, isHex, type Hex } from "viem";
import { gaslessSwapRouterAbi } from "../../sdk";

/** The revert data a node returned with a failed call, wherever viem keeps it in the error's chain. */
function revertData(error: BaseError): Hex | undefined {
  let found: Hex | undefined;
  error.walk((inner) => {
    const data = (inner as { data?: unknown }).data;
    const candidate = typeof data === "object" && data !== null ? (data as { data?: unknown }).data : data;
    if (found === undefined && typeof candidate === "string" && isHex(candidate) && candidate.length >= 10) found = candidate;
    return false;
  });
  return found;
}

/**
 * The feature id when a simulated swap reverted because the registry paused the router's feature
 * (`SwapFeaturePaused(featureId)`); undefined for any other failure. A paused feature is the
 * operator's switch, not the taker's balance or allowance, so it gets its own answer.
 */
export function pausedFeatureOf(error: unknown): bigint | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const data = revertData(error);
  if (data === undefined) return undefined;
  try {
    const decoded = decodeErrorResult({ abi: gaslessSwapRouterAbi, data });
    return decoded.errorName === "SwapFeaturePaused" ? (decoded.args[0] as bigint) : undefined;
  } catch {
    return undefined;
  }
}
