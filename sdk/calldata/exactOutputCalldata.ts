import { concatHex, encodeAbiParameters, getAbiItem, toFunctionSelector, type Address, type Hex } from "viem";
import { allowanceHolderAbi } from "../abis/allowanceHolderAbi";
import { gaslessExactOutputRouterAbi } from "../abis/gaslessExactOutputRouterAbi";
import { takerExactOutputRouterAbi } from "../abis/takerExactOutputRouterAbi";
import { bytesArgumentOffset, SIGNATURE_PLACEHOLDER } from "./signaturePlaceholder";
import type { ExactOutputOrder } from "./exactOutputOrder";
import type { UnsignedCalldata } from "./swapCalldata";
import type { RelayerFee } from "../typedData/permit2Witness";

const withPermit = getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputWithPermit" });
const native = getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputNative" });
const withAllowance = getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputWithAllowance" });
const gasless = getAbiItem({ abi: gaslessExactOutputRouterAbi, name: "swapGaslessExactOutput" });
const exec = getAbiItem({ abi: allowanceHolderAbi, name: "exec" });

/** The exact-output entry points' selectors, hashed once (these encoders sit on the quote path). */
export const exactOutputSelector = {
  swapExactOutputWithPermit: toFunctionSelector(withPermit),
  swapExactOutputNative: toFunctionSelector(native),
  swapExactOutputWithAllowance: toFunctionSelector(withAllowance),
  swapGaslessExactOutput: toFunctionSelector(gasless),
  exec: toFunctionSelector(exec),
} as const;

/** `swapExactOutputWithPermit(order, nonce, placeholder)`: the taker signs `maxSellAmount`, the router pulls what the route needs. */
export function encodeSwapExactOutputWithPermit(order: ExactOutputOrder, nonce: bigint): UnsignedCalldata {
  const data = concatHex([exactOutputSelector.swapExactOutputWithPermit, encodeAbiParameters(withPermit.inputs, [order, nonce, SIGNATURE_PLACEHOLDER])]);
  return { data, signatureOffset: bytesArgumentOffset(data, 2) };
}

/** `swapExactOutputNative(order)`; send it with value = order.maxSellAmount, the unspent part comes back. */
export function encodeSwapExactOutputNative(order: ExactOutputOrder): Hex {
  return concatHex([exactOutputSelector.swapExactOutputNative, encodeAbiParameters(native.inputs, [order])]);
}

/**
 * Allowance settlement of an exact-output order: the taker calls the allowance holder, which lets
 * `router` draw at most `maxSellAmount` of the taker's sell token during this call only.
 */
export function encodeSwapExactOutputWithAllowance(order: ExactOutputOrder, router: Address): Hex {
  const inner = concatHex([exactOutputSelector.swapExactOutputWithAllowance, encodeAbiParameters(withAllowance.inputs, [order])]);
  return concatHex([exactOutputSelector.exec, encodeAbiParameters(exec.inputs, [router, inner])]);
}

/** `swapGaslessExactOutput(order, taker, relayerFee, relayerFeeRecipient, nonce, placeholder)` for the feature-3 router. */
export function encodeSwapGaslessExactOutput(order: ExactOutputOrder, taker: Address, fee: RelayerFee, nonce: bigint): UnsignedCalldata {
  const data = concatHex([
    exactOutputSelector.swapGaslessExactOutput,
    encodeAbiParameters(gasless.inputs, [order, taker, fee.relayerFee, fee.relayerFeeRecipient, nonce, SIGNATURE_PLACEHOLDER]),
  ]);
  return { data, signatureOffset: bytesArgumentOffset(data, 5) };
}
