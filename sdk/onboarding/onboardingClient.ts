import type { Address, LocalAccount } from "viem";
import { SdkError } from "../errors/base";
import { OnboardingAction } from "./actions";
import { apiKeyPayloadHash, applicationPayloadHash, type ApplicationPayload } from "./payloadHash";

/** The API answered an onboarding request with an error. */
export class OnboardingRequestError extends SdkError {
  override name = "OnboardingRequestError";
  constructor(
    readonly path: string,
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(`${path} failed with ${status}${code ? ` ${code}` : ""}: ${message}`);
  }
}

type Challenge = { message: string; nonce: string; issued_at: string; expiration_time: string };

async function post<T>(baseUrl: string, path: string, body: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const json = (await response.json()) as T & { error?: string; code?: string };
  if (!response.ok) throw new OnboardingRequestError(path, response.status, json.code, json.error ?? "no error message");
  return json;
}

/** Asks for a nonce for `action` and signs the returned message exactly as returned. */
async function signedChallenge(baseUrl: string, account: LocalAccount, action: OnboardingAction, payloadHash: string, chainId: number | undefined) {
  const challenge = await post<Challenge>(baseUrl, "/integrators/nonce", { wallet: account.address, action, payload_hash: payloadHash, chain_id: chainId });
  const signature = await account.signMessage({ message: challenge.message });
  return { nonce: challenge.nonce, issued_at: challenge.issued_at, expiration_time: challenge.expiration_time, signature };
}

export type OnboardIntegratorParameters = {
  baseUrl: string;
  /** The owner wallet; it signs every step and is also the fee recipient, as the spec requires. */
  account: LocalAccount;
  application: Omit<ApplicationPayload, "owner_wallet" | "fee_recipient">;
  keyLabel: string;
};

export type OnboardedIntegrator = {
  integratorId: number;
  status: "pending" | "active";
  /** Undefined while the profile is pending review. */
  apiKey: { keyId: number; secret: string; feeRecipient: Address; maxFeeBps: number } | undefined;
};

/**
 * The spec's onboarding sequence in one call: application (nonce, sign, submit), then, when the
 * profile is active, an API key (nonce, sign, submit). Store `apiKey.secret` at once: it is never
 * shown again.
 */
export async function onboardIntegrator({ baseUrl, account, application, keyLabel }: OnboardIntegratorParameters): Promise<OnboardedIntegrator> {
  const fields: ApplicationPayload = { ...application, owner_wallet: account.address, fee_recipient: account.address };
  const applicationHash = applicationPayloadHash(fields);
  // JSON has no bigint; chain ids fit in a number.
  const chainId = fields.chain_id === null || fields.chain_id === undefined ? undefined : Number(fields.chain_id);
  const body = { ...fields, chain_id: chainId, requested_max_fee_bps: Number(fields.requested_max_fee_bps) };
  const applied = await post<{ integrator_id: number; status: "pending" | "active" }>(baseUrl, "/integrators/applications", {
    ...body,
    payload_hash: applicationHash,
    ...(await signedChallenge(baseUrl, account, OnboardingAction.CreateApplication, applicationHash, chainId)),
  });
  if (applied.status !== "active") return { integratorId: applied.integrator_id, status: applied.status, apiKey: undefined };

  const keyHash = apiKeyPayloadHash({ chain_id: chainId, owner_wallet: account.address, integrator_id: applied.integrator_id, label: keyLabel });
  const key = await post<{ key_id: number; api_key: string; integrator_fee_recipient: Address; integrator_max_fee_bps: number }>(baseUrl, "/integrators/api-keys", {
    chain_id: chainId,
    owner_wallet: account.address,
    integrator_id: applied.integrator_id,
    label: keyLabel,
    payload_hash: keyHash,
    ...(await signedChallenge(baseUrl, account, OnboardingAction.CreateApiKey, keyHash, chainId)),
  });
  return {
    integratorId: applied.integrator_id,
    status: "active",
    apiKey: { keyId: key.key_id, secret: key.api_key, feeRecipient: key.integrator_fee_recipient, maxFeeBps: key.integrator_max_fee_bps },
  };
}
