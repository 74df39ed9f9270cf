import { hashTypedData, recoverTypedDataAddress, type Hex, type PublicClient, type TypedDataDefinition } from "viem";
import { buildTokenPermitTypedData } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { ContractSignatureTimeout, isContractSignatureOfHash, type ContractSignatureCheck } from "../services/onboardingSignature";
import type { GaslessTerms, QuoteRecord } from "../store/store";

/**
 * Checks the submission's signatures against the quote's taker: the order's (a key's recovery, or
 * for a taker with code its ERC-1271 `isValidSignature` over the digest Permit2 will hand it, at most
 * `contractSignatureCheck.gas` gas) and the token permit's, when one was sent. Each failure is a 4xx
 * naming the field; a wallet check that could not run is a 503.
 */
export async function checkTakerSignature(
  client: PublicClient,
  quote: QuoteRecord & { gasless: GaslessTerms },
  typedData: TypedDataDefinition,
  signature: Hex,
  extras: { approvalSignature: Hex | undefined; contractSignatureCheck: ContractSignatureCheck },
): Promise<void> {
  const terms = quote.gasless;
  if (terms.signatureKind === "eip1271") {
    let valid: boolean;
    try {
      valid = await isContractSignatureOfHash(client, quote.taker, hashTypedData(typedData), signature, extras.contractSignatureCheck);
    } catch (error) {
      const why = error instanceof ContractSignatureTimeout ? "it did not answer in time" : "the chain could not be reached";
      throw new ApiError("signature_verification_unavailable", `signature: the taker's ERC-1271 check could not be run (${why}); retry with the same idempotency_key`);
    }
    if (!valid) {
      throw new ApiError("signature_mismatch", `signature: the taker ${quote.taker} is a contract and its isValidSignature did not accept the signature over the quote's permit2 typed data`);
    }
  } else {
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({ ...typedData, signature });
    } catch {
      throw new ApiError("signature_mismatch", "signature is not a valid secp256k1 signature (r, s, v)");
    }
    if (signer.toLowerCase() !== quote.taker.toLowerCase()) {
      throw new ApiError("signature_mismatch", `signature recovers to ${signer}, not the quote's taker ${quote.taker}; sign the quote's permit2 typed data unchanged`);
    }
  }
  if (extras.approvalSignature === undefined) return;
  const offer = terms.tokenPermit;
  if (offer === undefined) {
    throw new ApiError("approval_not_offered", `approval_signature: quote ${quote.quoteId} offered no approval (its sell token has no EIP-2612 permit, or Permit2 was already approved); submit without it`);
  }
  const permitData = buildTokenPermitTypedData({ domain: offer.domain, owner: quote.taker, spender: typedData.domain!.verifyingContract!, value: offer.value, nonce: offer.nonce, deadline: offer.deadline });
  let permitSigner: string;
  try {
    permitSigner = await recoverTypedDataAddress({ ...permitData, signature: extras.approvalSignature });
  } catch {
    throw new ApiError("approval_signature_mismatch", "approval_signature is not a valid secp256k1 signature (r, s, v)");
  }
  if (permitSigner.toLowerCase() !== quote.taker.toLowerCase()) {
    throw new ApiError("approval_signature_mismatch", `approval_signature recovers to ${permitSigner}, not the quote's taker ${quote.taker}; sign the quote's approval.eip712 unchanged`);
  }
}
