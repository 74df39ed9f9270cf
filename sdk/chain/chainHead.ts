import type { Hex, PublicClient } from "viem";
import { ChainClock } from "./chainClock";

/** The latest block, as quotes and relays need it. */
export type BlockHead = Readonly<{
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  timestamp: bigint;
  baseFeePerGas: bigint;
  /** The earliest timestamp the next block can have (see ChainClock): deadlines count from it. */
  nextTimestamp: bigint;
}>;

/**
 * The chain's latest block, read with at most one request in flight: callers that ask while a read is
 * under way share it. `fresh()` never returns a head read before it was called except that shared
 * one (a few milliseconds old at most), which is what quotes need: a client that waited for its own
 * transaction's receipt gets a head that includes it, unless another read was already in flight. `read()`
 * also reuses a head younger than `maxAgeMs`, for callers (the relayer's queue and watcher) that
 * tolerate one: under load that turns a head read per relay into one per interval.
 */
export class ChainHead {
  #latest: { head: BlockHead; at: number } | undefined;
  #inFlight: Promise<BlockHead> | undefined;
  readonly #clock: ChainClock;

  constructor(
    private readonly client: PublicClient,
    private readonly maxAgeMs = 0,
    private readonly now: () => number = Date.now,
  ) {
    this.#clock = new ChainClock(client);
  }

  /** The latest head, read now unless one younger than `maxAgeMs` is at hand. */
  read(): Promise<BlockHead> {
    return this.recent(this.maxAgeMs);
  }

  /** The last head if it was read at most `maxAgeMs` ago, else one read now (an indicative price tolerates one). */
  recent(maxAgeMs: number): Promise<BlockHead> {
    if (this.#latest !== undefined && this.now() - this.#latest.at <= maxAgeMs) return Promise.resolve(this.#latest.head);
    return this.fresh();
  }

  /** A head read now, or the read already in flight. */
  fresh(): Promise<BlockHead> {
    this.#inFlight ??= this.#fetch().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  /** The last head seen, without any I/O; undefined before the first read. */
  get last(): BlockHead | undefined {
    return this.#latest?.head;
  }

  async #fetch(): Promise<BlockHead> {
    const block = await this.client.getBlock({ blockTag: "latest" });
    const nextTimestamp = await this.#clock.nextBlockTimestamp(block.timestamp);
    const head: BlockHead = {
      number: block.number,
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: block.timestamp,
      baseFeePerGas: block.baseFeePerGas ?? 0n,
      nextTimestamp,
    };
    this.#latest = { head, at: this.now() };
    return head;
  }
}
