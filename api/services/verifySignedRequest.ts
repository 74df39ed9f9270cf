import { BaseError, HttpRequestError, isAddressEqual, RpcRequestError, TimeoutError, type Address, type Hex } from "viem";
import { verifySiweMessage } from "viem/siwe";
import type { OnboardingAction } from "../../sdk";
import type { ApiDependencies } from "../apiDependencies";
import { ApiError } from "../apiError";
import type { ChallengeRecord } from "../store/store";

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
 * request's fields, freshness, and the wallet's signature over the stored message (EOAs and, through
 * the public client, ERC-1271/6492 contract wallets).
 *
 * It does not spend the nonce: the caller spends it in the same store transaction as its write, so a
 * request that fails later leaves the nonce usable and two concurrent requests yield one success.
 */
export async function verifySignedRequest(deps: ApiDependencies, request: SignedRequest): Promise<ChallengeRecord> {
  if (request.sentPayloadHash !== undefined && request.sentPayloadHash !== request.payloadHash) {
    throw new ApiError(400, "payload_hash_mismatch", `payload_hash does not match the request's fields (they hash to ${request.payloadHash})`);
  }
  const challenge = await deps.store.findChallenge(request.nonce);
  if (challenge === undefined) {
    throw new ApiError(401, "nonce_unknown", "nonce is unknown; request one from POST /integrators/nonce");
  }
  if (challenge.action !== request.action) {
    throw new ApiError(401, "nonce_action_mismatch", `nonce was issued for ${challenge.action}, not ${request.action}`);
  }
  if (!isAddressEqual(challenge.wallet, request.wallet)) {
    throw new ApiError(401, "nonce_wallet_mismatch", "owner_wallet is not the wallet the nonce was issued to");
  }
  if (request.issuedAt !== challenge.issuedAt.toISOString()) {
    throw new ApiError(401, "nonce_field_mismatch", "issued_at does not match the nonce response");
  }
  if (request.expirationTime !== challenge.expiresAt.toISOString()) {
    throw new ApiError(401, "nonce_field_mismatch", "expiration_time does not match the nonce response");
  }
  if (request.message !== undefined && request.message !== challenge.message) {
    throw new ApiError(401, "nonce_field_mismatch", "message differs from the message returned with this nonce");
  }
  if (challenge.payloadHash !== request.payloadHash) {
    throw new ApiError(401, "nonce_payload_mismatch", "the request's fields do not match the payload_hash the nonce was issued for");
  }
  if (challenge.usedAt !== undefined) {
    throw new ApiError(409, "nonce_used", "nonce was already used; request a new one");
  }
  const now = deps.clock.now();
  if (now.getTime() >= challenge.expiresAt.getTime()) {
    throw new ApiError(401, "nonce_expired", `nonce expired at ${challenge.expiresAt.toISOString()}; request a new one`);
  }

  let valid: boolean;
  try {
    valid = await verifySiweMessage(deps.publicClient, {
      message: challenge.message,
      signature: request.signature,
      address: challenge.wallet,
      domain: deps.config.siweDomain,
      nonce: challenge.nonce,
      time: now,
    });
  } catch (error) {
    // Only a node that cannot be reached is our problem; anything else is a signature we cannot accept.
    if (isTransportFailure(error)) {
      deps.logger.error({ err: error, nonce: challenge.nonce }, "signature verification failed to run");
      throw new ApiError(503, "signature_verification_unavailable", "signature could not be verified right now (chain RPC unavailable); retry shortly");
    }
    throw new ApiError(401, "invalid_signature", "signature is not a valid signature of owner_wallet over the nonce's message");
  }
  if (!valid) {
    throw new ApiError(401, "invalid_signature", "signature is not owner_wallet's signature over the nonce's message");
  }
  return challenge;
}

function isTransportFailure(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError || cause instanceof RpcRequestError) !== null;
}

/** Maps a nonce the store refused to spend (a concurrent request won, or it expired meanwhile) to its error. */
export function nonceRejectedError(outcome: "nonce_used" | "nonce_expired"): ApiError {
  return outcome === "nonce_used"
    ? new ApiError(409, "nonce_used", "nonce was already used; request a new one")
    : new ApiError(401, "nonce_expired", "nonce expired before the request completed; request a new one");
}
