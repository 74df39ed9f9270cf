import type { Address } from "viem";
import { V4_REVISION_EXACT_OUTPUT } from "../../sdk";
import type { RouterVenueSet, RouterVenueSource } from "../../api/quote/venues/activeRouterVenues";

/**
 * `source` with every active router taken to execute SWAP_V4 through `poolManager`, exact output too: for the routing
 * bench on routers built before the V4 action (their `poolManager()` reverts, which
 * reads as "no V4"). Quotes built over it do not settle on such routers; the API never uses it.
 */
export function assumingV4PoolManager(source: RouterVenueSource, poolManager: Address): RouterVenueSource {
  const v4PoolManager = poolManager.toLowerCase() as Address;
  const known = new WeakMap<RouterVenueSet, RouterVenueSet>();
  return {
    async at(client, head) {
      const set = await source.at(client, head);
      let withV4 = known.get(set);
      if (withV4 === undefined) known.set(set, (withV4 = { ...set, v4PoolManager, v4Revision: V4_REVISION_EXACT_OUTPUT }));
      return withV4;
    },
  };
}
