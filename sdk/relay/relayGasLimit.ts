import type { Hex } from "viem";
import { decodeGaslessCall, type GaslessCall } from "../calldata/gaslessApprovalCalldata";
import { SIGNATURE_BYTES } from "../calldata/signaturePlaceholder";
import { decodeRouteActions } from "../calldata/routeActions";
import type { SwapOrder } from "../calldata/swapOrder";
import { isNativeToken } from "../tokens/native";
import { CALLDATA_BYTE_GAS, CONTRACT_SIGNATURE_MODEL_GAS, TOKEN_PERMIT_MODEL_GAS } from "./gaslessExtraGas";

/**
 * Gas over the quote's modelled gas, which tests keep within 15 % of what swaps use: room for that
 * error and for pools that moved. Only gas used is paid, so the headroom costs the taker nothing
 * once mined, but the fee is priced on the whole limit (see `relayGasLimit`).
 */
export const RELAY_GAS_HEADROOM_PERCENT = 150n;

/**
 * RouterFunds.NATIVE_PAYOUT_GAS: the most gas a native payout's call may forward. A recipient can
 * burn all of it on purpose (test/relayer/griefingRecipient.test.ts reads the contract's constant).
 */
export const NATIVE_PAYOUT_GAS = 40_000n;

/**
 * What the router spends after a payout's call failed: WETH `deposit` (with value), the WETH
 * `transfer` to a recipient whose WETH balance may be a fresh slot, and `NativePayoutWrapped`.
 * Measured on the devnet as the difference between the least gas limits that settle the same swap
 * to a recipient that accepts ETH and to one that burns its stipend, minus NATIVE_PAYOUT_GAS, with
 * room above (test/relayer/griefingRecipient.test.ts checks the bound against that measurement).
 */
export const WETH_FALLBACK_GAS = 75_000n;

/** The most one native payout can add to a settlement: the burnt stipend, then the WETH fallback. */
export const NATIVE_PAYOUT_WORST_CASE_GAS = NATIVE_PAYOUT_GAS + WETH_FALLBACK_GAS;

/**
 * Native payouts an order makes: when it buys the native asset, one to the recipient and one per
 * `fee` action (a fee is taken in the buy token, so in ETH). An order buying an ERC20 pays none.
 */
export function nativePayoutsOf(order: Pick<SwapOrder, "buyToken" | "actions">): number {
  if (!isNativeToken(order.buyToken)) return 0;
  return 1 + decodeRouteActions(order.actions).filter((action) => action.type === "fee").length;
}

/**
 * The gas limit a relayer signs for a gasless swap, and the limit its fee is priced on: the modelled
 * gas with its headroom, plus, for every native payout, the worst the contract lets a recipient cost
 * (its whole stipend burnt, then the WETH fallback). Whatever the recipients do, the swap then has
 * the gas to settle: it cannot be made to revert for want of gas at the relayer's expense.
 */
export function relayGasLimit(estimatedGas: number | bigint, nativePayouts: number): bigint {
  return (BigInt(estimatedGas) * RELAY_GAS_HEADROOM_PERCENT) / 100n + BigInt(nativePayouts) * NATIVE_PAYOUT_WORST_CASE_GAS;
}

/**
 * `relayGasLimit` of signed relay calldata, as the relayer holds it: `swapGasless`, or one of the
 * GaslessTokenPermit entry points, whose smart-wallet signature may be longer than the 65 bytes the
 * quote priced (each byte past them adds its calldata gas). Throws GaslessCalldataError on other calldata.
 */
export function relayGasLimitOfCalldata(estimatedGas: number | bigint, data: Hex): bigint {
  const call = decodeGaslessCall(data);
  const signatureBytes = (call.order.signature.length - 2) / 2;
  const longer = signatureBytes > SIGNATURE_BYTES ? (signatureBytes - SIGNATURE_BYTES) * CALLDATA_BYTE_GAS : 0;
  return relayGasLimit(estimatedGas, nativePayoutsOf(call.order.params)) + BigInt(entryPointExtraGas(call.kind) + longer);
}

/**
 * What the relayed entry point adds to the quote's `swapGasless` model, which the quote priced into the
 * fee: the token permit of `swapGaslessWithTokenPermit`, the wallet's ERC-1271 check of `swapGaslessFromContract`.
 */
export function entryPointExtraGas(kind: GaslessCall["kind"]): number {
  if (kind === "withTokenPermit") return TOKEN_PERMIT_MODEL_GAS;
  if (kind === "fromContract") return CONTRACT_SIGNATURE_MODEL_GAS;
  return 0;
}
