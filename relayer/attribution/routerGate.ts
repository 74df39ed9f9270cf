import type { Address, PublicClient } from "viem";
import { gaslessSwapRouterAbi, readFeatureState } from "../../sdk";

/**
 * Whether `router` settles at `blockNumber`, read from its own gate copy (what the router enforces:
 * paused, or the block's timestamp past its active window) and from the registry it names (feature
 * paused). Only the registry's pausers and administrator change either.
 */
export async function routerGateOpen(client: PublicClient, router: Address, blockNumber: bigint): Promise<boolean> {
  const [[paused, activeUntil], registry, featureId, block] = await Promise.all([
    client.readContract({ address: router, abi: gaslessSwapRouterAbi, functionName: "status", blockNumber }),
    client.readContract({ address: router, abi: gaslessSwapRouterAbi, functionName: "registry", blockNumber }),
    client.readContract({ address: router, abi: gaslessSwapRouterAbi, functionName: "featureId", blockNumber }),
    client.getBlock({ blockNumber }),
  ]);
  if (paused || block.timestamp >= activeUntil) return false;
  return !(await readFeatureState(client, { registry, featureId, blockNumber })).paused;
}
