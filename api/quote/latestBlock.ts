import type { Hex, PublicClient } from "viem";
import { ChainClock } from "../../sdk";

export type BlockHead = Readonly<{
  number: bigint;
  hash: Hex;
  parentHash: Hex;
  timestamp: bigint;
  baseFeePerGas: bigint;
  /** The earliest timestamp the next block can have (see ChainClock): quotes' deadlines count from it. */
  nextTimestamp: bigint;
}>;

/**
 * Reads the chain head for quotes with at most one request in flight: quotes that arrive while a
 * read is under way share it. A quote may therefore be priced at a head read that began up to one
 * RPC round trip (a few milliseconds) before the quote arrived, never older; a client that waited
 * for its own transaction's receipt before asking always gets a head that includes it, unless
 * another client's read was already in flight, in which case the next quote catches up.
 */
export class LatestBlockReader {
  #inFlight: Promise<BlockHead> | undefined;

  readonly #clock: ChainClock;

  constructor(private readonly client: PublicClient) {
    this.#clock = new ChainClock(client);
  }

  read(): Promise<BlockHead> {
    this.#inFlight ??= this.#fetch().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async #fetch(): Promise<BlockHead> {
    const block = await this.client.getBlock({ blockTag: "latest" });
    const nextTimestamp = await this.#clock.nextBlockTimestamp(block.timestamp);
    return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp, baseFeePerGas: block.baseFeePerGas ?? 0n, nextTimestamp };
  }
}
