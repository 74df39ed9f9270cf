import type { Address, PublicClient } from "viem";
import type { BlockHead, ManifestPool, ManifestV3Pool, ManifestVenuePool } from "../../sdk";
import { PoolGraph } from "./poolGraph";
import type { PoolSnapshot, PoolStateTracker } from "./poolState";
import type { PricedPool } from "./venues/pricedPool";
import type { PropAmmRoutedPool } from "./venues/propAmmAdapter";
import { readPropAmmVenues, type PropAmmPricing, type PropAmmQuoteRequest, type PropAmmQuotes, type PropAmmVenue } from "./venues/propAmmPricing";
import type { V3RoutedPool } from "./venues/uniswapV3/v3Adapter";
import type { V3PoolSnapshot, V3PoolTracker } from "./venues/uniswapV3/v3PoolTracker";

/** What the market needs of a chain's supported set: its V2 pools and every venue's. */
export type MarketPools = Readonly<{ pools(): readonly ManifestPool[]; venuePools(): readonly ManifestVenuePool[] }>;

const lower = (address: Address) => address.toLowerCase() as Address;

/** The chain's propAMMs: the on-chain allowlist routers call through, and the pricing that reads their quotes. */
export type PropAmmMarket = Readonly<{
  allowlist: Address;
  names: ReadonlyMap<Address, string>;
  pricing: PropAmmPricing;
  /** Whether a token (lowercase) is supported: a propAMM joins routing only if both of its tokens are, as a pool does. */
  isSupported: (token: Address) => boolean;
}>;

const NO_QUOTES: readonly PropAmmQuotes[] = [];

/**
 * One chain's market across venues: each venue type's pools are followed by their own tracker (V2
 * reserves, V3 ticks), and a quote is priced at the union of their snapshots at one block. The union
 * (its graph and pool map) is built once per pair of snapshots, so quotes at one head share it.
 * `venueIndex` maps a V3 venue's name to its index in the routers' V3 venue table, which the SWAP_V3
 * action names; a V3 venue the routers do not know is left out of routing.
 */
export class MarketTracker {
  #v3List: { source: readonly ManifestVenuePool[]; pools: readonly ManifestV3Pool[] } | undefined;
  #union: { v2: PoolSnapshot; v3: V3PoolSnapshot; propAmms: readonly PropAmmQuotes[]; market: PoolSnapshot } | undefined;
  #propAmmVenues: { block: string; venues: Promise<PropAmmVenue[]> } | undefined;

  constructor(
    readonly v2: PoolStateTracker,
    readonly v3: V3PoolTracker,
    private readonly venueIndex: (source: string) => number | undefined,
    private readonly propAmms?: PropAmmMarket,
  ) {}

  /** Pools of any venue whose state could not be read at the last update: routing went without them. */
  get unreadableCount(): number {
    return this.v2.unreadableCount + this.v3.unreadableCount;
  }

  /** Every venue's pools at exactly `head`. */
  async at(client: PublicClient, head: BlockHead, tokens: MarketPools): Promise<PoolSnapshot> {
    const v3Pools = this.#v3Pools(tokens.venuePools());
    const [v2, v3, propAmms] = await Promise.all([this.v2.at(client, head, tokens.pools()), this.v3.at(client, head, v3Pools), this.#propAmmQuotes(client, head)]);
    if (v3.pools.size === 0 && propAmms.length === 0) return v2;
    const union = this.#union;
    if (union !== undefined && union.v2 === v2 && union.v3 === v3 && union.propAmms === propAmms) return union.market;
    const market = this.#combine(v2, v3, v3Pools, propAmms);
    this.#union = { v2, v3, propAmms, market };
    return market;
  }

  /** propAMMs' `getAmountOut` at exact amounts at `block` (a chosen route's hops, requotePropAmmHops); none without propAMMs. */
  exactPropAmmQuotes(block: Pick<BlockHead, "hash" | "number">, requests: readonly PropAmmQuoteRequest[]): Promise<bigint[]> {
    if (this.propAmms === undefined) return Promise.resolve(requests.map(() => 0n));
    return this.propAmms.pricing.exactQuotes({ hash: block.hash, number: block.number }, requests);
  }

  /**
   * Every allowlisted propAMM's ladders at `head` (the allowlist is read once per block too: an operator
   * may change it any time). A failed read leaves propAMMs out of this block's quotes, never the quotes
   * out: the V2 and V3 venues still route, and the next block reads again.
   */
  async #propAmmQuotes(client: PublicClient, head: BlockHead): Promise<readonly PropAmmQuotes[]> {
    const propAmms = this.propAmms;
    if (propAmms === undefined) return NO_QUOTES;
    const block = { hash: head.hash, number: head.number };
    try {
      if (this.#propAmmVenues?.block !== head.hash) this.#propAmmVenues = { block: head.hash, venues: readPropAmmVenues(client, propAmms.allowlist, block, propAmms.names) };
      const venues = (await this.#propAmmVenues.venues).filter((venue) => propAmms.isSupported(venue.token0) && propAmms.isSupported(venue.token1));
      return venues.length === 0 ? NO_QUOTES : await propAmms.pricing.ladders(block, venues);
    } catch {
      if (this.#propAmmVenues?.block === head.hash) this.#propAmmVenues = undefined;
      return NO_QUOTES;
    }
  }

  /** The V3 pools of the list whose venue the routers know; the same array while the list is. */
  #v3Pools(list: readonly ManifestVenuePool[]): readonly ManifestV3Pool[] {
    if (this.#v3List?.source !== list) {
      const pools = list.filter((pool): pool is ManifestV3Pool => pool.type === "uniswap-v3" && this.venueIndex(pool.source) !== undefined);
      this.#v3List = { source: list, pools };
    }
    return this.#v3List.pools;
  }

  #combine(v2: PoolSnapshot, v3: V3PoolSnapshot, listed: readonly ManifestV3Pool[], propAmms: readonly PropAmmQuotes[]): PoolSnapshot {
    const sources = new Map(listed.map((pool) => [lower(pool.address), pool.source]));
    for (const created of this.v3.createdPools) if (created.source !== undefined) sources.set(lower(created.address), created.source);
    const pools = new Map<Address, PricedPool>(v2.pools);
    for (const [address, state] of v3.pools) {
      const source = sources.get(address);
      const venueIndex = source === undefined ? undefined : this.venueIndex(source);
      if (source === undefined || venueIndex === undefined) continue;
      const pool: V3RoutedPool = { kind: "v3", address, token0: state.token0, token1: state.token1, source, state: { pool: state, venueIndex } };
      pools.set(address, pool);
    }
    for (const quotes of propAmms) {
      const { venue } = quotes;
      const pool: PropAmmRoutedPool = { kind: "propamm", address: venue.pair, token0: venue.token0, token1: venue.token1, source: venue.source, state: quotes };
      pools.set(venue.pair, pool);
    }
    return { block: v2.block, graph: new PoolGraph(pools.values()), pools };
  }
}
