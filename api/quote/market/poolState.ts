import type { Address, PublicClient } from "viem";
import type { ManifestPool } from "../../../sdk";
import type { BlockHead } from "../../../sdk/chain/chainHead";
import { BlockEventFollower } from "./blockEventFollower";
import { readPoolEvents, type PoolEvent } from "./poolEvents";
import { PoolGraph, type PricedMarket } from "../routing/poolGraph";
import { readPoolReserves } from "./poolReserves";
import { isV2Pool, type PricedPool, type V2Pool } from "../venues/pricedPool";

/** Every pool's reserves at one block: what a quote is priced at. */
export type PoolSnapshot = PricedMarket & Readonly<{ block: BlockHead }>;

export type PoolStateOptions = Readonly<{
  /** The V2 factory whose `PairCreated` events add pools, and the fee of its pairs. */
  factory: { address: Address; feeBps: number } | undefined;
  /** Whether a token (lowercase) is supported; a created pair joins routing only if both of its tokens are. */
  isSupported: (token: Address) => boolean;
  /** Told the outcome of each direct read: `failed` pools are unreadable now, the others readable. */
  observeReads: (pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date) => void;
  /** Absorbed blocks remembered for finding where a reorg forked; a deeper one re-reads every pool. */
  historyDepth?: number;
}>;

const lower = (address: Address) => address.toLowerCase() as Address;

/**
 * One chain's pool reserves, held in memory and followed from events instead of read on every
 * block. Each new head costs one `eth_getLogs` over the known pools (their `Sync` events, plus the
 * factory's `PairCreated`); pools are read directly only when they first appear, when a `Sync` is
 * their first swap (the gas model needs to know the price oracle started), while unreadable, and
 * after a reorg. Every snapshot is the state at exactly one block, and snapshots are immutable, so
 * a quote in progress is never affected by the next block.
 *
 * Reorgs (a head whose parent is not the absorbed block, or that is not ahead of it; a devnet's
 * `evm_revert` looks the same) are found by the BlockEventFollower every venue shares: the newest
 * remembered block still on the chain is the fork point, and every pool touched on either side of it
 * since is re-read at the new head. With no fork point in memory, everything is re-read.
 */
export class PoolStateTracker {
  readonly #options: PoolStateOptions;
  #snapshot: PoolSnapshot | undefined;
  /** The pool list (by identity) the snapshot covers. */
  #listed: readonly ManifestPool[] | undefined;
  /** Pools found through `PairCreated`, by lowercase address. */
  readonly #created = new Map<Address, ManifestPool>();
  /** Every pool routing may use (list plus created), by lowercase address, readable or not. */
  #known = new Map<Address, ManifestPool>();
  readonly #unreadable = new Set<Address>();
  readonly #follower: BlockEventFollower<PoolEvent>;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(options: PoolStateOptions) {
    this.#options = options;
    this.#follower = new BlockEventFollower<PoolEvent>({
      readEvents: (client, window) => readPoolEvents(client, this.#addresses(), this.#options.factory?.address, window),
      touches: (event) => [event.kind === "sync" ? event.pool : event.pair],
      historyDepth: options.historyDepth,
    });
  }

  /** Known pools whose reserves could not be read at the last update: routing searched without them. */
  get unreadableCount(): number {
    return this.#unreadable.size;
  }

  /** The pools at exactly `head`. Updates run one at a time; concurrent quotes at one head share one. */
  at(client: PublicClient, head: BlockHead, list: readonly ManifestPool[]): Promise<PoolSnapshot> {
    const current = this.#fresh(head, list);
    if (current !== undefined) return Promise.resolve(current);
    const run = this.#queue.then(() => this.#fresh(head, list) ?? this.#advance(client, head, list));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** The snapshot if it already answers for `head`. */
  #fresh(head: BlockHead, list: readonly ManifestPool[]): PoolSnapshot | undefined {
    const snapshot = this.#snapshot;
    if (snapshot === undefined || this.#listed !== list) return undefined;
    // Only the very block: a later snapshot may belong to blocks that a reorg (or an evm_revert back
    // to `head`) has since removed, so an older head is handled as a reorg to it.
    return snapshot.block.hash === head.hash ? snapshot : undefined;
  }

  async #advance(client: PublicClient, head: BlockHead, list: readonly ManifestPool[]): Promise<PoolSnapshot> {
    const previous = this.#snapshot;
    const listChanged = this.#listed !== list;
    if (listChanged) this.#setKnown(list);
    if (previous === undefined) return this.#rebuild(client, head, list);

    const plan = await this.#follower.plan(client, head);
    if (plan.kind === "rebuild") return this.#rebuild(client, head, list);
    const reread = new Set<Address>([...this.#unreadable, ...plan.reread]);

    const pools = new Map(previous.pools);
    let shapeChanged = listChanged;
    for (const [address] of pools) {
      if (!this.#known.has(address)) pools.delete(address);
    }
    for (const address of this.#known.keys()) if (!pools.has(address) && !this.#unreadable.has(address)) reread.add(address);
    for (const event of plan.events) {
      if (event.kind === "sync") {
        const pool = pools.get(event.pool);
        const synced = pool === undefined || !isV2Pool(pool) ? undefined : afterSync(pool, event, event.blockHash === head.hash ? head.timestamp : undefined);
        if (synced === undefined) reread.add(event.pool);
        else pools.set(event.pool, synced);
      } else if (this.#adoptCreated(event)) {
        reread.add(event.pair);
        shapeChanged = true;
      }
    }
    if (reread.size > 0) shapeChanged = (await this.#read(client, head, [...reread], pools)) || shapeChanged;
    this.#follower.commit(head, plan);
    const graph = shapeChanged ? new PoolGraph(pools.values()) : previous.graph;
    return this.#publish({ block: head, pools, graph }, list);
  }

  /** Reads every known pool at `head` and starts the history there. */
  async #rebuild(client: PublicClient, head: BlockHead, list: readonly ManifestPool[]): Promise<PoolSnapshot> {
    const pools = new Map<Address, PricedPool>();
    this.#unreadable.clear();
    await this.#read(client, head, [...this.#known.keys()], pools);
    this.#follower.commit(head, { kind: "rebuild" });
    return this.#publish({ block: head, pools, graph: new PoolGraph(pools.values()) }, list);
  }

  /** Reads `addresses` at `head` into `pools`; returns whether the set of readable pools changed. */
  async #read(client: PublicClient, head: BlockHead, addresses: readonly Address[], pools: Map<Address, PricedPool>): Promise<boolean> {
    const descriptors = addresses.map((address) => this.#known.get(address)).filter((pool): pool is ManifestPool => pool !== undefined);
    const read = await readPoolReserves(client, descriptors, head.number);
    let changed = false;
    for (const pool of read.pools) {
      if (!pools.has(pool.address)) changed = true;
      pools.set(pool.address, pool);
      this.#unreadable.delete(pool.address);
    }
    const failed = new Map<Address, string>();
    for (const [address, reason] of read.unreadable) {
      const key = lower(address);
      failed.set(key, reason);
      if (pools.delete(key)) changed = true;
      this.#unreadable.add(key);
    }
    this.#options.observeReads(descriptors.map((pool) => lower(pool.address)), failed, new Date(Number(head.timestamp) * 1000));
    return changed;
  }

  #setKnown(list: readonly ManifestPool[]): void {
    const known = new Map<Address, ManifestPool>();
    for (const pool of list) known.set(lower(pool.address), pool);
    for (const [address, pool] of this.#created) {
      if (this.#options.isSupported(lower(pool.token0)) && this.#options.isSupported(lower(pool.token1))) known.set(address, pool);
    }
    for (const address of this.#unreadable) if (!known.has(address)) this.#unreadable.delete(address);
    this.#known = known;
  }

  /** A `PairCreated` of two supported tokens joins routing; returns whether it was new. */
  #adoptCreated(event: Extract<PoolEvent, { kind: "pairCreated" }>): boolean {
    const factory = this.#options.factory;
    if (factory === undefined || this.#known.has(event.pair)) return false;
    if (!this.#options.isSupported(event.token0) || !this.#options.isSupported(event.token1)) return false;
    const pool: ManifestPool = { address: event.pair, token0: event.token0, token1: event.token1, type: "uniswap-v2", source: "uniswap-v2", feeBps: factory.feeBps };
    this.#created.set(event.pair, pool);
    this.#known.set(event.pair, pool);
    return true;
  }

  #addresses(): Address[] {
    return [...this.#known.keys()];
  }

  #publish(snapshot: PoolSnapshot, list: readonly ManifestPool[]): PoolSnapshot {
    this.#snapshot = snapshot;
    this.#listed = list;
    return snapshot;
  }
}

/**
 * The pool after `sync`, mined in a block at `timestamp` (when known). The pair's `_update` starts
 * its price oracle when time has passed since `blockTimestampLast` and the reserves before it were
 * both non-zero; undefined when that cannot be told (the pool must be read).
 */
function afterSync(pool: V2Pool, sync: Extract<PoolEvent, { kind: "sync" }>, timestamp: bigint | undefined): V2Pool | undefined {
  const timestampLast = timestamp === undefined ? undefined : Number(timestamp % 2n ** 32n);
  let oracleStarted = pool.oracleStarted;
  if (!oracleStarted) {
    if (timestampLast === undefined || pool.timestampLast === undefined) return undefined;
    oracleStarted = timestampLast !== pool.timestampLast && pool.reserve0 > 0n && pool.reserve1 > 0n;
  }
  return { ...pool, reserve0: sync.reserve0, reserve1: sync.reserve1, oracleStarted, timestampLast };
}
