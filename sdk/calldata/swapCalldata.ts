import { concatHex, encodeAbiParameters, getAbiItem, toFunctionSelector, type Address, type Hex } from "viem";
import { allowanceHolderAbi } from "../abis/allowanceHolderAbi";
import { gaslessSwapRouterAbi } from "../abis/gaslessSwapRouterAbi";
import { takerSwapRouterAbi } from "../abis/takerSwapRouterAbi";
import { bytesArgumentOffset, SIGNATURE_PLACEHOLDER } from "./signaturePlaceholder";
import type { SwapOrder } from "./swapOrder";
import type { RelayerFee } from "../typedData/permit2Witness";

// Selectors are hashed once here rather than on every call: these encoders sit on the quote path.
const swapWithPermit = getAbiItem({ abi: takerSwapRouterAbi, name: "swapWithPermit" });
const swapNative = getAbiItem({ abi: takerSwapRouterAbi, name: "swapNative" });
const swapWithAllowance = getAbiItem({ abi: takerSwapRouterAbi, name: "swapWithAllowance" });
const swapGasless = getAbiItem({ abi: gaslessSwapRouterAbi, name: "swapGasless" });
const exec = getAbiItem({ abi: allowanceHolderAbi, name: "exec" });
const selector = {
  swapWithPermit: toFunctionSelector(swapWithPermit),
  swapNative: toFunctionSelector(swapNative),
  swapWithAllowance: toFunctionSelector(swapWithAllowance),
  swapGasless: toFunctionSelector(swapGasless),
  exec: toFunctionSelector(exec),
} as const;

/** Calldata that still needs the taker's signature at `signatureOffset`. */
export type UnsignedCalldata = { data: Hex; signatureOffset: number };

/** `swapWithPermit(order, nonce, placeholder)` for the feature-2 router (permit settlement). */
export function encodeSwapWithPermit(order: SwapOrder, nonce: bigint): UnsignedCalldata {
  const data = concatHex([selector.swapWithPermit, encodeAbiParameters(swapWithPermit.inputs, [order, nonce, SIGNATURE_PLACEHOLDER])]);
  return { data, signatureOffset: bytesArgumentOffset(data, 2) };
}

/** `swapNative(order)` for the feature-2 router; send it with value = order.sellAmount. */
export function encodeSwapNative(order: SwapOrder): Hex {
  return concatHex([selector.swapNative, encodeAbiParameters(swapNative.inputs, [order])]);
}

/**
 * Allowance settlement: the taker calls the allowance holder, which moves exactly the order's sell
 * amount of the taker's tokens to the route's first pair and then calls `router`'s
 * `swapWithAllowance`. The transaction's `to` is the allowance holder, the contract the taker
 * approved; it carries no value.
 */
export function encodeSwapWithAllowance(order: SwapOrder, router: Address): Hex {
  const inner = concatHex([selector.swapWithAllowance, encodeAbiParameters(swapWithAllowance.inputs, [order])]);
  return concatHex([selector.exec, encodeAbiParameters(exec.inputs, [router, inner])]);
}

/** `swapGasless(order, taker, relayerFee, relayerFeeRecipient, nonce, placeholder)` for the feature-3 router. */
export function encodeSwapGasless(order: SwapOrder, taker: Address, fee: RelayerFee, nonce: bigint): UnsignedCalldata {
  const data = concatHex([
    selector.swapGasless,
    encodeAbiParameters(swapGasless.inputs, [order, taker, fee.relayerFee, fee.relayerFeeRecipient, nonce, SIGNATURE_PLACEHOLDER]),
  ]);
  return { data, signatureOffset: bytesArgumentOffset(data, 5) };
}
