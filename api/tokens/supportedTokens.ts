import type { Address, Hex } from "viem";
import type { ManifestPool, ManifestVenuePool } from "../../sdk";
import type { SupportedTokenEntry } from "./chainSupportedTokens";

/** A token accepted for routing on one chain. Addresses are lowercase hex. */
export type SupportedToken = Readonly<{ address: Address; symbol: string; decimals: number }>;

/** The snapshot body of GET /tokens/supported-tokens (schema_version 1). */
export type TokenSnapshotBody = Readonly<{
  schema_version: 1;
  chain_id: number;
  snapshot_id: Hex;
  count: number;
  addresses: readonly Address[];
}>;

/**
 * One chain's supported-token set: the manifest's tokens, the native placeholder, and tokens promoted
 * by demand or enabled by an operator, minus disabled ones. Lookups are in memory and synchronous:
 * admission on the quote path must not touch the chain or the database.
 */
export interface SupportedTokens {
  /** The supported token an address (any case) or a symbol (case-insensitive) names, if any. */
  resolve(value: string): SupportedToken | undefined;
  /** The current snapshot; replaced atomically when the set changes. */
  snapshot(): TokenSnapshotBody;
  /**
   * V2 pools routing may use: the manifest's plus those recorded for promoted or enabled tokens. The
   * same array is returned until the set changes, so callers may cache by its identity.
   */
  pools(): readonly ManifestPool[];
  /** Like `pools()`, with every venue's pools (V3 too): what venue-aware routing reads. */
  venuePools(): readonly ManifestVenuePool[];
  /** Every supported token with why it is there, sorted by address; the same array until the set changes. */
  entries(): readonly SupportedTokenEntry[];
}
