import type { Address, BaseError, PublicClient } from "viem";
import type { LogPosition, LogWindow } from "../../../sdk";
import type { BlockHead } from "../../../sdk/chain/chainHead";
import { BlockEventFollower, type FollowPlan } from "../market/blockEventFollower";
import { isPoolFault } from "../market/poolReserves";

/** Every followed pool's state at one block, by lowercase key (a V3 pool's address, a V4 pool's id). */
export type FollowedPoolsSnapshot<K extends string, S> = Readonly<{ block: BlockHead; pools: ReadonlyMap<K, S> }>;

/**
 * What one concentrated-liquidity venue tells FollowedPools: how its events are read and applied, how
 * a pool found on chain joins (`PoolCreated`, `Initialize`), and how a pool is read directly.
 */
export type FollowedPoolsVenue<K extends string, D, S, E extends LogPosition> = Readonly<{
  /** The followed pools' events (and discovery events of new ones) in `window`, in chain order. */
  readEvents: (client: PublicClient, window: LogWindow, known: ReadonlyMap<K, D>) => Promise<E[]>;
  /** The pool (lowercase key) an event changes. */
  keyOf: (event: E) => K;
  /** A listed pool's key (lowercase). */
  listedKey: (descriptor: D) => K;
  /** A new pool an event announces (undefined: not a discovery event, or a pool not to follow). */
  discovered: (event: E) => D | undefined;
  /** Whether `event` is a discovery event (it changes no followed pool's state). */
  isDiscovery: (event: E) => boolean;
  /** The pool's state after one of its own events. */
  apply: (state: S, event: E) => S;
  /** The pool read directly at `blockNumber`. */
  read: (client: PublicClient, descriptor: D, blockNumber: bigint) => Promise<S>;
  /** Whether the price nears the edge of the ticks the state knows (then it is read again). */
  nearEdge: (state: S) => boolean;
  /** Told the outcome of each direct read (keys as the pool names it): `failed` pools are unreadable now. */
  observeReads?: (pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date) => void;
  historyDepth?: number;
}>;

/**
 * Concentrated-liquidity pools' swap state held in memory and followed from their events (one
 * `eth_getLogs` per head, reorgs handled by the shared BlockEventFollower, as for V2 pools): the
 * listed pools and those discovery events bring. A pool is read directly when it first appears,
 * while unreadable, after a reorg touched it, and when its price nears the edge of the ticks it
 * knows. Snapshots are immutable: a quote in progress never sees the next block. Updates run one at
 * a time; concurrent callers at one head share one. V3 (uniswapV3/v3PoolTracker.ts) and V4
 * (uniswapV4/v4PoolTracker.ts) are this with their own events, keys and reads.
 */
export class FollowedPools<K extends string, D, S, E extends LogPosition> {
  readonly #venue: FollowedPoolsVenue<K, D, S, E>;
  readonly #follower: BlockEventFollower<E>;
  #snapshot: FollowedPoolsSnapshot<K, S> | undefined;
  #listed: readonly D[] | undefined;
  #known = new Map<K, D>();
  /** Pools found through discovery events, by key. */
  readonly #discovered = new Map<K, D>();
  readonly #unreadable = new Set<K>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(venue: FollowedPoolsVenue<K, D, S, E>) {
    this.#venue = venue;
    this.#follower = new BlockEventFollower<E>({
      readEvents: (client, window) => venue.readEvents(client, window, this.#known),
      // A key stands where the follower keeps addresses: it only names the pools a reorg makes stale.
      touches: (event) => [venue.keyOf(event) as string as Address],
      historyDepth: venue.historyDepth,
    });
  }

  /** Known pools whose state could not be read at the last update: routing goes without them. */
  get unreadableCount(): number {
    return this.#unreadable.size;
  }

  /** The pools discovery events brought since the start. */
  get discoveredPools(): readonly D[] {
    return [...this.#discovered.values()];
  }

  /** The pools of `list` (and those discovered since) at exactly `head`. */
  at(client: PublicClient, head: BlockHead, list: readonly D[]): Promise<FollowedPoolsSnapshot<K, S>> {
    const current = this.#fresh(head, list);
    if (current !== undefined) return Promise.resolve(current);
    const run = this.#queue.then(() => this.#fresh(head, list) ?? this.#advance(client, head, list));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #fresh(head: BlockHead, list: readonly D[]): FollowedPoolsSnapshot<K, S> | undefined {
    const snapshot = this.#snapshot;
    return snapshot !== undefined && this.#listed === list && snapshot.block.hash === head.hash ? snapshot : undefined;
  }

  async #advance(client: PublicClient, head: BlockHead, list: readonly D[]): Promise<FollowedPoolsSnapshot<K, S>> {
    const venue = this.#venue;
    if (this.#listed !== list) {
      this.#known = new Map(list.map((pool) => [venue.listedKey(pool), pool]));
      for (const [key, pool] of this.#discovered) if (!this.#known.has(key)) this.#known.set(key, pool);
      for (const key of this.#unreadable) if (!this.#known.has(key)) this.#unreadable.delete(key);
    }
    const plan: FollowPlan<E> = await this.#follower.plan(client, head);
    const pools = new Map<K, S>();
    const reread = new Set<K>(this.#unreadable);
    if (plan.kind === "rebuild") {
      for (const key of this.#known.keys()) reread.add(key);
    } else {
      for (const [key, pool] of this.#snapshot?.pools ?? []) if (this.#known.has(key)) pools.set(key, pool);
      for (const key of plan.reread) reread.add(key as string as K);
      for (const event of plan.events) {
        if (venue.isDiscovery(event)) {
          const found = venue.discovered(event);
          const key = venue.keyOf(event);
          if (found !== undefined && !this.#known.has(key)) {
            this.#discovered.set(key, found);
            this.#known.set(key, found);
            reread.add(key);
          }
          continue;
        }
        const key = venue.keyOf(event);
        const pool = pools.get(key);
        if (pool !== undefined && !reread.has(key)) pools.set(key, venue.apply(pool, event));
      }
      for (const [key, pool] of pools) if (venue.nearEdge(pool)) reread.add(key);
      for (const key of this.#known.keys()) if (!pools.has(key)) reread.add(key);
    }
    await this.#read(client, head, [...reread], pools);
    this.#follower.commit(head, plan);
    this.#snapshot = { block: head, pools };
    this.#listed = list;
    return this.#snapshot;
  }

  /** Reads `keys` at `head` into `pools`; a pool that cannot be read (not a node failure) is left out. */
  async #read(client: PublicClient, head: BlockHead, keys: readonly K[], pools: Map<K, S>): Promise<void> {
    const failed = new Map<Address, string>();
    await Promise.all(
      keys.map(async (key) => {
        const descriptor = this.#known.get(key);
        if (descriptor === undefined) return;
        try {
          pools.set(key, await this.#venue.read(client, descriptor, head.number));
          this.#unreadable.delete(key);
        } catch (error) {
          if (!isPoolFault(error)) throw error;
          failed.set(key as string as Address, (error as BaseError).shortMessage);
          pools.delete(key);
          this.#unreadable.add(key);
        }
      }),
    );
    this.#venue.observeReads?.(
      keys.map((key) => key as string as Address),
      failed,
      new Date(Number(head.timestamp) * 1000),
    );
  }
}
