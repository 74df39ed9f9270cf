import { keccak256, stringToBytes, type Address, type Hex } from "viem";
import type { TokenSnapshotBody } from "./supportedTokens";

export const TOKEN_SNAPSHOT_SCHEMA_VERSION = 1;

/**
 * The snapshot body of a chain's supported set: addresses lowercase, unique and sorted, so equal sets
 * give byte-identical bodies. `snapshot_id` is keccak256 over the schema version, the chain id and the
 * sorted list: it changes exactly when the list (or the chain) changes, and any process computes the
 * same id for the same set.
 */
export function buildTokenSnapshot(chainId: number, addresses: Iterable<string>): TokenSnapshotBody {
  const sorted = [...new Set([...addresses].map((address) => address.toLowerCase() as Address))].sort();
  return Object.freeze({
    schema_version: TOKEN_SNAPSHOT_SCHEMA_VERSION,
    chain_id: chainId,
    snapshot_id: tokenSnapshotId(chainId, sorted),
    count: sorted.length,
    addresses: Object.freeze(sorted),
  });
}

function tokenSnapshotId(chainId: number, sortedAddresses: readonly Address[]): Hex {
  return keccak256(stringToBytes(`supported-tokens:v${TOKEN_SNAPSHOT_SCHEMA_VERSION}:${chainId}:${sortedAddresses.join(",")}`));
}
