import { encodeFunctionData, toFunctionSelector, type AbiFunction, type Address, type Hex } from "viem";
import { SwapCalldataError } from "../errors/calldata";
import { ALLOWANCE_HOLDER_EXEC, EXACT_INPUT, EXACT_OUTPUT, type OrderKind } from "../orders/orderKinds";
import type { ExactOutputOrder } from "./exactOutputOrder";
import { bytesArgumentOffset } from "./signaturePlaceholder";
import { functionDataDecoder } from "./functionDataDecoder";
import type { SwapOrder } from "./swapOrder";

/** The router calls a quote's `tx.data` can be, one per settlement mode, for an order kind's `Order`. */
export type SettlementCall<Order> =
  /** Feature 2, permit settlement: the kind's permit entry `(order, nonce, signature)`; Permit2's owner is the sender. */
  | { kind: "permit"; order: Order; nonce: bigint; signature: Hex; signatureOffset: number }
  /** Feature 3: the kind's gasless entry `(order, taker, relayerFee, relayerFeeRecipient, nonce, signature)`. */
  | { kind: "gasless"; order: Order; taker: Address; relayerFee: bigint; relayerFeeRecipient: Address; nonce: bigint; signature: Hex; signatureOffset: number }
  /** Feature 2, native sell: the kind's native entry `(order)`, its permitted amount as value. */
  | { kind: "native"; order: Order }
  /** Allowance settlement: the holder's `exec(operator, <the kind's allowance entry>(order))`. */
  | { kind: "allowance"; order: Order; operator: Address };

export type QuoteCall = SettlementCall<SwapOrder>;
export type ExactOutputQuoteCall = SettlementCall<ExactOutputOrder>;
export type QuoteCallKind = QuoteCall["kind"];

type Kind<Order> = OrderKind<Order, unknown, unknown, unknown>;

/** What each settlement mode's function of `kind` is called, for errors. */
export function settlementFunctionNames(kind: Pick<Kind<never>, "functions">): Record<QuoteCallKind, string> {
  const { permit, gasless, native, allowance } = kind.functions;
  return { permit: permit.name, gasless: gasless.name, native: native.name, allowance: `exec(operator, ${allowance.name})` };
}
export const quoteCallFunction = settlementFunctionNames(EXACT_INPUT);
export const exactOutputCallFunction = settlementFunctionNames(EXACT_OUTPUT);

/** Functions a calldata may call, with their decoder (selectors hashed once, per order kind). */
type CallDecoder = { abi: readonly AbiFunction[]; decode: (data: Hex) => { functionName: string; args?: readonly unknown[] } };
const callDecoders = new WeakMap<object, { outer: CallDecoder; inner: CallDecoder }>();

function callDecoder(abi: readonly AbiFunction[]): CallDecoder {
  return { abi, decode: functionDataDecoder(abi) };
}

/** The decoders of `kind`'s settlement calls: the router's entries (and the holder's exec), and the call inside exec. */
function decodersOf(kind: Kind<unknown>): { outer: CallDecoder; inner: CallDecoder } {
  let decoders = callDecoders.get(kind);
  if (decoders === undefined) {
    const { permit, gasless, native, allowance } = kind.functions;
    decoders = { outer: callDecoder([permit, native, gasless, ALLOWANCE_HOLDER_EXEC]), inner: callDecoder([allowance]) };
    callDecoders.set(kind, decoders);
  }
  return decoders;
}

function decode({ abi, decode: decodeCall }: CallDecoder, data: Hex, what: string): { functionName: string; args: readonly unknown[] } {
  let decoded;
  try {
    decoded = decodeCall(data);
  } catch (cause) {
    const known = abi.map((item) => `${item.name} (${toFunctionSelector(item)})`).join(", ");
    throw new SwapCalldataError(`${what} does not decode as ${known}: its selector is ${data.slice(0, 10)}`, cause);
  }
  // Solidity's decoder follows offsets, so other bytes could carry other values than the ones read
  // here; only the encoding viem would produce is accepted.
  const canonical = encodeFunctionData({ abi, functionName: decoded.functionName, args: decoded.args } as Parameters<typeof encodeFunctionData>[0]);
  if (canonical.toLowerCase() !== data.toLowerCase()) throw new SwapCalldataError(`${what} (${decoded.functionName}) is not in canonical ABI encoding`);
  return { functionName: decoded.functionName, args: decoded.args ?? [] };
}

function orderOf<Order>(params: unknown): Order {
  const order = params as { actions: Hex; quoteId: Hex };
  return { ...order, actions: order.actions.toLowerCase() as Hex, quoteId: order.quoteId.toLowerCase() as Hex } as Order;
}

/**
 * Decodes a quote's `tx.data` into the router call of `kind` it makes and the order it carries, refusing
 * (SwapCalldataError) any other function, another kind's, and any calldata not in canonical ABI encoding.
 */
export function decodeSettlementCall<Order>(kind: Kind<Order>, data: Hex): SettlementCall<Order> {
  const { permit, gasless, native } = kind.functions;
  const decoders = decodersOf(kind as Kind<unknown>);
  const outer = decode(decoders.outer, data, "tx.data");
  const args = outer.args;
  switch (outer.functionName) {
    case permit.name:
      return { kind: "permit", order: orderOf(args[0]), nonce: args[1] as bigint, signature: args[2] as Hex, signatureOffset: bytesArgumentOffset(data, 2) };
    case gasless.name:
      return {
        kind: "gasless",
        order: orderOf(args[0]),
        taker: args[1] as Address,
        relayerFee: args[2] as bigint,
        relayerFeeRecipient: args[3] as Address,
        nonce: args[4] as bigint,
        signature: args[5] as Hex,
        signatureOffset: bytesArgumentOffset(data, 5),
      };
    case native.name:
      return { kind: "native", order: orderOf(args[0]) };
    default: {
      const inner = decode(decoders.inner, args[1] as Hex, "the router call inside tx.data's exec");
      return { kind: "allowance", order: orderOf(inner.args[0]), operator: args[0] as Address };
    }
  }
}

/**
 * decodeSettlementCall(EXACT_INPUT, data): the exact-input router call in a quote's `tx.data`.
 *
 * @example const call = decodeQuoteOrder(quote.tx.data); if (call.kind === "permit") call.order.recipient;
 */
export const decodeQuoteOrder = (data: Hex): QuoteCall => decodeSettlementCall(EXACT_INPUT, data);

/** decodeSettlementCall(EXACT_OUTPUT, data): the exact-output router call in a quote's `tx.data`. */
export const decodeExactOutputQuoteOrder = (data: Hex): ExactOutputQuoteCall => decodeSettlementCall(EXACT_OUTPUT, data);
