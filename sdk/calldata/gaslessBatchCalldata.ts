import { concatHex, encodeAbiParameters, getAbiItem, toFunctionSelector, type Address, type Hex } from "viem";
import { gaslessBatchSwapRouterAbi } from "../abis/gaslessBatchSwapRouterAbi";
import { gaslessSwapRouterAbi } from "../abis/gaslessSwapRouterAbi";
import { BatchGasLimitsError, BatchSizeError, GaslessCalldataError } from "../errors/calldata";
import { BATCH_ORDER_GAS } from "../relay/batchGasLimit";
import { normaliseSignature } from "./patchSignature";
import type { SwapOrder } from "./swapOrder";
import { errorSummary } from "../errors/errorSummary";
import { functionDataDecoder } from "./functionDataDecoder";

/** The router's MAX_BATCH_ORDERS: a longer batch is refused on chain with SwapBatchSize. */
export const MAX_GASLESS_BATCH_ORDERS = 64;

/** One signed gasless order: the arguments of `swapGasless`, as a batch lists them (IGaslessBatchSwapRouter.GaslessOrder). */
export type SignedGaslessOrder = {
  params: SwapOrder;
  taker: Address;
  relayerFee: bigint;
  relayerFeeRecipient: Address;
  /** The Permit2 nonce the taker signed. */
  nonce: bigint;
  /** The taker's 65-byte signature. */
  signature: Hex;
};

const swapGaslessBatch = getAbiItem({ abi: gaslessBatchSwapRouterAbi, name: "swapGaslessBatch" });
const batchSelector = toFunctionSelector(swapGaslessBatch);
const decodeSwapRouterCall = functionDataDecoder(gaslessSwapRouterAbi);

/**
 * `swapGaslessBatch(orders, gasLimits)` for a feature-3 router of the batch version: it settles every
 * order that can settle and skips (GaslessOrderSkipped) the others, paying each settled order's own
 * signed fee. `gasLimits[i]` is the most gas order `i` may use (at most BATCH_ORDER_GAS): an order that
 * burns it is skipped and the next still gets its own; a relayer gives each its share of its single-swap
 * limit (`batchOrderGasCap`).
 *
 * @example encodeSwapGaslessBatch(relays.map((relay) => decodeSwapGasless(relay.data)), caps)
 */
export function encodeSwapGaslessBatch(orders: readonly SignedGaslessOrder[], gasLimits: readonly bigint[]): Hex {
  if (orders.length === 0 || orders.length > MAX_GASLESS_BATCH_ORDERS) throw new BatchSizeError(orders.length, MAX_GASLESS_BATCH_ORDERS);
  if (gasLimits.length !== orders.length || gasLimits.some((limit) => limit < 0n || limit > BATCH_ORDER_GAS)) throw new BatchGasLimitsError(orders.length, gasLimits, BATCH_ORDER_GAS);
  const encoded = orders.map((order) => ({ ...order, signature: normaliseSignature(order.signature) }));
  return concatHex([batchSelector, encodeAbiParameters(swapGaslessBatch.inputs, [encoded, gasLimits])]);
}

/**
 * The order inside signed `swapGasless` calldata (a gasless quote's tx.data with the signature patched
 * in), ready for `encodeSwapGaslessBatch`. Throws GaslessCalldataError for any other calldata.
 */
export function decodeSwapGasless(data: Hex): SignedGaslessOrder {
  let decoded;
  try {
    decoded = decodeSwapRouterCall(data);
  } catch (error) {
    throw new GaslessCalldataError(errorSummary(error));
  }
  if (decoded.functionName !== "swapGasless") throw new GaslessCalldataError(`it calls ${decoded.functionName}`);
  const [params, taker, relayerFee, relayerFeeRecipient, nonce, signature] = decoded.args;
  return { params: { ...params }, taker, relayerFee, relayerFeeRecipient, nonce, signature: normaliseSignature(signature) };
}
