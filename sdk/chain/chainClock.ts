import type { PublicClient } from "viem";

/**
 * How far the chain's clock runs from this machine's, learned from the pending block's timestamp and
 * refreshed at most every `refreshMs`. A chain that mines on demand (a devnet) can have a latest block
 * hours old, and `evm_increaseTime` moves its clock ahead of ours: neither the latest block nor our
 * clock alone says when the next block will be. Reading the pending block on every call would be
 * exact but costly under a full mempool (the node executes it), so its offset is cached instead.
 */
export class ChainClock {
  #offsetSeconds = 0n;
  #readAt = Number.NEGATIVE_INFINITY;
  #inFlight: Promise<void> | undefined;

  constructor(
    private readonly client: PublicClient,
    private readonly refreshMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The earliest timestamp the next block can have, after a block at `latestTimestamp`. */
  async nextBlockTimestamp(latestTimestamp: bigint): Promise<bigint> {
    if (this.now() - this.#readAt > this.refreshMs) await this.#refresh();
    const byClock = BigInt(Math.floor(this.now() / 1000)) + this.#offsetSeconds;
    return byClock > latestTimestamp ? byClock : latestTimestamp + 1n;
  }

  #refresh(): Promise<void> {
    this.#inFlight ??= this.client
      .getBlock({ blockTag: "pending" })
      .then((pending) => {
        this.#offsetSeconds = pending.timestamp - BigInt(Math.floor(this.now() / 1000));
        this.#readAt = this.now();
      })
      .finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }
}
