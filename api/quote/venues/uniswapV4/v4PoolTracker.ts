import type { Address, BaseError, Hex, PublicClient } from "viem";
import { DEFAULT_WORDS_EACH_SIDE, nearKnownTickEdge, type BlockHead, type V4PoolKey } from "../../../../sdk";
import { BlockEventFollower, type FollowPlan } from "../../blockEventFollower";
import { isPoolFault } from "../../poolReserves";
import { readV4PoolEvents, type V4PoolEvent } from "./v4PoolEvents";
import { readV4PoolState } from "./v4PoolSnapshot";
import { afterV4PoolEvent, type V4PoolState } from "./v4PoolState";

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
}>;

const lower = (id: Hex) => id.toLowerCase() as Hex;

/**
 * V4 pools' swap state held in memory and followed from the PoolManager's `Initialize`, `Swap`,
 * `ModifyLiquidity` and `ProtocolFeeUpdated` events, keyed by pool id (one `eth_getLogs` on one
 * address per head; reorgs handled by the shared BlockEventFollower, as for V2 and V3 pools). The
 * pools are the listed ones (the manifest's) and those a later `Initialize` brings for supported
 * currencies. A pool is read through StateView when it first appears, while unreadable, after a reorg
 * touched it, and when its price comes near the edge of the ticks it knows. Snapshots are immutable.
 * Which pools route (the hook rule, the routers' PoolManager) is the market's choice, not the tracker's.
 */
export class V4PoolTracker {
  readonly #options: V4PoolTrackerOptions;
  readonly #follower: BlockEventFollower<V4PoolEvent>;
  #snapshot: V4PoolSnapshot | undefined;
  #listed: readonly V4PoolKey[] | undefined;
  /** Every followed pool's key, by lowercase id. */
  #known = new Map<Hex, V4PoolKey>();
  /** Pools found through `Initialize` after the list was given. */
  readonly #initialized = new Map<Hex, V4PoolKey>();
  readonly #unreadable = new Set<Hex>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: V4PoolTrackerOptions) {
    this.#options = options;
    this.#follower = new BlockEventFollower<V4PoolEvent>({
      readEvents: (client, window) => readV4PoolEvents(client, options.poolManager, window, new Set(this.#known.keys())),
      // A pool id stands where the follower keeps addresses: it only keys the pools a reorg makes stale.
      touches: (event) => [event.id as string as Address],
      historyDepth: options.historyDepth,
    });
  }

  /** Known pools whose state could not be read at the last update: routing goes without them. */
  get unreadableCount(): number {
    return this.#unreadable.size;
  }

  /** The keys of pools initialised since the list was given (and followed since). */
  get initializedPools(): readonly V4PoolKey[] {
    return [...this.#initialized.values()];
  }

  /** The pools of `list` (keys; ids computed by the caller's manifest) and those initialised since, at exactly `head`. Updates run one at a time. */
  at(client: PublicClient, head: BlockHead, list: readonly (V4PoolKey & { id: Hex })[]): Promise<V4PoolSnapshot> {
    const current = this.#fresh(head, list);
    if (current !== undefined) return Promise.resolve(current);
    const run = this.#queue.then(() => this.#fresh(head, list) ?? this.#advance(client, head, list));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #fresh(head: BlockHead, list: readonly V4PoolKey[]): V4PoolSnapshot | undefined {
    const snapshot = this.#snapshot;
    return snapshot !== undefined && this.#listed === list && snapshot.block.hash === head.hash ? snapshot : undefined;
  }

  async #advance(client: PublicClient, head: BlockHead, list: readonly (V4PoolKey & { id: Hex })[]): Promise<V4PoolSnapshot> {
    if (this.#listed !== list) {
      this.#known = new Map(list.map((pool) => [lower(pool.id), keyOf(pool)]));
      for (const [id, key] of this.#initialized) if (!this.#known.has(id)) this.#known.set(id, key);
      for (const id of this.#unreadable) if (!this.#known.has(id)) this.#unreadable.delete(id);
    }
    const plan: FollowPlan<V4PoolEvent> = await this.#follower.plan(client, head);
    const pools = new Map<Hex, V4PoolState>();
    const reread = new Set<Hex>(this.#unreadable);
    if (plan.kind === "rebuild") {
      for (const id of this.#known.keys()) reread.add(id);
    } else {
      for (const [id, pool] of this.#snapshot?.pools ?? []) if (this.#known.has(id)) pools.set(id, pool);
      for (const id of plan.reread) reread.add(lower(id as string as Hex));
      for (const event of plan.events) {
        if (event.kind === "initialize") {
          if (this.#adoptInitialized(event.id, event.key)) reread.add(event.id);
          continue;
        }
        const pool = pools.get(event.id);
        if (pool !== undefined && !reread.has(event.id)) pools.set(event.id, afterV4PoolEvent(pool, event));
      }
      for (const [id, pool] of pools) if (nearKnownTickEdge(pool)) reread.add(id);
      for (const id of this.#known.keys()) if (!pools.has(id)) reread.add(id);
    }
    await this.#read(client, head, [...reread], pools);
    this.#follower.commit(head, plan);
    this.#snapshot = { block: head, pools };
    this.#listed = list;
    return this.#snapshot;
  }

  /** An `Initialize` of a pool of two supported currencies joins the followed pools; returns whether it was new. */
  #adoptInitialized(id: Hex, key: V4PoolKey): boolean {
    if (this.#known.has(id)) return false;
    const isSupported = this.#options.isSupported ?? (() => true);
    if (!isSupported(key.currency0.toLowerCase() as Address) || !isSupported(key.currency1.toLowerCase() as Address)) return false;
    this.#initialized.set(id, key);
    this.#known.set(id, key);
    return true;
  }

  /** Reads `ids` at `head` into `pools`; a pool that cannot be read (not a node failure) is left out. */
  async #read(client: PublicClient, head: BlockHead, ids: readonly Hex[], pools: Map<Hex, V4PoolState>): Promise<void> {
    const failed = new Map<Address, string>();
    await Promise.all(
      ids.map(async (id) => {
        const key = this.#known.get(id);
        if (key === undefined) return;
        try {
          pools.set(id, await readV4PoolState(client, this.#options.stateView, key, head.number, this.#options.wordsEachSide ?? DEFAULT_WORDS_EACH_SIDE));
          this.#unreadable.delete(id);
        } catch (error) {
          if (!isPoolFault(error)) throw error;
          failed.set(id as string as Address, (error as BaseError).shortMessage);
          pools.delete(id);
          this.#unreadable.add(id);
        }
      }),
    );
    this.#options.observeReads?.(
      ids.map((id) => id as string as Address),
      failed,
      new Date(Number(head.timestamp) * 1000),
    );
  }
}

/** A listed pool's key (the manifest's entry carries its id and venue name besides). */
function keyOf(pool: V4PoolKey): V4PoolKey {
  return { currency0: pool.currency0, currency1: pool.currency1, fee: pool.fee, tickSpacing: pool.tickSpacing, hooks: pool.hooks };
}
