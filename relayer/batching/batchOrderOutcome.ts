import { decodeErrorResult, getAbiItem, parseAbi, parseEventLogs, toEventSelector, type Hex, type Log, type TransactionReceipt } from "viem";
import { gaslessBatchSwapRouterAbi } from "../../sdk";
import type { RelayRecord } from "../store/relayStore";

/** Permit2's errors a skipped order may carry (SignatureTransfer and its signature check). */
const permit2Errors = parseAbi([
  "error InvalidNonce()",
  "error InvalidSigner()",
  "error InvalidSignature()",
  "error InvalidSignatureLength()",
  "error InvalidContractSignature()",
  "error SignatureExpired(uint256 signatureDeadline)",
  "error InsufficientAllowance(uint256 amount)",
]);
const skipErrors = [...gaslessBatchSwapRouterAbi.filter((item) => item.type === "error"), ...permit2Errors];

const swapSettled = getAbiItem({ abi: gaslessBatchSwapRouterAbi, name: "SwapSettled" });
const orderSkipped = getAbiItem({ abi: gaslessBatchSwapRouterAbi, name: "GaslessOrderSkipped" });
const SWAP_SETTLED = toEventSelector(swapSettled);
const ORDER_SKIPPED = toEventSelector(orderSkipped);

export type BatchOrderOutcome =
  | { kind: "settled" }
  /**
   * Skipped at `logIndex` (its GaslessOrderSkipped log) with `reason`, decoded for people to read
   * only: a taker's wallet chooses those bytes, so nothing is decided from them (see attribution/).
   */
  | { kind: "skipped"; reason: Hex; name: string; text: string; logIndex: number }
  /** Neither event names this relay at its position: the receipt is not of a batch carrying it. */
  | { kind: "absent" };

/** A skip's revert data, decoded against the router's and Permit2's errors (or `Error(string)`, `Panic`). */
export function describeSkipReason(reason: Hex): { name: string; text: string } {
  if (reason === "0x") return { name: "out_of_gas", text: "no revert data (the order ran out of its gas cap, or reverted without a reason)" };
  try {
    const decoded = decodeErrorResult({ abi: skipErrors, data: reason });
    const args = (decoded.args ?? []).map((arg) => String(arg)).join(", ");
    return { name: decoded.errorName, text: `${decoded.errorName}(${args})` };
  } catch {
    return { name: "unknown", text: `revert data ${reason.slice(0, 200)}` };
  }
}

/**
 * What a mined, successful batch transaction did with one of its relays: its quote's SwapSettled
 * naming its taker, or GaslessOrderSkipped at its position, read from the router's own logs.
 */
export function batchOrderOutcome(receipt: TransactionReceipt, relay: Pick<RelayRecord, "router" | "onchainQuoteId" | "taker">, position: number): BatchOrderOutcome {
  const router = relay.router.toLowerCase();
  const quoteId = relay.onchainQuoteId.toLowerCase();
  // Both events index the quote id first: only this relay's own logs are decoded (a batch's receipt
  // holds every member's, and each member's outcome is read from it).
  const own = (event: Hex) => (log: Log) => log.address.toLowerCase() === router && log.topics[0] === event && log.topics[1]?.toLowerCase() === quoteId;
  const settled = parseEventLogs({ abi: [swapSettled], logs: receipt.logs.filter(own(SWAP_SETTLED)) }).some((log) => log.args.taker.toLowerCase() === relay.taker.toLowerCase());
  if (settled) return { kind: "settled" };
  const skip = parseEventLogs({ abi: [orderSkipped], logs: receipt.logs.filter(own(ORDER_SKIPPED)) }).find((log) => log.args.index === BigInt(position));
  if (skip === undefined) return { kind: "absent" };
  const { name, text } = describeSkipReason(skip.args.reason);
  return { kind: "skipped", reason: skip.args.reason, name, text, logIndex: skip.logIndex };
}
