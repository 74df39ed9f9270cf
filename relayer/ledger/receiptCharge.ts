import type { TransactionReceipt } from "viem";
import { memberGasCap } from "../batching/batchBroadcast";
import type { RelayRecord, RelayTransaction } from "../store/relayStore";
import type { UnpaidGasEntry } from "./unpaidGas";

/** The ledger entry's facts from a mined receipt of ours for one relay: its gas and the price paid. */
export function unpaidGasOfReceipt(relay: Pick<RelayRecord, "id" | "taker" | "integratorId">, receipt: TransactionReceipt, at: Date): Pick<UnpaidGasEntry, "relayId" | "taker" | "integratorId" | "gasUsed" | "gasPrice" | "txHash" | "at"> {
  return { relayId: relay.id, taker: relay.taker, integratorId: relay.integratorId, gasUsed: receipt.gasUsed, gasPrice: receipt.effectiveGasPrice, txHash: receipt.transactionHash, at };
}

/**
 * The gas a skipped batch member is charged. The router reports no gas per order (GaslessOrderSkipped
 * carries the quote, the index and the reason), and a receipt has only the batch's total, so the
 * member is charged the cap it was given (`memberGasCap`, its share of its own single-swap limit):
 * what it may have burnt at most, the bound its fee was priced on. A cheap skip is charged more than
 * it burnt; charging less would let a wallet that burns its whole cap go partly uncounted. Never more
 * than the whole transaction used.
 */
export function batchSkipGas(relay: Pick<RelayRecord, "data" | "estimatedGas">, receipt: Pick<TransactionReceipt, "gasUsed">): bigint {
  const cap = memberGasCap(relay);
  return cap < receipt.gasUsed ? cap : receipt.gasUsed;
}

/**
 * A relay's share of a mined transaction that it did not settle: all of it for a transaction of its
 * own, an even share (rounded up) for one that carried a batch, whose members are each charged theirs
 * (a cancel replacing a whole batch frees one nonce for all of them).
 */
export function sharedGas(receipt: Pick<TransactionReceipt, "gasUsed">, mined: Pick<RelayTransaction, "batch">): bigint {
  const size = BigInt(mined.batch?.size ?? 1);
  return (receipt.gasUsed + size - 1n) / size;
}
