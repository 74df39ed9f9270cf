import type { Address, PublicClient } from "viem";
import { isV4PoolRoutable, type ManifestPool, type ManifestUniswapV4, type ManifestV3Pool, type ManifestVenuePool } from "../../../sdk";
import { type BlockHead } from "../../../sdk/chain/chainHead";
import { PoolGraph } from "../routing/poolGraph";
import type { PoolSnapshot, PoolStateTracker } from "./poolState";
import type { PricedPool } from "../venues/pricedPool";
import type { PropAmmRoutedPool } from "../venues/propAmmAdapter";
import type { RouterVenueSet, RouterVenueSource } from "../venues/activeRouterVenues";
import type { PropAmmPricing, PropAmmQuoteRequest, PropAmmQuotes } from "../venues/propAmmPricing";
import type { V3RoutedPool } from "../venues/uniswapV3/v3Adapter";
import type { V3PoolState, V4PoolState } from "../../../sdk";
import type { V3PoolSnapshot, V3PoolTracker } from "../venues/uniswapV3/v3PoolTracker";
import type { V4RoutedPool } from "../venues/uniswapV4/v4Adapter";
import type { V4HookAllowlistSource } from "../venues/uniswapV4/followedHookAllowlist";
import type { V4PoolSnapshot, V4PoolTracker } from "../venues/uniswapV4/v4PoolTracker";

/** What the market needs of a chain's supported set: its V2 pools and every venue's. */
export type MarketPools = Readonly<{ pools(): readonly ManifestPool[]; venuePools(): readonly ManifestVenuePool[] }>;

const lower = (address: Address) => address.toLowerCase() as Address;

/** The chain's propAMM pricing (which propAMMs route comes from the routers' venues). */
export type PropAmmMarket = Readonly<{
  pricing: PropAmmPricing;
  /** Whether a token (lowercase) is supported: a propAMM joins routing only if both of its tokens are, as a pool does. */
  isSupported: (token: Address) => boolean;
}>;

const NO_QUOTES: readonly PropAmmQuotes[] = [];
const NO_HOOKS: ReadonlySet<string> = new Set();

/**
 * The chain's Uniswap V4 pools: followed by their tracker, routed only while every active router
 * executes SWAP_V4 through the manifest's PoolManager, and only pools the hook rule admits (a hook
 * that may return deltas or set a per-swap fee only when the operator allowlisted it).
 */
export type V4Market = Readonly<{
  tracker: V4PoolTracker;
  /** The manifest's V4 deployment: its PoolManager, venue name (`source`) and pools. */
  deployment: ManifestUniswapV4;
  hooks: V4HookAllowlistSource;
  /** Whether a currency (lowercase; address(0), native ETH, is) is supported: a pool routes only if both of its currencies are. */
  isSupported: (token: Address) => boolean;
}>;

/**
 * What the union's graph was built from: the V2 graph, the routed V3 pools and the propAMMs. Pools'
 * tokens never change, so while these do not, neither does the graph.
 */
type MarketShape = Readonly<{ v2Graph: PoolGraph; venues: RouterVenueSet; v3: ReadonlySet<Address>; propAmms: string; v4: string; graph: PoolGraph }>;

/**
 * One chain's market across venues: each venue type's pools are followed by their own tracker (V2
 * reserves, V3 ticks), and a quote is priced at the union of their snapshots at one block. The union
 * (its pool map) is built once per set of snapshots, so quotes at one head share it. Its graph is
 * built once per pool list: a block that only moves prices (a V3 swap, a propAMM's new ladder; V2's
 * tracker keeps its own graph the same way) reuses it, and a V3 pool whose state did not change keeps
 * its routed object, so no per-block work grows with the pools that did not move.
 * Which venues route comes from the registry's active routers (`routerVenues`, followed from events):
 * a V3 venue's index in their V3 venue table (which the SWAP_V3 action names; a V3 venue the routers
 * do not know is left out of routing), the propAMMs their allowlist holds, and the allowlisted pairs,
 * which the routers refuse as tokens: every pool touching one is dropped from the graph, so no route
 * passes through a pair, even as an intermediate hop.
 */
export class MarketTracker {
  #v3List: { source: readonly ManifestVenuePool[]; pools: readonly ManifestV3Pool[] } | undefined;
  #union: { v2: PoolSnapshot; v3: V3PoolSnapshot; venues: RouterVenueSet; propAmms: readonly PropAmmQuotes[]; v4: V4PoolSnapshot | undefined; hooks: ReadonlySet<string>; market: PoolSnapshot } | undefined;
  #shape: MarketShape | undefined;
  /** Each V3 pool's venue name (lowercase address), for a listed pool list and the pools created so far. */
  #v3Sources: { listed: readonly ManifestV3Pool[]; created: number; sources: ReadonlyMap<Address, string> } | undefined;
  /** The routed pool of each V3 state: the same object while the pool's state is. */
  readonly #routedV3 = new WeakMap<V3PoolState, V3RoutedPool>();
  /** The routed pool of each V4 state: the same object while the pool's state is. */
  readonly #routedV4 = new WeakMap<V4PoolState, V4RoutedPool>();

  constructor(
    readonly v2: PoolStateTracker,
    readonly v3: V3PoolTracker,
    private readonly routerVenues: RouterVenueSource,
    private readonly propAmms?: PropAmmMarket,
    readonly v4?: V4Market,
  ) {}

  /** Pools of any venue whose state could not be read at the last update: routing went without them. */
  get unreadableCount(): number {
    return this.v2.unreadableCount + this.v3.unreadableCount + (this.v4?.tracker.unreadableCount ?? 0);
  }

  /** Every venue's pools at exactly `head`. */
  async at(client: PublicClient, head: BlockHead, tokens: MarketPools): Promise<PoolSnapshot> {
    const v3Pools = this.#v3Pools(tokens.venuePools());
    const venuesRead = this.routerVenues.at(client, head);
    const [v2, v3, venues, propAmms, v4] = await Promise.all([
      this.v2.at(client, head, tokens.pools()),
      this.v3.at(client, head, v3Pools),
      venuesRead,
      venuesRead.then((venues) => this.#propAmmQuotes(head, venues)),
      venuesRead.then((venues) => this.#v4Snapshot(client, head, venues)),
    ]);
    if (v3.pools.size === 0 && propAmms.length === 0 && venues.pairs.size === 0 && (v4?.pools.size ?? 0) === 0) return v2;
    const hooks = this.v4?.hooks.hooks() ?? NO_HOOKS;
    const union = this.#union;
    if (union !== undefined && union.v2 === v2 && union.v3 === v3 && union.venues === venues && union.propAmms === propAmms && union.v4 === v4 && union.hooks === hooks) return union.market;
    const market = this.#combine(v2, v3, v3Pools, venues, propAmms, v4, hooks);
    this.#union = { v2, v3, venues, propAmms, v4, hooks, market };
    return market;
  }

  /** The V4 pools at `head`, when every active router executes SWAP_V4 through the manifest's PoolManager; else none is followed or routed. */
  async #v4Snapshot(client: PublicClient, head: BlockHead, venues: RouterVenueSet): Promise<V4PoolSnapshot | undefined> {
    const v4 = this.v4;
    if (v4 === undefined || venues.v4PoolManager === undefined || venues.v4PoolManager !== lower(v4.deployment.poolManager)) return undefined;
    return v4.tracker.at(client, head, v4.deployment.pools);
  }

  /** propAMMs' `getAmountOut` at exact amounts at `block` (a chosen route's hops, requotePropAmmHops); none without propAMMs. */
  exactPropAmmQuotes(block: Pick<BlockHead, "hash" | "number">, requests: readonly PropAmmQuoteRequest[]): Promise<bigint[]> {
    if (this.propAmms === undefined) return Promise.resolve(requests.map(() => 0n));
    return this.propAmms.pricing.exactQuotes({ hash: block.hash, number: block.number }, requests);
  }

  /**
   * The routers' propAMMs' ladders at `head`. A failed ladder read leaves propAMMs out of this block's
   * quotes, never the quotes out: the V2 and V3 venues still route, and the next quote reads again.
   */
  async #propAmmQuotes(head: BlockHead, venues: RouterVenueSet): Promise<readonly PropAmmQuotes[]> {
    const propAmms = this.propAmms;
    if (propAmms === undefined) return NO_QUOTES;
    const routed = venues.propAmms.filter((venue) => propAmms.isSupported(venue.token0) && propAmms.isSupported(venue.token1));
    if (routed.length === 0) return NO_QUOTES;
    try {
      return await propAmms.pricing.ladders({ hash: head.hash, number: head.number }, routed);
    } catch {
      return NO_QUOTES;
    }
  }

  /**
   * The addresses (lowercase) the active routers' allowlists hold as propAMM pairs at `head`, followed
   * from the allowlists' events. The routers refuse any route that names one as a token, so a quote
   * must never ask to. A failed read gives the pairs of the last good read (ActiveRouterVenues.at), and
   * throws before any (the caller answers 503): admitting a pair would only build a quote that reverts.
   */
  async propAmmPairsAt(client: PublicClient, head: BlockHead): Promise<ReadonlySet<Address>> {
    return (await this.routerVenues.at(client, head)).pairs;
  }

  /** The V3 pools of the list; the same array while the list is (the routers' venues filter them when combined). */
  #v3Pools(list: readonly ManifestVenuePool[]): readonly ManifestV3Pool[] {
    if (this.#v3List?.source !== list) {
      const pools = list.filter((pool): pool is ManifestV3Pool => pool.type === "uniswap-v3");
      this.#v3List = { source: list, pools };
    }
    return this.#v3List.pools;
  }

  #combine(v2: PoolSnapshot, v3: V3PoolSnapshot, listed: readonly ManifestV3Pool[], venues: RouterVenueSet, propAmms: readonly PropAmmQuotes[], v4: V4PoolSnapshot | undefined, hooks: ReadonlySet<string>): PoolSnapshot {
    const sources = this.#sourcesOf(listed);
    const shape = this.#shape;
    const { pairs } = venues;
    // A pool touching an allowlisted pair can never be routed (SwapTokenIsPropAmm): it leaves the graph.
    const routable = (pool: { token0: Address; token1: Address }) => pairs.size === 0 || (!pairs.has(pool.token0) && !pairs.has(pool.token1));
    const pools = new Map<Address, PricedPool>();
    for (const [address, pool] of v2.pools) if (routable(pool)) pools.set(address, pool);
    let sameShape = shape !== undefined && shape.v2Graph === v2.graph && shape.venues === venues;
    let routedV3 = 0;
    for (const [address, state] of v3.pools) {
      const source = sources.get(address);
      const venueIndex = source === undefined ? undefined : venues.v3Index.get(source);
      if (source === undefined || venueIndex === undefined || !routable(state)) continue;
      pools.set(address, this.#routedV3Pool(address, state, source, venueIndex));
      routedV3++;
      if (sameShape && !shape!.v3.has(address)) sameShape = false;
    }
    for (const quotes of propAmms) {
      const { venue } = quotes;
      if (!routable(venue)) continue;
      const pool: PropAmmRoutedPool = { kind: "propamm", address: venue.pair, token0: venue.token0, token1: venue.token1, source: venue.source, state: quotes };
      pools.set(venue.pair, pool);
    }
    const v4Routed: Address[] = [];
    const v4Market = this.v4;
    for (const [id, state] of v4?.pools ?? []) {
      // A native ETH pool (currency0 address(0)) routes too: a route may start or end at native ETH through it (routePlan.ts).
      if (v4Market === undefined || !v4Market.isSupported(state.token0) || !v4Market.isSupported(state.token1)) continue;
      if (!isV4PoolRoutable(state.key, hooks) || !routable(state)) continue;
      const address = id as string as Address;
      pools.set(address, this.#routedV4Pool(address, state, v4Market.deployment.name, venues.v4Revision ?? 0));
      v4Routed.push(address);
    }
    const v4Shape = v4Routed.join();
    const propAmmShape = propAmms.map(({ venue }) => `${venue.pair}:${venue.token0}:${venue.token1}`).join();
    if (sameShape && routedV3 === shape!.v3.size && propAmmShape === shape!.propAmms && v4Shape === shape!.v4) return { block: v2.block, graph: shape!.graph, pools };
    const v3Routed = new Set<Address>();
    for (const pool of pools.values()) if (pool.kind === "v3") v3Routed.add(pool.address);
    const graph = new PoolGraph(pools.values());
    this.#shape = { v2Graph: v2.graph, venues, v3: v3Routed, propAmms: propAmmShape, v4: v4Shape, graph };
    return { block: v2.block, graph, pools };
  }

  /** Each V3 pool's venue name: the listed pools', and those the factories created since. Rebuilt only when either changes. */
  #sourcesOf(listed: readonly ManifestV3Pool[]): ReadonlyMap<Address, string> {
    const created = this.v3.createdPools;
    const known = this.#v3Sources;
    if (known !== undefined && known.listed === listed && known.created === created.length) return known.sources;
    const sources = new Map(listed.map((pool) => [lower(pool.address), pool.source]));
    for (const pool of created) if (pool.source !== undefined) sources.set(lower(pool.address), pool.source);
    this.#v3Sources = { listed, created: created.length, sources };
    return sources;
  }

  #routedV4Pool(address: Address, state: V4PoolState, source: string, revision: number): V4RoutedPool {
    const known = this.#routedV4.get(state);
    if (known !== undefined && known.source === source && known.revision === revision) return known;
    const pool: V4RoutedPool = { kind: "v4", address, token0: state.token0, token1: state.token1, source, state, revision };
    this.#routedV4.set(state, pool);
    return pool;
  }

  #routedV3Pool(address: Address, state: V3PoolState, source: string, venueIndex: number): V3RoutedPool {
    const known = this.#routedV3.get(state);
    if (known !== undefined && known.source === source && known.state.venueIndex === venueIndex) return known;
    const pool: V3RoutedPool = { kind: "v3", address, token0: state.token0, token1: state.token1, source, state: { pool: state, venueIndex } };
    this.#routedV3.set(state, pool);
    return pool;
  }
}
