import { decodeFunctionData, encodeFunctionData, getAbiItem, toFunctionSelector, type Address, type Hex } from "viem";
import { allowanceHolderAbi } from "../abis/allowanceHolderAbi";
import { gaslessSwapRouterAbi } from "../abis/gaslessSwapRouterAbi";
import { takerSwapRouterAbi } from "../abis/takerSwapRouterAbi";
import { SwapCalldataError } from "../errors/calldata";
import { bytesArgumentOffset } from "./signaturePlaceholder";
import type { SwapOrder } from "./swapOrder";

/** The router calls a quote's `tx.data` can be, one per settlement mode. */
export type QuoteCall =
  /** Feature 2, permit settlement: `swapWithPermit(order, nonce, signature)`; Permit2's owner is the sender. */
  | { kind: "permit"; order: SwapOrder; nonce: bigint; signature: Hex; signatureOffset: number }
  /** Feature 3: `swapGasless(order, taker, relayerFee, relayerFeeRecipient, nonce, signature)`. */
  | { kind: "gasless"; order: SwapOrder; taker: Address; relayerFee: bigint; relayerFeeRecipient: Address; nonce: bigint; signature: Hex; signatureOffset: number }
  /** Feature 2, native sell: `swapNative(order)` with the sell amount as value. */
  | { kind: "native"; order: SwapOrder }
  /** Allowance settlement: the holder's `exec(operator, swapWithAllowance(order))`. */
  | { kind: "allowance"; order: SwapOrder; operator: Address };

export type QuoteCallKind = QuoteCall["kind"];

/** What each kind's function is called, for errors. */
export const quoteCallFunction: Record<QuoteCallKind, string> = {
  permit: "swapWithPermit",
  gasless: "swapGasless",
  native: "swapNative",
  allowance: "exec(operator, swapWithAllowance)",
};

const outerAbi = [
  getAbiItem({ abi: takerSwapRouterAbi, name: "swapWithPermit" }),
  getAbiItem({ abi: takerSwapRouterAbi, name: "swapNative" }),
  getAbiItem({ abi: gaslessSwapRouterAbi, name: "swapGasless" }),
  getAbiItem({ abi: allowanceHolderAbi, name: "exec" }),
] as const;
const innerAbi = [getAbiItem({ abi: takerSwapRouterAbi, name: "swapWithAllowance" })] as const;

function decode<const Abi extends typeof outerAbi | typeof innerAbi>(abi: Abi, data: Hex, what: string) {
  let decoded;
  try {
    decoded = decodeFunctionData({ abi, data });
  } catch (cause) {
    const selector = data.slice(0, 10);
    const known = abi.map((item) => `${item.name} (${toFunctionSelector(item)})`).join(", ");
    throw new SwapCalldataError(`${what} does not decode as ${known}: its selector is ${selector}`, cause);
  }
  // Solidity's decoder follows offsets, so other bytes could carry other values than the ones read
  // here; only the encoding viem would produce is accepted.
  const canonical = encodeFunctionData({ abi, functionName: decoded.functionName, args: decoded.args } as Parameters<typeof encodeFunctionData>[0]);
  if (canonical.toLowerCase() !== data.toLowerCase()) throw new SwapCalldataError(`${what} (${decoded.functionName}) is not in canonical ABI encoding`);
  return decoded;
}

function orderOf(params: SwapOrder): SwapOrder {
  return { ...params, actions: params.actions.toLowerCase() as Hex, quoteId: params.quoteId.toLowerCase() as Hex };
}

/**
 * Decodes a quote's `tx.data` into the router call it makes and the order it carries, refusing
 * (SwapCalldataError) any other function and any calldata that is not in canonical ABI encoding.
 *
 * @example const call = decodeQuoteOrder(quote.tx.data); if (call.kind === "permit") call.order.recipient;
 */
export function decodeQuoteOrder(data: Hex): QuoteCall {
  const outer = decode(outerAbi, data, "tx.data");
  switch (outer.functionName) {
    case "swapWithPermit": {
      const [order, nonce, signature] = outer.args;
      return { kind: "permit", order: orderOf(order), nonce, signature, signatureOffset: bytesArgumentOffset(data, 2) };
    }
    case "swapGasless": {
      const [order, taker, relayerFee, relayerFeeRecipient, nonce, signature] = outer.args;
      return { kind: "gasless", order: orderOf(order), taker, relayerFee, relayerFeeRecipient, nonce, signature, signatureOffset: bytesArgumentOffset(data, 5) };
    }
    case "swapNative":
      return { kind: "native", order: orderOf(outer.args[0]) };
    case "exec": {
      const [operator, inner] = outer.args;
      const call = decode(innerAbi, inner, "the router call inside tx.data's exec");
      return { kind: "allowance", order: orderOf(call.args[0]), operator };
    }
  }
}
