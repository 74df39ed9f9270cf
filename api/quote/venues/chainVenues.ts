import type { DeploymentManifest } from "../../../sdk";

/** The name of the Uniswap V2 venue every deployment has (the manifest's `uniswapV2Factory`). */
export const UNISWAP_V2_VENUE = "uniswap-v2";

const known = new WeakMap<DeploymentManifest, ReadonlySet<string>>();

/**
 * The names of a chain's venues, as pools' `source` and `excluded_sources` use them: Uniswap V2, and
 * every venue a listed pool belongs to. The manifest's venue list (V3 venues from DEVNET_V3_VENUES,
 * propAMMs, Uniswap V4's name) joins here when the manifest carries one, so a venue with no pool yet is still a name.
 */
export function venueNamesOf(manifest: DeploymentManifest): ReadonlySet<string> {
  let names = known.get(manifest);
  if (names === undefined) {
    names = new Set([UNISWAP_V2_VENUE, ...manifest.venues.map((venue) => venue.name), ...manifest.pools.map((pool) => pool.source), ...(manifest.propAmms ?? []).map((propAmm) => propAmm.name), ...(manifest.uniswapV4 === undefined ? [] : [manifest.uniswapV4.name])]);
    known.set(manifest, names);
  }
  return names;
}
