import type { Address, Hex } from "viem";
import { createSiweMessage, parseSiweMessage } from "viem/siwe";
import { OnboardingMessageError } from "../errors/onboarding";
import { onboardingActions, type OnboardingAction } from "./actions";

/**
 * The Sign-In with Ethereum (EIP-4361) message of an onboarding nonce. An EIP-4361 statement is one
 * line, so the action and payload hash sit in it on one line for the signer to read, and again as
 * `urn:` resources for programs to read.
 */

const ACTION_RESOURCE = "urn:token-swap:onboarding:action:";
const PAYLOAD_HASH_RESOURCE = "urn:token-swap:onboarding:payload-hash:";

export type OnboardingMessageParameters = {
  /** RFC 3986 authority of the service, e.g. `api.example.com` or `localhost:8080`. */
  domain: string;
  uri: string;
  wallet: Address;
  chainId: number;
  action: OnboardingAction;
  /** Absent only for `view_integrator_profile`. */
  payloadHash?: Hex | undefined;
  nonce: string;
  issuedAt: Date;
  expirationTime: Date;
};

export type OnboardingMessage = Omit<OnboardingMessageParameters, "payloadHash"> & { payloadHash: Hex | undefined };

export function onboardingStatement(action: OnboardingAction, payloadHash: Hex | undefined): string {
  const base = `Token Swap Trading API: authorize ${action}`;
  return payloadHash === undefined ? base : `${base} with payload hash ${payloadHash}`;
}

export function createOnboardingMessage(parameters: OnboardingMessageParameters): string {
  const { action, payloadHash } = parameters;
  return createSiweMessage({
    domain: parameters.domain,
    uri: parameters.uri,
    address: parameters.wallet,
    chainId: parameters.chainId,
    version: "1",
    nonce: parameters.nonce,
    issuedAt: parameters.issuedAt,
    expirationTime: parameters.expirationTime,
    statement: onboardingStatement(action, payloadHash),
    resources: [`${ACTION_RESOURCE}${action}`, ...(payloadHash === undefined ? [] : [`${PAYLOAD_HASH_RESOURCE}${payloadHash}`])],
  });
}

/**
 * Reads an onboarding challenge back, so an integrator can check what a returned message authorizes
 * (action, payload hash, wallet, expiry) before signing it.
 */
export function parseOnboardingMessage(message: string): OnboardingMessage {
  const parsed = parseSiweMessage(message);
  const { domain, uri, address, chainId, nonce, issuedAt, expirationTime } = parsed;
  if (!domain || !uri || !address || chainId === undefined || !nonce || !issuedAt || !expirationTime) {
    throw new OnboardingMessageError("it lacks a field an onboarding challenge always has");
  }
  const resources = parsed.resources ?? [];
  const actionText = resources.find((resource) => resource.startsWith(ACTION_RESOURCE))?.slice(ACTION_RESOURCE.length);
  const action = onboardingActions.find((candidate) => candidate === actionText);
  if (action === undefined) throw new OnboardingMessageError(`unknown or missing action resource (${actionText ?? "none"})`);
  const hashText = resources.find((resource) => resource.startsWith(PAYLOAD_HASH_RESOURCE))?.slice(PAYLOAD_HASH_RESOURCE.length);
  if (hashText !== undefined && !/^0x[0-9a-f]{64}$/.test(hashText)) throw new OnboardingMessageError(`malformed payload hash ${hashText}`);
  const payloadHash = hashText as Hex | undefined;
  if (parsed.statement !== onboardingStatement(action, payloadHash)) {
    throw new OnboardingMessageError("the statement does not match the action and payload hash resources");
  }
  return { domain, uri, wallet: address, chainId, action, payloadHash, nonce, issuedAt, expirationTime };
}
