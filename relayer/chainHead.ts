import type { PublicClient } from "viem";
import { ChainClock } from "../sdk";

export type Head = Readonly<{
  number: bigint;
  timestamp: bigint;
  baseFeePerGas: bigint;
  /** The earliest timestamp the next block can have (see ChainClock); a deadline below it cannot be met. */
  nextTimestamp: bigint;
}>;

/**
 * The chain's latest block for every part of the relayer: one read in flight at a time, and a head
 * younger than `maxAgeMs` is reused. Under load this turns one head read per relay into one per
 * poll interval; every use tolerates a head that old (deadlines are checked again before inclusion
 * by the router itself, and an older block only widens the search for a copier's fill).
 */
export class ChainHead {
  #latest: { head: Head; at: number } | undefined;
  #inFlight: Promise<Head> | undefined;

  readonly #clock: ChainClock;

  constructor(
    private readonly client: PublicClient,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#clock = new ChainClock(client);
  }

  /** The latest head, read now unless one younger than the allowed age is at hand. */
  read(): Promise<Head> {
    if (this.#latest !== undefined && this.now() - this.#latest.at <= this.maxAgeMs) return Promise.resolve(this.#latest.head);
    return this.fresh();
  }

  /** A head read now, or the read already in flight. */
  fresh(): Promise<Head> {
    this.#inFlight ??= this.client
      .getBlock({ blockTag: "latest" })
      .then(async (block) => {
        const nextTimestamp = await this.#clock.nextBlockTimestamp(block.timestamp);
        const head = { number: block.number, timestamp: block.timestamp, baseFeePerGas: block.baseFeePerGas ?? 0n, nextTimestamp };
        this.#latest = { head, at: this.now() };
        return head;
      })
      .finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  /** The last head seen, without any I/O; undefined before the first read. */
  get last(): Head | undefined {
    return this.#latest?.head;
  }
}
