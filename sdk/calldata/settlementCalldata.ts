import { concatHex, encodeAbiParameters, toFunctionSelector, type Address, type Hex } from "viem";
import { ALLOWANCE_HOLDER_EXEC, EXACT_INPUT, EXACT_OUTPUT, type OrderKind, type SettlementFunctions } from "../orders/orderKinds";
import type { RelayerFee } from "../typedData/permit2Witness";
import type { ExactOutputOrder } from "./exactOutputOrder";
import { bytesArgumentOffset, SIGNATURE_PLACEHOLDER } from "./signaturePlaceholder";
import type { SwapOrder } from "./swapOrder";

/** Calldata that still needs the taker's signature at `signatureOffset`. */
export type UnsignedCalldata = { data: Hex; signatureOffset: number };

type Kind<Order> = OrderKind<Order, unknown, unknown, unknown>;

// Selectors are hashed once per function rather than on every call: these encoders sit on the quote path.
const selectors = new WeakMap<SettlementFunctions, Record<keyof SettlementFunctions, Hex>>();
function selectorsOf(functions: SettlementFunctions): Record<keyof SettlementFunctions, Hex> {
  let known = selectors.get(functions);
  if (known === undefined) {
    known = { permit: toFunctionSelector(functions.permit), native: toFunctionSelector(functions.native), allowance: toFunctionSelector(functions.allowance), gasless: toFunctionSelector(functions.gasless) };
    selectors.set(functions, known);
  }
  return known;
}
const execSelector = toFunctionSelector(ALLOWANCE_HOLDER_EXEC);

/** The kind's permit entry `(order, nonce, placeholder)` for the feature-2 router (permit settlement). */
export function encodePermitCall<Order>(kind: Kind<Order>, order: Order, nonce: bigint): UnsignedCalldata {
  const data = concatHex([selectorsOf(kind.functions).permit, encodeAbiParameters(kind.functions.permit.inputs, [order, nonce, SIGNATURE_PLACEHOLDER])]);
  return { data, signatureOffset: bytesArgumentOffset(data, 2) };
}

/** The kind's native entry `(order)`; sent with the kind's permitted amount as value (exact output refunds the rest). */
export function encodeNativeCall<Order>(kind: Kind<Order>, order: Order): Hex {
  return concatHex([selectorsOf(kind.functions).native, encodeAbiParameters(kind.functions.native.inputs, [order])]);
}

/**
 * Allowance settlement: the taker calls the allowance holder (the contract it approved; no value), which
 * lets `router` draw the taker's sell token during this call only and calls the kind's allowance entry.
 */
export function encodeAllowanceCall<Order>(kind: Kind<Order>, order: Order, router: Address): Hex {
  const inner = concatHex([selectorsOf(kind.functions).allowance, encodeAbiParameters(kind.functions.allowance.inputs, [order])]);
  return concatHex([execSelector, encodeAbiParameters(ALLOWANCE_HOLDER_EXEC.inputs, [router, inner])]);
}

/** The kind's gasless entry `(order, taker, relayerFee, relayerFeeRecipient, nonce, placeholder)` for the feature-3 router. */
export function encodeGaslessCall<Order>(kind: Kind<Order>, order: Order, taker: Address, fee: RelayerFee, nonce: bigint): UnsignedCalldata {
  const args = [order, taker, fee.relayerFee, fee.relayerFeeRecipient, nonce, SIGNATURE_PLACEHOLDER];
  const data = concatHex([selectorsOf(kind.functions).gasless, encodeAbiParameters(kind.functions.gasless.inputs, args)]);
  return { data, signatureOffset: bytesArgumentOffset(data, 5) };
}

// The names integrators know, one per kind and mode.
export const encodeSwapWithPermit = (order: SwapOrder, nonce: bigint) => encodePermitCall(EXACT_INPUT, order, nonce);
export const encodeSwapNative = (order: SwapOrder) => encodeNativeCall(EXACT_INPUT, order);
export const encodeSwapWithAllowance = (order: SwapOrder, router: Address) => encodeAllowanceCall(EXACT_INPUT, order, router);
export const encodeSwapGasless = (order: SwapOrder, taker: Address, fee: RelayerFee, nonce: bigint) => encodeGaslessCall(EXACT_INPUT, order, taker, fee, nonce);
export const encodeSwapExactOutputWithPermit = (order: ExactOutputOrder, nonce: bigint) => encodePermitCall(EXACT_OUTPUT, order, nonce);
export const encodeSwapExactOutputNative = (order: ExactOutputOrder) => encodeNativeCall(EXACT_OUTPUT, order);
export const encodeSwapExactOutputWithAllowance = (order: ExactOutputOrder, router: Address) => encodeAllowanceCall(EXACT_OUTPUT, order, router);
export const encodeSwapGaslessExactOutput = (order: ExactOutputOrder, taker: Address, fee: RelayerFee, nonce: bigint) => encodeGaslessCall(EXACT_OUTPUT, order, taker, fee, nonce);

/** The exact-output entry points' selectors. */
export const exactOutputSelector = {
  swapExactOutputWithPermit: selectorsOf(EXACT_OUTPUT.functions).permit,
  swapExactOutputNative: selectorsOf(EXACT_OUTPUT.functions).native,
  swapExactOutputWithAllowance: selectorsOf(EXACT_OUTPUT.functions).allowance,
  swapGaslessExactOutput: selectorsOf(EXACT_OUTPUT.functions).gasless,
  exec: execSelector,
} as const;
