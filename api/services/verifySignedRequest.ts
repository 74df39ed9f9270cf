import { isAddressEqual, type Address, type Hex } from "viem";
import { parseSiweMessage, validateSiweMessage } from "viem/siwe";
import type { OnboardingAction } from "../../sdk";
import type { ApiDependencies } from "../apiDependencies";
import { ApiError } from "../../sdk/server/apiError";
import type { ChallengeRecord } from "../store/store";
import { ContractSignatureTimeout, isContractSignature, isKeySignature, isTransportFailure, isWrappedSignature } from "./onboardingSignature";

/** Signature checks on the chain a nonce allows before it is spent (each runs the requester's contract). */
export const MAX_FAILED_VERIFICATIONS = 3;

export type SignedRequest = {
  action: OnboardingAction;
  wallet: Address;
  /** The payload_hash the client sent, if the body has one. */
  sentPayloadHash: Hex | undefined;
  /** The hash recomputed from the body's own fields; undefined for actions without a payload. */
  payloadHash: Hex | undefined;
  nonce: string;
  /** The message, if the client echoed it; it must then be the stored one. */
  message: string | undefined;
  issuedAt: string;
  expirationTime: string;
  signature: Hex;
};

/** The nonce-response fields and signature every signed onboarding body carries (signedChallengeFields). */
export type SignedChallengeBody = Readonly<{ nonce: string; message?: string | undefined; issued_at: string; expiration_time: string; signature: Hex }>;

/** The signed part of a request, as verifySignedRequest takes it. */
export function signedFieldsOf(body: SignedChallengeBody): Pick<SignedRequest, "nonce" | "message" | "issuedAt" | "expirationTime" | "signature"> {
  return { nonce: body.nonce, message: body.message, issuedAt: body.issued_at, expirationTime: body.expiration_time, signature: body.signature };
}

/**
 * Checks a signed onboarding request against the challenge stored for its nonce, never against text
 * from the client: the action, the wallet, the echoed times, the payload hash recomputed from the
 * request's fields, freshness, and the wallet's signature over the stored message: a key's signature
 * is recovered locally; a deployed contract wallet is asked through ERC-1271 with a gas and a time
 * limit; wrapped signatures (ERC-6492, ERC-8010), which would run code before the check, are refused.
 *
 * It does not spend the nonce, except when a third on-chain signature check of it fails: the caller
 * spends it in the same store transaction as its write, so a request that fails later leaves the
 * nonce usable and two concurrent requests yield one success.
 */
export async function verifySignedRequest(deps: ApiDependencies, request: SignedRequest): Promise<ChallengeRecord> {
  if (request.sentPayloadHash !== undefined && request.sentPayloadHash !== request.payloadHash) {
    throw new ApiError("payload_hash_mismatch", `payload_hash does not match the request's fields (they hash to ${request.payloadHash})`);
  }
  const challenge = await deps.store.findChallenge(request.nonce);
  if (challenge === undefined) {
    throw new ApiError("nonce_unknown", "nonce is unknown; request one from POST /integrators/nonce");
  }
  if (challenge.action !== request.action) {
    throw new ApiError("nonce_action_mismatch", `nonce was issued for ${challenge.action}, not ${request.action}`);
  }
  if (!isAddressEqual(challenge.wallet, request.wallet)) {
    throw new ApiError("nonce_wallet_mismatch", "owner_wallet is not the wallet the nonce was issued to");
  }
  if (request.issuedAt !== challenge.issuedAt.toISOString()) {
    throw new ApiError("nonce_field_mismatch", "issued_at does not match the nonce response");
  }
  if (request.expirationTime !== challenge.expiresAt.toISOString()) {
    throw new ApiError("nonce_field_mismatch", "expiration_time does not match the nonce response");
  }
  if (request.message !== undefined && request.message !== challenge.message) {
    throw new ApiError("nonce_field_mismatch", "message differs from the message returned with this nonce");
  }
  if (challenge.payloadHash !== request.payloadHash) {
    throw new ApiError("nonce_payload_mismatch", "the request's fields do not match the payload_hash the nonce was issued for");
  }
  if (challenge.usedAt !== undefined) {
    throw challenge.failedVerifications >= MAX_FAILED_VERIFICATIONS ? usedUpError() : new ApiError("nonce_used", "nonce was already used; request a new one");
  }
  const now = deps.clock.now();
  if (now.getTime() >= challenge.expiresAt.getTime()) {
    throw new ApiError("nonce_expired", `nonce expired at ${challenge.expiresAt.toISOString()}; request a new one`);
  }

  if (isWrappedSignature(request.signature)) {
    throw new ApiError("signature_unsupported", "signature is wrapped (ERC-6492 or ERC-8010); sign with a plain key or a contract wallet that is already deployed (ERC-1271)");
  }
  // The stored message is ours, but its own terms (domain, nonce, address, times) are checked too.
  const terms = parseSiweMessage(challenge.message);
  if (!validateSiweMessage({ message: terms, address: challenge.wallet, domain: deps.config.siweDomain, nonce: challenge.nonce, time: now })) {
    throw new ApiError("invalid_signature", "the nonce's message does not name owner_wallet, this domain and a valid time");
  }
  // A plain key's signature is recovered here: no call to the chain at all.
  if (await isKeySignature(challenge.wallet, challenge.message, request.signature)) return challenge;
  await verifyOnChain(deps, challenge, request.signature, now);
  return challenge;
}

/**
 * A signature that did not recover to the wallet: it is valid only if the wallet is a contract that
 * says so (ERC-1271). The check runs the requester's code on the node, so each nonce allows at most
 * MAX_FAILED_VERIFICATIONS of them (counted before they run), each with a gas and a time limit.
 */
async function verifyOnChain(deps: ApiDependencies, challenge: ChallengeRecord, signature: Hex, now: Date): Promise<void> {
  const use = { nonce: challenge.nonce, at: now };
  const started = await deps.store.beginVerification(use, MAX_FAILED_VERIFICATIONS);
  if (started === "used_up") throw usedUpError();
  if (started !== "started") throw nonceRejectedError(started === "used" ? "nonce_used" : "nonce_expired");
  let valid: boolean;
  try {
    valid = await isContractSignature(deps.publicClient, challenge.wallet, challenge.message, signature, {
      gas: deps.config.onboarding1271Gas,
      timeoutMs: deps.config.onboarding1271TimeoutMs,
    });
  } catch (error) {
    await deps.store.settleVerification(use, "unavailable", MAX_FAILED_VERIFICATIONS);
    // What is thrown is the node's trouble (unreachable, too slow, refusing eth_getCode): ours to
    // report, not counted against the nonce. Every answer the wallet's own call got, a revert or any
    // other JSON-RPC error, came back as `false` already and counts.
    deps.logger.warn({ err: error, nonce: challenge.nonce, timeout: error instanceof ContractSignatureTimeout, transport: isTransportFailure(error) }, "signature verification failed to run");
    throw new ApiError("signature_verification_unavailable", "signature could not be verified right now (chain RPC unavailable); retry shortly");
  }
  await deps.store.settleVerification(use, valid ? "valid" : "invalid", MAX_FAILED_VERIFICATIONS);
  if (!valid) throw new ApiError("invalid_signature", "signature is not owner_wallet's signature over the nonce's message");
}

function usedUpError(): ApiError {
  return new ApiError("nonce_used", `nonce is used up: ${MAX_FAILED_VERIFICATIONS} signature verifications failed; request a new one`);
}

/** Maps a nonce the store refused to spend (a concurrent request won, or it expired meanwhile) to its error. */
export function nonceRejectedError(outcome: "nonce_used" | "nonce_expired"): ApiError {
  return outcome === "nonce_used"
    ? new ApiError("nonce_used", "nonce was already used; request a new one")
    : new ApiError("nonce_expired", "nonce expired before the request completed; request a new one");
}
