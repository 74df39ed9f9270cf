import type { Address, PublicClient } from "viem";
import { afterV3PoolEvent, DEFAULT_WORDS_EACH_SIDE, nearKnownTickEdge, readV3PoolEvents, readV3PoolState, type V3PoolDescriptor, type V3PoolEvent, type V3PoolState } from "../../../../sdk";
import { type BlockHead } from "../../../../sdk/chain/chainHead";
import { FollowedPools } from "../followedPools";

/** Every followed V3 pool's state at one block: what a quote is priced at. Keys are lowercase addresses. */
export type V3PoolSnapshot = Readonly<{ block: BlockHead; pools: ReadonlyMap<Address, V3PoolState> }>;

export type V3PoolTrackerOptions = Readonly<{
  /** V3 factories (each with its venue's name) whose `PoolCreated` events add pools, as V2's `PairCreated` does. */
  factories?: readonly Readonly<{ address: Address; source: string }>[];
  /** Whether a token (lowercase) is supported; a created pool joins only if both of its tokens are. */
  isSupported?: (token: Address) => boolean;
  /** Tick-bitmap words read on each side of the price when a pool is read directly. */
  wordsEachSide?: number;
  /** Told the outcome of each direct read: `failed` pools are unreadable now, the others readable. */
  observeReads?: (pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date) => void;
  historyDepth?: number;
}>;

const lower = (address: Address) => address.toLowerCase() as Address;

/**
 * V3 pools' swap state held in memory and followed from their `Initialize`, `Swap`, `Mint` and `Burn`
 * events, and the followed factories' `PoolCreated` (FollowedPools: one `eth_getLogs` per head, reorgs
 * handled by the shared BlockEventFollower). A pool is read directly (slot0, liquidity, the tick
 * bitmap around the price, its ticks) when it first appears, while unreadable, after a reorg touched
 * it, and when its price comes near the edge of the ticks it knows.
 */
export class V3PoolTracker {
  readonly #pools: FollowedPools<Address, V3PoolDescriptor, V3PoolState, V3PoolEvent>;

  constructor(options: V3PoolTrackerOptions = {}) {
    const factories = options.factories ?? [];
    const isSupported = options.isSupported ?? (() => true);
    this.#pools = new FollowedPools<Address, V3PoolDescriptor, V3PoolState, V3PoolEvent>({
      readEvents: (client, window, known) => readV3PoolEvents(client, [...known.keys()], window, factories.map((factory) => factory.address)),
      keyOf: (event) => event.pool,
      listedKey: (pool) => lower(pool.address),
      isDiscovery: (event) => event.kind === "poolCreated",
      // A `PoolCreated` of a followed factory for two supported tokens joins the pools.
      discovered: (event) => {
        if (event.kind !== "poolCreated") return undefined;
        const factory = factories.find((entry) => lower(entry.address) === event.factory);
        if (factory === undefined || !isSupported(event.token0) || !isSupported(event.token1)) return undefined;
        return { address: event.pool, token0: event.token0, token1: event.token1, source: factory.source };
      },
      apply: afterV3PoolEvent,
      read: (client, pool, blockNumber) => readV3PoolState(client, pool, blockNumber, options.wordsEachSide ?? DEFAULT_WORDS_EACH_SIDE),
      nearEdge: nearKnownTickEdge,
      observeReads: options.observeReads,
      historyDepth: options.historyDepth,
    });
  }

  /** Known pools whose state could not be read at the last update: routing goes without them. */
  get unreadableCount(): number {
    return this.#pools.unreadableCount;
  }

  /** The pools the followed factories created since (`source` names their venue): routing adds them to its list. */
  get createdPools(): readonly V3PoolDescriptor[] {
    return this.#pools.discoveredPools;
  }

  /** The pools of `list` (and those created since) at exactly `head`. Updates run one at a time; concurrent quotes at one head share one. */
  at(client: PublicClient, head: BlockHead, list: readonly V3PoolDescriptor[]): Promise<V3PoolSnapshot> {
    return this.#pools.at(client, head, list);
  }
}
