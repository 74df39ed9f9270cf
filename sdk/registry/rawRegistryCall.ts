import { getAddress, type Address, type Hex } from "viem";
import { FeatureIdRangeError, RegistryResponseError } from "../errors/registry";
import { RegistrySelector, type RegistryRead } from "./features";

const MAX_FEATURE_ID = (1n << 128n) - 1n;

/**
 * Calldata for a registry read exactly as the spec describes it: the 4-byte selector followed by
 * the feature id as one 32-byte zero-padded word.
 *
 * @example encodeRegistryRead("ownerOf", 2n) // 0x6352211e000…0002
 */
export function encodeRegistryRead(read: RegistryRead, featureId: bigint): Hex {
  if (featureId < 0n || featureId > MAX_FEATURE_ID) throw new FeatureIdRangeError(featureId);
  return `${RegistrySelector[read]}${featureId.toString(16).padStart(64, "0")}`;
}

/** The address in the last 20 bytes of a single returned word (ownerOf, prev, next). */
export function decodeRegistryAddress(read: RegistryRead, data: Hex): Address {
  if (!/^0x[0-9a-fA-F]{64}$/.test(data) || !/^0x0{24}/.test(data)) throw new RegistryResponseError(read, data);
  return getAddress(`0x${data.slice(-40)}`);
}

export type FeatureState = {
  previous: Address;
  current: Address;
  next: Address;
  paused: boolean;
};

/** The four ABI words of getFeature: previous, current, next, paused. */
export function decodeFeatureState(data: Hex): FeatureState {
  if (!/^0x[0-9a-fA-F]{256}$/.test(data)) throw new RegistryResponseError("getFeature", data);
  const word = (index: number): Hex => `0x${data.slice(2 + index * 64, 2 + (index + 1) * 64)}`;
  const pausedWord = BigInt(word(3));
  if (pausedWord > 1n) throw new RegistryResponseError("getFeature", data);
  return {
    previous: decodeRegistryAddress("getFeature", word(0)),
    current: decodeRegistryAddress("getFeature", word(1)),
    next: decodeRegistryAddress("getFeature", word(2)),
    paused: pausedWord === 1n,
  };
}
