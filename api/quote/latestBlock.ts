import type { Hex, PublicClient } from "viem";

export type BlockHead = Readonly<{ number: bigint; hash: Hex; parentHash: Hex; timestamp: bigint; baseFeePerGas: bigint }>;

/**
 * Reads the chain head for quotes with at most one request in flight: quotes that arrive while a
 * read is under way share it. A quote may therefore be priced at a head read that began up to one
 * RPC round trip (a few milliseconds) before the quote arrived, never older; a client that waited
 * for its own transaction's receipt before asking always gets a head that includes it, unless
 * another client's read was already in flight, in which case the next quote catches up.
 */
export class LatestBlockReader {
  #inFlight: Promise<BlockHead> | undefined;

  constructor(private readonly client: PublicClient) {}

  read(): Promise<BlockHead> {
    this.#inFlight ??= this.#fetch().finally(() => (this.#inFlight = undefined));
    return this.#inFlight;
  }

  async #fetch(): Promise<BlockHead> {
    const block = await this.client.getBlock({ blockTag: "latest" });
    return { number: block.number, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp, baseFeePerGas: block.baseFeePerGas ?? 0n };
  }
}
