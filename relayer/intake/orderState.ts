import { getAbiItem, parseEventLogs, type Address, type Hex, type PublicClient } from "viem";
import { gaslessSwapRouterAbi, permit2Abi } from "../../sdk";
import type { RelayRecord } from "../store/relayStore";

/** Whether the taker's Permit2 nonce of this order is spent (by our fill, a copier's, or anything else). */
export async function isPermit2NonceUsed(client: PublicClient, permit2: Address, relay: Pick<RelayRecord, "taker" | "permit2Nonce">): Promise<boolean> {
  const word = relay.permit2Nonce >> 8n;
  const bit = 1n << (relay.permit2Nonce & 0xffn);
  const bitmap = await client.readContract({ address: permit2, abi: permit2Abi, functionName: "nonceBitmap", args: [relay.taker, word] });
  return (bitmap & bit) !== 0n;
}

const swapSettled = getAbiItem({ abi: gaslessSwapRouterAbi, name: "SwapSettled" });

export type Fill = { hash: Hex; from: Address; nonce: number; blockNumber: bigint };

/**
 * The transaction that filled this order, found by its SwapSettled event from the block the relay
 * was accepted in: ours, or a copier's that landed first. The quote id alone proves nothing (it is
 * public once broadcast, and anyone may settle an order of their own carrying it): the event must
 * name the relay's taker, and the taker's Permit2 nonce of this order must be spent. Only the
 * taker's signature over this order can do both.
 */
export async function findFill(
  client: PublicClient,
  permit2: Address,
  relay: Pick<RelayRecord, "router" | "onchainQuoteId" | "acceptedBlock" | "taker" | "permit2Nonce">,
): Promise<Fill | undefined> {
  const logs = await client.getLogs({
    address: relay.router,
    event: swapSettled,
    args: { quoteId: relay.onchainQuoteId, taker: relay.taker },
    fromBlock: relay.acceptedBlock,
    toBlock: "latest",
  });
  const settled = parseEventLogs({ abi: [swapSettled], logs }).find(
    (log) => log.args.taker.toLowerCase() === relay.taker.toLowerCase() && log.args.quoteId.toLowerCase() === relay.onchainQuoteId.toLowerCase(),
  );
  if (settled === undefined || !(await isPermit2NonceUsed(client, permit2, relay))) return undefined;
  const transaction = await client.getTransaction({ hash: settled.transactionHash });
  return { hash: settled.transactionHash, from: transaction.from, nonce: transaction.nonce, blockNumber: settled.blockNumber };
}
