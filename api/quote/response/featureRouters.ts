import { getAddress, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { decodeFeatureState, encodeRegistryRead, FEATURE_NAMES, takerSwapRouterAbi, type FeatureId, type FeatureState } from "../../../sdk";
import { ApiError } from "../../../sdk/server/apiError";
import type { ChainContext } from "../../chains/chainContext";
import type { QuoteEngine } from "./buildQuote";

async function readFeature(client: PublicClient, registry: Address, feature: FeatureId, blockNumber: bigint): Promise<FeatureState> {
  const { data } = await client.call({ to: registry, data: encodeRegistryRead("getFeature", feature), blockNumber });
  return decodeFeatureState(data ?? "0x");
}

/** The feature's router, read from the registry at this block; a paused or empty feature is a 503. */
export async function activeRouter(engine: QuoteEngine, chain: ChainContext, feature: FeatureId, blockHash: Hex, blockNumber: bigint): Promise<Address> {
  const state = await engine.blockCache.get(blockHash, `feature:${feature}`, () => readFeature(chain.client, chain.manifest.contracts.routerRegistry, feature, blockNumber));
  const name = `${FEATURE_NAMES.get(feature) ?? "swaps"} (registry feature ${feature})`;
  if (state.paused) throw new ApiError("feature_paused", `${name} are paused; retry later`);
  if (state.current === zeroAddress) {
    throw new ApiError("feature_unavailable", `no router is active for ${name}`);
  }
  return state.current;
}

export function allowanceHolderOf(engine: QuoteEngine, client: PublicClient, router: Address): Promise<Address> {
  let holder = engine.holders.get(router);
  if (holder === undefined) {
    holder = client.readContract({ address: router, abi: takerSwapRouterAbi, functionName: "allowanceHolder" }).then((address) => getAddress(address));
    holder.catch(() => engine.holders.delete(router));
    engine.holders.set(router, holder);
  }
  return holder;
}
