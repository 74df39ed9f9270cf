import type { Address, Hex } from "viem";
import {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  buildGaslessPermitTypedData,
  buildSwapPermitTypedData,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapExactOutputWithPermit,
  encodeSwapGasless,
  encodeSwapGaslessExactOutput,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  type ExactOutputOrder,
  type SwapOrder,
} from "../../../sdk";

type RelayerFee = { relayerFee: bigint; relayerFeeRecipient: Address };
type PermitPlace = { chainId: number; permit2: Address; router: Address; nonce: bigint };

/** The Permit2 typed data a quote's taker signs, in any of the four witness types. */
export type QuotePermitTypedData =
  | ReturnType<typeof buildSwapPermitTypedData>
  | ReturnType<typeof buildGaslessPermitTypedData>
  | ReturnType<typeof buildExactOutputPermitTypedData>
  | ReturnType<typeof buildGaslessExactOutputPermitTypedData>;

/**
 * How one order becomes calldata and typed data in each settlement mode: the exact-input entry points
 * (`swapWithPermit`, …) for a SwapOrder, the exact-output ones (`swapExactOutputWithPermit`, …) for an
 * ExactOutputOrder. `maxInput` is what the taker may be debited before any relayer fee: the sell amount,
 * or the maximum input; the permit signs it, a native swap sends it as value.
 */
export type OrderEncoding = Readonly<{
  maxInput: bigint;
  permit: (nonce: bigint) => { data: Hex; signatureOffset: number };
  gasless: (taker: Address, fee: RelayerFee, nonce: bigint) => { data: Hex; signatureOffset: number };
  native: () => Hex;
  allowance: (router: Address) => Hex;
  permitTypedData: (place: PermitPlace) => QuotePermitTypedData;
  gaslessTypedData: (place: PermitPlace, fee: RelayerFee) => QuotePermitTypedData;
}>;

export function isExactOutputOrder(order: SwapOrder | ExactOutputOrder): order is ExactOutputOrder {
  return "maxSellAmount" in order;
}

export function orderEncoding(order: SwapOrder | ExactOutputOrder): OrderEncoding {
  if (isExactOutputOrder(order)) {
    return {
      maxInput: order.maxSellAmount,
      permit: (nonce) => encodeSwapExactOutputWithPermit(order, nonce),
      gasless: (taker, fee, nonce) => encodeSwapGaslessExactOutput(order, taker, fee, nonce),
      native: () => encodeSwapExactOutputNative(order),
      allowance: (router) => encodeSwapExactOutputWithAllowance(order, router),
      permitTypedData: (place) => buildExactOutputPermitTypedData({ ...place, order }),
      gaslessTypedData: (place, fee) => buildGaslessExactOutputPermitTypedData({ ...place, order, ...fee }),
    };
  }
  return {
    maxInput: order.sellAmount,
    permit: (nonce) => encodeSwapWithPermit(order, nonce),
    gasless: (taker, fee, nonce) => encodeSwapGasless(order, taker, fee, nonce),
    native: () => encodeSwapNative(order),
    allowance: (router) => encodeSwapWithAllowance(order, router),
    permitTypedData: (place) => buildSwapPermitTypedData({ ...place, order }),
    gaslessTypedData: (place, fee) => buildGaslessPermitTypedData({ ...place, order, ...fee }),
  };
}
