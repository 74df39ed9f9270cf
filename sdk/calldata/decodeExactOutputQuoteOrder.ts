import { decodeFunctionData, encodeFunctionData, getAbiItem, toFunctionSelector, type Address, type Hex } from "viem";
import { allowanceHolderAbi } from "../abis/allowanceHolderAbi";
import { gaslessExactOutputRouterAbi } from "../abis/gaslessExactOutputRouterAbi";
import { takerExactOutputRouterAbi } from "../abis/takerExactOutputRouterAbi";
import { SwapCalldataError } from "../errors/calldata";
import type { ExactOutputOrder } from "./exactOutputOrder";
import { bytesArgumentOffset } from "./signaturePlaceholder";

/** The router calls an exact-output quote's `tx.data` can be, one per settlement mode (as QuoteCall for exact input). */
export type ExactOutputQuoteCall =
  /** Feature 2, permit settlement: `swapExactOutputWithPermit(order, nonce, signature)`. */
  | { kind: "permit"; order: ExactOutputOrder; nonce: bigint; signature: Hex; signatureOffset: number }
  /** Feature 3: `swapGaslessExactOutput(order, taker, relayerFee, relayerFeeRecipient, nonce, signature)`. */
  | { kind: "gasless"; order: ExactOutputOrder; taker: Address; relayerFee: bigint; relayerFeeRecipient: Address; nonce: bigint; signature: Hex; signatureOffset: number }
  /** Feature 2, native sell: `swapExactOutputNative(order)` with the maximum input as value (the rest is refunded). */
  | { kind: "native"; order: ExactOutputOrder }
  /** Allowance settlement: the holder's `exec(operator, swapExactOutputWithAllowance(order))`. */
  | { kind: "allowance"; order: ExactOutputOrder; operator: Address };

/** What each kind's function is called, for errors. */
export const exactOutputCallFunction: Record<ExactOutputQuoteCall["kind"], string> = {
  permit: "swapExactOutputWithPermit",
  gasless: "swapGaslessExactOutput",
  native: "swapExactOutputNative",
  allowance: "exec(operator, swapExactOutputWithAllowance)",
};

const outerAbi = [
  getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputWithPermit" }),
  getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputNative" }),
  getAbiItem({ abi: gaslessExactOutputRouterAbi, name: "swapGaslessExactOutput" }),
  getAbiItem({ abi: allowanceHolderAbi, name: "exec" }),
] as const;
const innerAbi = [getAbiItem({ abi: takerExactOutputRouterAbi, name: "swapExactOutputWithAllowance" })] as const;

function decode<const Abi extends typeof outerAbi | typeof innerAbi>(abi: Abi, data: Hex, what: string) {
  let decoded;
  try {
    decoded = decodeFunctionData({ abi, data });
  } catch (cause) {
    const known = abi.map((item) => `${item.name} (${toFunctionSelector(item)})`).join(", ");
    throw new SwapCalldataError(`${what} does not decode as ${known}: its selector is ${data.slice(0, 10)}`, cause);
  }
  // Only the encoding viem would produce is accepted: other bytes could carry other values.
  const canonical = encodeFunctionData({ abi, functionName: decoded.functionName, args: decoded.args } as Parameters<typeof encodeFunctionData>[0]);
  if (canonical.toLowerCase() !== data.toLowerCase()) throw new SwapCalldataError(`${what} (${decoded.functionName}) is not in canonical ABI encoding`);
  return decoded;
}

function orderOf(params: ExactOutputOrder): ExactOutputOrder {
  return { ...params, actions: params.actions.toLowerCase() as Hex, quoteId: params.quoteId.toLowerCase() as Hex };
}

/**
 * Decodes an exact-output quote's `tx.data` into the router call it makes and the order it carries,
 * refusing (SwapCalldataError) any other function and any non-canonical encoding.
 *
 * @example const call = decodeExactOutputQuoteOrder(quote.tx.data); call.order.maxSellAmount;
 */
export function decodeExactOutputQuoteOrder(data: Hex): ExactOutputQuoteCall {
  const outer = decode(outerAbi, data, "tx.data");
  switch (outer.functionName) {
    case "swapExactOutputWithPermit": {
      const [order, nonce, signature] = outer.args;
      return { kind: "permit", order: orderOf(order), nonce, signature, signatureOffset: bytesArgumentOffset(data, 2) };
    }
    case "swapGaslessExactOutput": {
      const [order, taker, relayerFee, relayerFeeRecipient, nonce, signature] = outer.args;
      return { kind: "gasless", order: orderOf(order), taker, relayerFee, relayerFeeRecipient, nonce, signature, signatureOffset: bytesArgumentOffset(data, 5) };
    }
    case "swapExactOutputNative":
      return { kind: "native", order: orderOf(outer.args[0]) };
    case "exec": {
      const [operator, inner] = outer.args;
      const call = decode(innerAbi, inner, "the router call inside tx.data's exec");
      return { kind: "allowance", order: orderOf(call.args[0]), operator };
    }
  }
}
