import type { Address } from "viem";
import { NATIVE_TOKEN_LOWERCASE } from "../../sdk";
import type { ChainContext } from "../chains/chainContext";
import { MarketTracker } from "./marketTracker";
import { PoolStateTracker } from "./poolState";
import { PropAmmPricing } from "./venues/propAmmPricing";
import { V3PoolTracker } from "./venues/uniswapV3/v3PoolTracker";

/** Uniswap V2's pool fee, for pairs the factory announces after deployment. */
const UNISWAP_V2_FEE_BPS = 30;

/**
 * The market tracker of one served chain: V2 pairs of the manifest's V2 factory, and the pools of each
 * V3 venue the manifest lists, whose factories' `PoolCreated` events add pools as `PairCreated` does
 * for V2. The routers' V3 venue table is built from the manifest's V3 venues in their listed order
 * (scripts/deploy/deploySettlement.ts), so a venue's index there is its index among them.
 */
export function marketTrackerOf(chain: ChainContext): MarketTracker {
  const isSupported = (token: Address) => token !== NATIVE_TOKEN_LOWERCASE && chain.tokens.resolve(token) !== undefined;
  const observeReads = (pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date) => chain.unreadablePools.observe(pools, failed, at);
  const v3Venues = chain.manifest.venues.filter((venue) => venue.type === "uniswap-v3");
  const indexByName = new Map(v3Venues.map((venue, index) => [venue.name, index]));
  return new MarketTracker(
    new PoolStateTracker({ factory: { address: chain.manifest.contracts.uniswapV2Factory, feeBps: UNISWAP_V2_FEE_BPS }, isSupported, observeReads }),
    new V3PoolTracker({ factories: v3Venues.map((venue) => ({ address: venue.factory, source: venue.name })), isSupported, observeReads }),
    (source) => indexByName.get(source),
    propAmmMarketOf(chain, isSupported),
  );
}

/** The chain's allowlisted propAMMs, when its manifest names an allowlist; their names come from the manifest's `propAmms`. */
function propAmmMarketOf(chain: ChainContext, isSupported: (token: Address) => boolean) {
  const allowlist = chain.manifest.contracts.propAmmAllowlist;
  if (allowlist === undefined) return undefined;
  const names = new Map((chain.manifest.propAmms ?? []).map((propAmm) => [propAmm.address.toLowerCase() as Address, propAmm.name]));
  const decimalsOf = (token: Address) => chain.tokens.resolve(token)?.decimals ?? 18;
  return { allowlist, names, pricing: new PropAmmPricing(chain.client, decimalsOf), isSupported };
}
