import type { Address, Hex, PublicClient } from "viem";
import { decodeFeatureState, decodeRegistryAddress, encodeRegistryRead, type FeatureState } from "./rawRegistryCall";

/** The one client capability registry reads need; a viem PublicClient has it. */
export type RegistryReader = Pick<PublicClient, "call">;

export type ReadRegistryParameters = {
  registry: Address;
  featureId: bigint;
  /** Read at this block (the state a mined transaction met); the latest block when absent. */
  blockNumber?: bigint | undefined;
};

async function rawCall(client: RegistryReader, registry: Address, data: Hex, blockNumber: bigint | undefined): Promise<Hex> {
  const result = await client.call(blockNumber === undefined ? { to: registry, data, blockTag: "latest" } : { to: registry, data, blockNumber });
  return result.data ?? "0x";
}

/**
 * The feature's active router (`ownerOf`). Rejects with viem's call error when the feature is paused
 * or uninitialized: a client must then not build transactions for that feature.
 */
export async function readActiveRouter(client: RegistryReader, { registry, featureId, blockNumber }: ReadRegistryParameters): Promise<Address> {
  return decodeRegistryAddress("ownerOf", await rawCall(client, registry, encodeRegistryRead("ownerOf", featureId), blockNumber));
}

/** The staged next router, or the zero address. */
export async function readNextRouter(client: RegistryReader, { registry, featureId, blockNumber }: ReadRegistryParameters): Promise<Address> {
  return decodeRegistryAddress("next", await rawCall(client, registry, encodeRegistryRead("next", featureId), blockNumber));
}

/** The previous router while its dwell window is open; rejects otherwise. */
export async function readPreviousRouter(client: RegistryReader, { registry, featureId, blockNumber }: ReadRegistryParameters): Promise<Address> {
  return decodeRegistryAddress("prev", await rawCall(client, registry, encodeRegistryRead("prev", featureId), blockNumber));
}

/** The whole feature state in one read; never reverts. */
export async function readFeatureState(client: RegistryReader, { registry, featureId, blockNumber }: ReadRegistryParameters): Promise<FeatureState> {
  return decodeFeatureState(await rawCall(client, registry, encodeRegistryRead("getFeature", featureId), blockNumber));
}
