import { encodeFunctionData, type Address, type Hex } from "viem";
import { allowanceHolderAbi } from "../abis/allowanceHolderAbi";
import { gaslessSwapRouterAbi } from "../abis/gaslessSwapRouterAbi";
import { takerSwapRouterAbi } from "../abis/takerSwapRouterAbi";
import { bytesArgumentOffset, SIGNATURE_PLACEHOLDER } from "./signaturePlaceholder";
import type { SwapOrder } from "./swapOrder";

/** Calldata that still needs the taker's signature at `signatureOffset`. */
export type UnsignedCalldata = { data: Hex; signatureOffset: number };

/** `swapWithPermit(order, nonce, placeholder)` for the feature-2 router (permit settlement). */
export function encodeSwapWithPermit(order: SwapOrder, nonce: bigint): UnsignedCalldata {
  const data = encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithPermit", args: [order, nonce, SIGNATURE_PLACEHOLDER] });
  return { data, signatureOffset: bytesArgumentOffset(data, 2) };
}

/** `swapNative(order)` for the feature-2 router; send it with value = order.sellAmount. */
export function encodeSwapNative(order: SwapOrder): Hex {
  return encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapNative", args: [order] });
}

/**
 * Allowance settlement: the taker calls the allowance holder, which lends `router` a transient
 * allowance of exactly the order's sell amount for one `swapWithAllowance` call. The transaction's
 * `to` is the allowance holder, the contract the taker approved.
 */
export function encodeSwapWithAllowance(order: SwapOrder, router: Address): Hex {
  const inner = encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [order] });
  return encodeFunctionData({ abi: allowanceHolderAbi, functionName: "exec", args: [router, inner] });
}

/** `swapGasless(order, taker, relayerFee, nonce, placeholder)` for the feature-3 router. */
export function encodeSwapGasless(order: SwapOrder, taker: Address, relayerFee: bigint, nonce: bigint): UnsignedCalldata {
  const data = encodeFunctionData({
    abi: gaslessSwapRouterAbi,
    functionName: "swapGasless",
    args: [order, taker, relayerFee, nonce, SIGNATURE_PLACEHOLDER],
  });
  return { data, signatureOffset: bytesArgumentOffset(data, 4) };
}
