import { BlockNotFoundError, type Address, type Hex, type PublicClient } from "viem";
import type { LogPosition, LogWindow } from "../../../sdk";
import type { BlockHead } from "../../../sdk/chain/chainHead";

/** What an absorbed block changed: the pools its events touched. */
type AbsorbedBlock = { number: bigint; hash: Hex; touched: Set<Address> };

/**
 * How to move pool state from the absorbed block to a new head: apply `events` (chain order), then
 * re-read `reread` directly (pools a reorg orphaned changes of); or, with no fork point remembered,
 * rebuild by reading every pool.
 */
export type FollowPlan<E> = { kind: "rebuild" } | { kind: "events"; events: readonly E[]; reread: ReadonlySet<Address>; history: readonly AbsorbedBlock[] };

export type BlockEventFollowerOptions<E extends LogPosition> = Readonly<{
  /** The events of the followed pools in `window`, in chain order (one `eth_getLogs`). */
  readEvents: (client: PublicClient, window: LogWindow) => Promise<E[]>;
  /** The pools (lowercase) an event changes: what a reorg of its block makes stale. */
  touches: (event: E) => readonly Address[];
  /** Absorbed blocks remembered for finding where a reorg forked; a deeper one rebuilds. */
  historyDepth?: number;
}>;

/**
 * The block-following half of the pool state design, shared by venues: one `eth_getLogs` per new
 * head (by block hash when it extends the absorbed block, else by range after checking that the
 * absorbed block is still canonical), and on a reorg (a head whose parent is not the absorbed block,
 * or that is not ahead of it; a devnet's `evm_revert` looks the same) the newest remembered block
 * still on the chain is the fork point: every pool touched on either side of it since is re-read.
 * A venue's tracker applies the plan to its own state and then `commit`s it, so that a failed update
 * forgets nothing.
 */
export class BlockEventFollower<E extends LogPosition> {
  readonly #options: BlockEventFollowerOptions<E>;
  #absorbed: BlockHead | undefined;
  #history: readonly AbsorbedBlock[] = [];

  constructor(options: BlockEventFollowerOptions<E>) {
    this.#options = options;
  }

  /** The events (or the rebuild) that take the absorbed block's state to `head`. */
  async plan(client: PublicClient, head: BlockHead): Promise<FollowPlan<E>> {
    const previous = this.#absorbed;
    if (previous === undefined) return { kind: "rebuild" };
    const history = this.#history;
    if (head.hash === previous.hash) return { kind: "events", events: [], reread: new Set(), history };
    if (head.number === previous.number + 1n && head.parentHash === previous.hash) {
      return { kind: "events", events: await this.#options.readEvents(client, { blockHash: head.hash }), reread: new Set(), history };
    }
    const forward = head.number > previous.number;
    const [rangeEvents, stillThere] = await Promise.all([
      forward ? this.#options.readEvents(client, { fromBlock: previous.number + 1n, toBlock: head.number }) : [],
      forward ? canonicalHash(client, previous.number) : undefined,
    ]);
    if (forward && stillThere === previous.hash && rangeEvents.every((event) => event.blockNumber !== head.number || event.blockHash === head.hash)) {
      return { kind: "events", events: rangeEvents, reread: new Set(), history };
    }
    const fork = await this.#forkPoint(client, head);
    if (fork === undefined) return { kind: "rebuild" };
    const reread = new Set<Address>();
    for (const block of history) if (block.number > fork.number) for (const pool of block.touched) reread.add(pool);
    const events = head.number > fork.number ? await this.#options.readEvents(client, { fromBlock: fork.number + 1n, toBlock: head.number }) : [];
    // The new side's events are applied on top of the old side's state: re-read what they touch too.
    for (const event of events) for (const pool of this.#options.touches(event)) reread.add(pool);
    return { kind: "events", events, reread, history: history.filter((block) => block.number <= fork.number) };
  }

  /** Records that the state now stands at `head`, after `plan` was applied (`events` empty after a rebuild). */
  commit(head: BlockHead, plan: FollowPlan<E>): void {
    const blocks = new Map<bigint, AbsorbedBlock>();
    const base = plan.kind === "events" ? plan.history : [];
    if (plan.kind === "events") {
      for (const event of plan.events) {
        let block = blocks.get(event.blockNumber);
        if (block === undefined) blocks.set(event.blockNumber, (block = { number: event.blockNumber, hash: event.blockHash, touched: new Set() }));
        for (const pool of this.#options.touches(event)) block.touched.add(pool);
      }
    }
    this.#history = [...base, ...blocks.values(), { number: head.number, hash: head.hash, touched: new Set<Address>() }].slice(-(this.#options.historyDepth ?? 256));
    this.#absorbed = head;
  }

  /** The newest remembered block that is still on the chain at its number, if any. */
  async #forkPoint(client: PublicClient, head: BlockHead): Promise<AbsorbedBlock | undefined> {
    const candidates = this.#history.filter((block) => block.number <= head.number).reverse();
    const hashes = await Promise.all(candidates.map((block) => (block.number === head.number ? Promise.resolve(head.hash) : canonicalHash(client, block.number))));
    return candidates.find((block, index) => hashes[index] === block.hash);
  }
}

/** The hash of the chain's block at `number`, or undefined when the chain is shorter. */
export async function canonicalHash(client: PublicClient, number: bigint): Promise<Hex | undefined> {
  try {
    return (await client.getBlock({ blockNumber: number })).hash;
  } catch (error) {
    if (error instanceof BlockNotFoundError) return undefined;
    throw error;
  }
}
