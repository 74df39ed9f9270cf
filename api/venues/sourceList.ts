import { gzipSync } from "node:zlib";
import { keccak256, stringToBytes } from "viem";
import type { ManifestPropAmm, ManifestVenue, ManifestVenuePool, SourcesJson } from "../../sdk";
import type { EncodedJson } from "../services/cachedJsonResponse";

/** The body of GET /sources. */
export type SourceListBody = SourcesJson;

function feeTiersOf(venue: ManifestVenue): SourceListBody["venues"][number]["fee_tiers"] {
  return venue.feeTiers.map((tier) => ("tickSpacing" in tier ? { fee: tier.fee, tick_spacing: tier.tickSpacing } : { fee: tier.fee }));
}

/**
 * The chain's venues in manifest order, each with how many of `pools` (those routing uses) are its,
 * then the manifest's propAMMs (one pair each, its fee inside its price). Routing follows the on-chain
 * allowlist, so a propAMM the operator removed stays listed here but quotes skip it.
 */
export function sourceListBody(chainId: number, venues: readonly ManifestVenue[], pools: readonly ManifestVenuePool[], propAmms: readonly ManifestPropAmm[] = []): SourceListBody {
  const counts = new Map<string, number>();
  for (const pool of pools) counts.set(pool.source, (counts.get(pool.source) ?? 0) + 1);
  const amms = venues.map((venue) => ({ name: venue.name, type: venue.type, pools: counts.get(venue.name) ?? 0, fee_tiers: feeTiersOf(venue) }));
  const props = propAmms.map((propAmm) => ({ name: propAmm.name, type: "propamm" as const, pools: 1, fee_tiers: [] }));
  return { chain_id: chainId, sources: [...amms, ...props].map((venue) => venue.name), venues: [...amms, ...props] };
}

// Keyed by the routing pool set, which ChainSupportedTokens replaces exactly when it changes (the
// venues are the manifest's and never change): each version is built and gzipped once.
const encodings = new WeakMap<readonly ManifestVenuePool[], EncodedJson>();

/** GET /sources' body as served, with a weak ETag over its bytes. */
export function encodedSourceList(chainId: number, venues: readonly ManifestVenue[], pools: readonly ManifestVenuePool[], propAmms: readonly ManifestPropAmm[] = []): EncodedJson {
  let encoded = encodings.get(pools);
  if (encoded === undefined) {
    const text = JSON.stringify(sourceListBody(chainId, venues, pools, propAmms));
    const json = Buffer.from(text, "utf8");
    encoded = Object.freeze({ etag: `W/"${keccak256(stringToBytes(`sources:v1:${text}`))}"`, json, gzip: gzipSync(json, { level: 9 }) });
    encodings.set(pools, encoded);
  }
  return encoded;
}
