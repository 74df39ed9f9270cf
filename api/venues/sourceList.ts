import { gzipSync } from "node:zlib";
import { keccak256, stringToBytes } from "viem";
import { zeroAddress, type Address } from "viem";
import type { ManifestPropAmm, ManifestUniswapV4, ManifestVenue, ManifestVenuePool, SourcesJson } from "../../sdk";
import type { EncodedJson } from "../services/cachedJsonResponse";

/** The body of GET /sources. */
export type SourceListBody = SourcesJson;

function feeTiersOf(venue: ManifestVenue): SourceListBody["venues"][number]["fee_tiers"] {
  return venue.feeTiers.map((tier) => ("tickSpacing" in tier ? { fee: tier.fee, tick_spacing: tier.tickSpacing } : { fee: tier.fee }));
}

/** Uniswap V4 as GET /sources lists it, when the chain has it, and which tokens are supported (lowercase). */
export type V4SourceInput = Readonly<{ deployment: ManifestUniswapV4 | undefined; isSupported: (token: Address) => boolean }>;

/**
 * Uniswap V4's entry: its pools of two supported currencies (native ETH, address(0), always is), and
 * their (fee, tick spacing) pairs. Routing also asks the routers (SWAP_V4) and the hook rule, so a
 * listed pool may still be skipped by a quote.
 */
function v4Source(v4: V4SourceInput): SourceListBody["venues"] {
  const { deployment, isSupported } = v4;
  if (deployment === undefined) return [];
  const supported = (currency: Address) => currency === zeroAddress || isSupported(currency.toLowerCase() as Address);
  const pools = deployment.pools.filter((pool) => supported(pool.currency0) && supported(pool.currency1));
  const tiers = new Map(deployment.pools.map((pool) => [`${pool.fee}:${pool.tickSpacing}`, { fee: pool.fee, tick_spacing: pool.tickSpacing }]));
  const fee_tiers = [...tiers.values()].sort((a, b) => a.fee - b.fee || a.tick_spacing - b.tick_spacing);
  return [{ name: deployment.name, type: "uniswap-v4" as const, pools: pools.length, fee_tiers }];
}

/**
 * The chain's venues in manifest order, each with how many of `pools` (those routing uses) are its,
 * then the manifest's propAMMs (one pair each, its fee inside its price), then Uniswap V4. Routing
 * follows the on-chain allowlist, so a propAMM the operator removed stays listed here but quotes skip it.
 */
export function sourceListBody(chainId: number, venues: readonly ManifestVenue[], pools: readonly ManifestVenuePool[], propAmms: readonly ManifestPropAmm[] = [], v4?: V4SourceInput): SourceListBody {
  const counts = new Map<string, number>();
  for (const pool of pools) counts.set(pool.source, (counts.get(pool.source) ?? 0) + 1);
  const amms = venues.map((venue) => ({ name: venue.name, type: venue.type, pools: counts.get(venue.name) ?? 0, fee_tiers: feeTiersOf(venue) }));
  const props = propAmms.map((propAmm) => ({ name: propAmm.name, type: "propamm" as const, pools: 1, fee_tiers: [] }));
  const all = [...amms, ...props, ...(v4 === undefined ? [] : v4Source(v4))];
  return { chain_id: chainId, sources: all.map((venue) => venue.name), venues: all };
}

// Keyed by the routing pool set, which ChainSupportedTokens replaces exactly when it changes (the
// venues are the manifest's and never change): each version is built and gzipped once.
const encodings = new WeakMap<readonly ManifestVenuePool[], EncodedJson>();

/** GET /sources' body as served, with a weak ETag over its bytes. */
export function encodedSourceList(chainId: number, venues: readonly ManifestVenue[], pools: readonly ManifestVenuePool[], propAmms: readonly ManifestPropAmm[] = [], v4?: V4SourceInput): EncodedJson {
  let encoded = encodings.get(pools);
  if (encoded === undefined) {
    const text = JSON.stringify(sourceListBody(chainId, venues, pools, propAmms, v4));
    const json = Buffer.from(text, "utf8");
    encoded = Object.freeze({ etag: `W/"${keccak256(stringToBytes(`sources:v1:${text}`))}"`, json, gzip: gzipSync(json, { level: 9 }) });
    encodings.set(pools, encoded);
  }
  return encoded;
}
