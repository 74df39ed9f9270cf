import type { Address, Hex, PublicClient } from "viem";
import { DEFAULT_WORDS_EACH_SIDE, afterV4PoolEvent, nearKnownTickEdge, readV4PoolEvents, readV4PoolState, type V4PoolEvent, type V4PoolKey, type V4PoolState } from "../../../../sdk";
import { type BlockHead } from "../../../../sdk/chain/chainHead";
import { FollowedPools } from "../followedPools";

/** Every followed V4 pool's state at one block, by lowercase pool id: what a quote is priced at. */
export type V4PoolSnapshot = Readonly<{ block: BlockHead; pools: ReadonlyMap<Hex, V4PoolState> }>;

export type V4PoolTrackerOptions = Readonly<{
  /** The singleton every pool lives in: one address emits every pool's events. */
  poolManager: Address;
  /** The lens pools are read through directly (slot0, liquidity, tick bitmap, ticks). */
  stateView: Address;
  /** Whether a currency (lowercase; address(0) is native ETH) is supported: a pool initialised later joins only if both of its currencies are. */
  isSupported?: (currency: Address) => boolean;
  /** Tick-bitmap words read on each side of the price when a pool is read directly. */
  wordsEachSide?: number;
  /** Told the outcome of each direct read (pool ids as addresses): `failed` pools are unreadable now. */
  observeReads?: (pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date) => void;
  historyDepth?: number;
  /** At most this many pools initialised after the list was given are followed (MAX_DISCOVERED_V4_POOLS). */
  maxDiscoveredPools?: number;
  /**
   * Whether a pool initialised later could route at all (the hook rule): one that could not is never
   * followed, so pools anyone initialises with unlisted hooks cannot use up `maxDiscoveredPools`.
   */
  isRoutable?: (key: V4PoolKey) => boolean;
}>;

/**
 * Pools a later `Initialize` may add to those followed, per chain. Anyone can initialise a V4 pool of
 * two supported currencies (with any hook, fee and tick spacing) for the price of a transaction, and
 * each followed pool costs a direct read and memory on every quote's update: past this many, new pools
 * are ignored (the manifest's pools are always followed) until the API restarts with them listed.
 */
export const MAX_DISCOVERED_V4_POOLS = 64;

/** A pool as the tracker follows it: its key, and its id (the manifest lists both). */
export type V4PoolDescriptor = V4PoolKey & Readonly<{ id: Hex }>;

const lower = (id: Hex) => id.toLowerCase() as Hex;

/**
 * V4 pools' swap state held in memory and followed from the PoolManager's `Initialize`, `Swap`,
 * `ModifyLiquidity` and `ProtocolFeeUpdated` events, keyed by pool id (FollowedPools: one
 * `eth_getLogs` on one address per head, reorgs handled by the shared BlockEventFollower, as for V3).
 * The pools are the listed ones (the manifest's) and those a later `Initialize` brings for supported
 * currencies; a pool is read through StateView when it first appears, while unreadable, after a
 * reorg touched it, and when its price nears the edge of the ticks it knows. Which pools route (the
 * hook rule, the routers' PoolManager) is the market's choice, not the tracker's.
 */
export class V4PoolTracker {
  readonly #pools: FollowedPools<Hex, V4PoolDescriptor, V4PoolState, V4PoolEvent>;

  constructor(options: V4PoolTrackerOptions) {
    const isSupported = options.isSupported ?? (() => true);
    const maxDiscovered = options.maxDiscoveredPools ?? MAX_DISCOVERED_V4_POOLS;
    this.#pools = new FollowedPools<Hex, V4PoolDescriptor, V4PoolState, V4PoolEvent>({
      readEvents: (client, window, known) => readV4PoolEvents(client, options.poolManager, window, new Set(known.keys())),
      keyOf: (event) => event.id,
      listedKey: (pool) => lower(pool.id),
      isDiscovery: (event) => event.kind === "initialize",
      // An `Initialize` of a pool of two supported currencies joins the followed pools.
      discovered: (event) => {
        if (event.kind !== "initialize") return undefined;
        if (this.#pools.discoveredPools.length >= maxDiscovered) return undefined;
        const { key } = event;
        if (!isSupported(key.currency0.toLowerCase() as Address) || !isSupported(key.currency1.toLowerCase() as Address)) return undefined;
        if (options.isRoutable !== undefined && !options.isRoutable(key)) return undefined;
        return { ...key, id: event.id };
      },
      apply: afterV4PoolEvent,
      read: (client, pool, blockNumber) => readV4PoolState(client, options.stateView, keyOf(pool), blockNumber, options.wordsEachSide ?? DEFAULT_WORDS_EACH_SIDE),
      nearEdge: nearKnownTickEdge,
      observeReads: options.observeReads,
      historyDepth: options.historyDepth,
    });
  }

  /** Known pools whose state could not be read at the last update: routing goes without them. */
  get unreadableCount(): number {
    return this.#pools.unreadableCount;
  }

  /** The pools initialised since the list was given (and followed since), at most `maxDiscoveredPools`. */
  get initializedPools(): readonly V4PoolDescriptor[] {
    return this.#pools.discoveredPools;
  }

  /** The pools of `list` and those initialised since, at exactly `head`. Updates run one at a time; concurrent quotes at one head share one. */
  at(client: PublicClient, head: BlockHead, list: readonly V4PoolDescriptor[]): Promise<V4PoolSnapshot> {
    return this.#pools.at(client, head, list);
  }
}

/** A pool's key alone (the manifest's entry carries its id and venue name besides). */
function keyOf(pool: V4PoolKey): V4PoolKey {
  return { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks };
}
