import type { Hex } from "viem";

/** Either one block by hash (a node answers only from that block), or a range of numbers. */
export type LogWindow = Readonly<{ blockHash: Hex } | { fromBlock: bigint; toBlock: bigint }>;

/** Where a log sits on the chain: what orders events and ties them to the block they came in. */
export type LogPosition = Readonly<{ blockNumber: bigint; blockHash: Hex; logIndex: number }>;

/** A mined log's position; undefined for a pending or removed one, which state must not absorb. */
export function logPosition(log: { blockNumber: bigint | null; blockHash: Hex | null; logIndex: number | null; removed: boolean }): LogPosition | undefined {
  if (log.blockHash === null || log.blockNumber === null || log.logIndex === null || log.removed) return undefined;
  return { blockNumber: log.blockNumber, blockHash: log.blockHash, logIndex: log.logIndex };
}

/** Sort comparator putting events in chain order (block, then log index). */
export function chainOrder(a: LogPosition, b: LogPosition): number {
  return a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;
}
