import type { Address, BaseError, PublicClient } from "viem";
import { type BlockHead, afterV3PoolEvent, DEFAULT_WORDS_EACH_SIDE, nearKnownTickEdge, readV3PoolEvents, readV3PoolState, type V3PoolDescriptor, type V3PoolEvent, type V3PoolState } from "../../../../sdk";
import { BlockEventFollower, type FollowPlan } from "../../blockEventFollower";
import { isPoolFault } from "../../poolReserves";

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
 * events (one `eth_getLogs` per head, reorgs handled by the shared BlockEventFollower as for V2
 * pools). A pool is read directly (slot0, liquidity, the tick bitmap around the price, its ticks)
 * when it first appears, while unreadable, after a reorg touched it, and when its price comes near
 * the edge of the ticks it knows. Snapshots are immutable: a quote in progress never sees the next block.
 */
export class V3PoolTracker {
  readonly #options: V3PoolTrackerOptions;
  readonly #follower: BlockEventFollower<V3PoolEvent>;
  #snapshot: V3PoolSnapshot | undefined;
  #listed: readonly V3PoolDescriptor[] | undefined;
  #known = new Map<Address, V3PoolDescriptor>();
  /** Pools found through `PoolCreated`, by lowercase address. */
  readonly #created = new Map<Address, V3PoolDescriptor>();
  readonly #unreadable = new Set<Address>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: V3PoolTrackerOptions = {}) {
    this.#options = options;
    this.#follower = new BlockEventFollower<V3PoolEvent>({
      readEvents: (client, window) => readV3PoolEvents(client, [...this.#known.keys()], window, (options.factories ?? []).map((factory) => factory.address)),
      touches: (event) => [event.pool],
      historyDepth: options.historyDepth,
    });
  }

  /** Known pools whose state could not be read at the last update: routing goes without them. */
  get unreadableCount(): number {
    return this.#unreadable.size;
  }

  /** The pools the followed factories created since (`source` names their venue): routing adds them to its list. */
  get createdPools(): readonly V3PoolDescriptor[] {
    return [...this.#created.values()];
  }

  /** The pools of `list` (and those created since) at exactly `head`. Updates run one at a time; concurrent quotes at one head share one. */
  at(client: PublicClient, head: BlockHead, list: readonly V3PoolDescriptor[]): Promise<V3PoolSnapshot> {
    const current = this.#fresh(head, list);
    if (current !== undefined) return Promise.resolve(current);
    const run = this.#queue.then(() => this.#fresh(head, list) ?? this.#advance(client, head, list));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #fresh(head: BlockHead, list: readonly V3PoolDescriptor[]): V3PoolSnapshot | undefined {
    const snapshot = this.#snapshot;
    return snapshot !== undefined && this.#listed === list && snapshot.block.hash === head.hash ? snapshot : undefined;
  }

  async #advance(client: PublicClient, head: BlockHead, list: readonly V3PoolDescriptor[]): Promise<V3PoolSnapshot> {
    if (this.#listed !== list) {
      this.#known = new Map(list.map((pool) => [lower(pool.address), pool]));
      for (const [address, pool] of this.#created) if (!this.#known.has(address)) this.#known.set(address, pool);
      for (const address of this.#unreadable) if (!this.#known.has(address)) this.#unreadable.delete(address);
    }
    const plan: FollowPlan<V3PoolEvent> = await this.#follower.plan(client, head);
    const pools = new Map<Address, V3PoolState>();
    const reread = new Set<Address>(this.#unreadable);
    if (plan.kind === "rebuild") {
      for (const address of this.#known.keys()) reread.add(address);
    } else {
      for (const [address, pool] of this.#snapshot?.pools ?? []) if (this.#known.has(address)) pools.set(address, pool);
      for (const address of plan.reread) reread.add(address);
      for (const event of plan.events) {
        if (event.kind === "poolCreated") {
          if (this.#adoptCreated(event)) reread.add(event.pool);
          continue;
        }
        const pool = pools.get(event.pool);
        if (pool !== undefined && !reread.has(event.pool)) pools.set(event.pool, afterV3PoolEvent(pool, event));
      }
      for (const [address, pool] of pools) if (nearKnownTickEdge(pool)) reread.add(address);
      for (const address of this.#known.keys()) if (!pools.has(address)) reread.add(address);
    }
    await this.#read(client, head, [...reread], pools);
    this.#follower.commit(head, plan);
    this.#snapshot = { block: head, pools };
    this.#listed = list;
    return this.#snapshot;
  }

  /** A `PoolCreated` of a followed factory for two supported tokens joins the pools; returns whether it was new. */
  #adoptCreated(event: Extract<V3PoolEvent, { kind: "poolCreated" }>): boolean {
    const factory = this.#options.factories?.find((entry) => lower(entry.address) === event.factory);
    if (factory === undefined || this.#known.has(event.pool)) return false;
    const isSupported = this.#options.isSupported ?? (() => true);
    if (!isSupported(event.token0) || !isSupported(event.token1)) return false;
    const pool: V3PoolDescriptor = { address: event.pool, token0: event.token0, token1: event.token1, source: factory.source };
    this.#created.set(event.pool, pool);
    this.#known.set(event.pool, pool);
    return true;
  }

  /** Reads `addresses` at `head` into `pools`; a pool that cannot be read (not a node failure) is left out. */
  async #read(client: PublicClient, head: BlockHead, addresses: readonly Address[], pools: Map<Address, V3PoolState>): Promise<void> {
    const failed = new Map<Address, string>();
    await Promise.all(
      addresses.map(async (address) => {
        const descriptor = this.#known.get(address);
        if (descriptor === undefined) return;
        try {
          pools.set(address, await readV3PoolState(client, descriptor, head.number, this.#options.wordsEachSide ?? DEFAULT_WORDS_EACH_SIDE));
          this.#unreadable.delete(address);
        } catch (error) {
          if (!isPoolFault(error)) throw error;
          failed.set(address, (error as BaseError).shortMessage);
          pools.delete(address);
          this.#unreadable.add(address);
        }
      }),
    );
    this.#options.observeReads?.(addresses, failed, new Date(Number(head.timestamp) * 1000));
  }
}
