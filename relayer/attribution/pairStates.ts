import { parseAbiItem, type Address, type PublicClient } from "viem";
import { uniswapV2PairAbi, type PairReserves } from "../../sdk";

const syncEvent = parseAbiItem("event Sync(uint112 reserve0, uint112 reserve1)");

/** Where in its block an order ran: its transaction, and for a batch member the log its skip emitted. */
export type BlockPosition = Readonly<{ blockNumber: bigint; transactionIndex: number; logIndex?: number | undefined }>;

/** Each pair's token0 and reserves at the end of `blockNumber`, by lowercase address. */
export async function pairStatesAt(client: PublicClient, pairs: readonly Address[], blockNumber: bigint): Promise<Map<string, PairReserves>> {
  const read = await Promise.all(
    pairs.map(async (pair) => {
      const [[reserve0, reserve1], token0] = await Promise.all([
        client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves", blockNumber }),
        client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0", blockNumber }),
      ]);
      return [pair.toLowerCase(), { token0, reserve0, reserve1 }] as const;
    }),
  );
  return new Map(read);
}

/**
 * The `Sync` events `pairs` emitted in the order's block before it (an earlier transaction's, or an
 * earlier batch member's in the same transaction), in log order. The pairs' own events: nothing the
 * taker's code can write.
 */
export async function syncsBefore(client: PublicClient, pairs: readonly Address[], position: BlockPosition) {
  if (pairs.length === 0) return [];
  const logs = await client.getLogs({ address: [...pairs], event: syncEvent, strict: true, fromBlock: position.blockNumber, toBlock: position.blockNumber });
  return logs.filter((log) => isBefore(log, position)).sort((a, b) => a.logIndex! - b.logIndex!);
}

/** Whether a mined log of the order's block came before the order at `position` (an earlier transaction's, or an earlier batch member's). */
export function isBefore(log: Readonly<{ removed: boolean; transactionIndex: number | null; logIndex: number | null }>, position: BlockPosition): boolean {
  if (log.removed || log.transactionIndex === null || log.logIndex === null) return false;
  return log.transactionIndex < position.transactionIndex || (log.transactionIndex === position.transactionIndex && position.logIndex !== undefined && log.logIndex < position.logIndex);
}

/**
 * The log indexes of every log `addresses` emitted in the order's block before it, whatever the event:
 * the contracts' own logs, which nothing the taker's code writes.
 */
export async function logIndexesBefore(client: PublicClient, addresses: readonly Address[], position: BlockPosition): Promise<Set<number>> {
  if (addresses.length === 0) return new Set();
  const logs = await client.getLogs({ address: [...addresses], fromBlock: position.blockNumber, toBlock: position.blockNumber });
  return new Set(logs.filter((log) => isBefore(log, position)).map((log) => log.logIndex!));
}

/** The reserves each pair held when the order at `position` ran: its last `Sync` before it in that block (`syncsBefore`), else the parent block's. */
export async function pairStatesMet(client: PublicClient, atParent: ReadonlyMap<string, PairReserves>, position: BlockPosition): Promise<Map<string, PairReserves>> {
  const met = new Map(atParent);
  for (const log of await syncsBefore(client, [...atParent.keys()] as Address[], position)) {
    const pair = log.address.toLowerCase();
    const state = met.get(pair);
    if (state !== undefined) met.set(pair, { ...state, reserve0: log.args.reserve0, reserve1: log.args.reserve1 });
  }
  return met;
}
