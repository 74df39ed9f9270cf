import { zeroAddress, type Address, type PublicClient } from "viem";
import { Feature, isV4PoolRoutable, NATIVE_TOKEN_LOWERCASE, type DeploymentManifest } from "../../../sdk";
import { v4HookAllowlistPath } from "../../../sdk/chain/v4HookAllowlist";
import type { ChainContext } from "../../chains/chainContext";
import { MarketTracker } from "./marketTracker";
import { PoolStateTracker } from "./poolState";
import { ActiveRouterVenues, type ActiveRouterVenuesOptions, type RouterVenueSource } from "../venues/activeRouterVenues";
import { PropAmmPricing } from "../venues/propAmmPricing";
import { V3PoolTracker } from "../venues/uniswapV3/v3PoolTracker";
import { FollowedV4HookAllowlist, type V4HookAllowlistSource } from "../venues/uniswapV4/followedHookAllowlist";
import { V4PoolTracker } from "../venues/uniswapV4/v4PoolTracker";

/** Uniswap V2's pool fee, for pairs the factory announces after deployment. */
const UNISWAP_V2_FEE_BPS = 30;

/** What a market tracker needs besides the manifest: which tokens route, and who hears of unreadable pools. */
export type MarketTrackerOptions = Readonly<{
  /** Whether a token (lowercase) is supported: a pool or propAMM joins routing only if both of its tokens are. */
  isSupported: (token: Address) => boolean;
  observeReads: (pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date) => void;
  /** Decimals of a token (lowercase): the propAMM ladders' sizes follow them. */
  decimalsOf: (token: Address) => number;
  /** The operator's allowlisted V4 hooks (default: none; the API follows the file beside the manifest). */
  v4Hooks?: V4HookAllowlistSource;
  /** Benches and tests only: what the routers' venues become (e.g. scripts/bench's assumingV4PoolManager); the API reads them as they are. */
  routerVenues?: (active: RouterVenueSource) => RouterVenueSource;
  /** Told of the routers' venue reads (RouterVenuesOutage): a failed one serves V2-only quotes. */
  routerVenuesObserver?: ActiveRouterVenuesOptions["observer"];
}>;

const NO_V4_HOOKS: V4HookAllowlistSource = { hooks: () => new Set() };

/**
 * The market tracker of one served chain: V2 pairs of the manifest's V2 factory, and the pools of each
 * V3 venue the manifest lists, whose factories' `PoolCreated` events add pools as `PairCreated` does
 * for V2. Which of them route, at which V3 venue index, and which propAMMs, come from the registry's
 * active routers of the quoted features (taker-submitted and gasless swaps), read on chain and followed
 * from the registry's and the allowlists' events (ActiveRouterVenues), never from the manifest's order.
 * The manifest's Uniswap V4 pools (and pools initialised later) route while every active router
 * executes SWAP_V4 through its PoolManager, under the hook rule and the operator's hook allowlist
 * (`<DEPLOYMENTS_DIR>/<chainId>.v4-hooks.json`, re-read when it changes).
 */
export function marketTrackerOf(chain: ChainContext): MarketTracker {
  return marketTrackerOfManifest(chain.client, chain.manifest, {
    routerVenuesObserver: chain.routerVenuesOutage,
    isSupported: (token) => token !== NATIVE_TOKEN_LOWERCASE && chain.tokens.resolve(token) !== undefined,
    observeReads: (pools, failed, at) => chain.unreadablePools.observe(pools, failed, at),
    decimalsOf: (token) => chain.tokens.resolve(token)?.decimals ?? 18,
    v4Hooks: chain.manifestPath === undefined ? undefined : new FollowedV4HookAllowlist(v4HookAllowlistPath(chain.manifestPath), chain.chainId),
  });
}

/** marketTrackerOf over a manifest and a client alone (benches and tools that serve no chain context). */
export function marketTrackerOfManifest(client: PublicClient, manifest: DeploymentManifest, { isSupported, observeReads, decimalsOf, v4Hooks, routerVenues: adjustVenues, routerVenuesObserver }: MarketTrackerOptions): MarketTracker {
  const v3Venues = manifest.venues.filter((venue) => venue.type === "uniswap-v3");
  const { uniswapV4 } = manifest;
  // V4's native ETH (address(0)) is always supported, as the native placeholder is (it cannot be disabled).
  const v4Supported = (currency: Address) => currency === zeroAddress || isSupported(currency);
  const routerVenues = new ActiveRouterVenues({
    registry: manifest.contracts.routerRegistry,
    features: [Feature.TakerSubmittedSwap, Feature.GaslessSwap],
    v3Venues,
    propAmmNames: new Map((manifest.propAmms ?? []).map((propAmm) => [propAmm.address.toLowerCase() as Address, propAmm.name])),
    observer: routerVenuesObserver,
  });
  return new MarketTracker(
    new PoolStateTracker({ factory: { address: manifest.contracts.uniswapV2Factory, feeBps: UNISWAP_V2_FEE_BPS }, isSupported, observeReads }),
    new V3PoolTracker({ factories: v3Venues.map((venue) => ({ address: venue.factory, source: venue.name })), isSupported, observeReads }),
    adjustVenues === undefined ? routerVenues : adjustVenues(routerVenues),
    { pricing: new PropAmmPricing(client, decimalsOf), isSupported },
    uniswapV4 === undefined
      ? undefined
      : {
          tracker: new V4PoolTracker({
            poolManager: uniswapV4.poolManager,
            stateView: uniswapV4.stateView,
            isSupported: v4Supported,
            observeReads,
            // The market routes no pool whose hook the rule excludes: such pools are not followed either.
            isRoutable: (key) => isV4PoolRoutable(key, (v4Hooks ?? NO_V4_HOOKS).hooks()),
          }),
          deployment: uniswapV4,
          hooks: v4Hooks ?? NO_V4_HOOKS,
          isSupported: v4Supported,
        },
  );
}
