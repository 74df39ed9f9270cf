import type { Hex } from "viem";
import { decodeSwapGasless, encodeSwapGaslessFromContract, encodeSwapGaslessWithTokenPermit, patchSignature } from "../../sdk";
import type { GaslessTerms } from "../store/store";

/**
 * The calldata the relayer sends for a verified submission: the quote's `swapGasless` with the
 * signature patched in; `swapGaslessWithTokenPermit` when the taker signed the offered token permit
 * (approval and swap in one transaction); `swapGaslessFromContract` for a smart-wallet taker, whose
 * ERC-1271 signature may have any length up to the router's cap.
 */
export function relayCalldata(terms: GaslessTerms, signature: Hex, approvalSignature: Hex | undefined): Hex {
  if (approvalSignature === undefined && terms.signatureKind !== "eip1271") return patchSignature(terms.data, terms.signatureOffset, signature);
  const order = { ...decodeSwapGasless(terms.data), signature };
  if (approvalSignature !== undefined && terms.tokenPermit !== undefined) {
    return encodeSwapGaslessWithTokenPermit(order, { value: terms.tokenPermit.value, deadline: terms.tokenPermit.deadline, signature: approvalSignature });
  }
  return encodeSwapGaslessFromContract(order);
}
