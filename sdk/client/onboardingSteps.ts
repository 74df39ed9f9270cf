import type { Hex } from "viem";
import type { z } from "zod";
import { OnboardingAction } from "../onboarding/actions";
import { apiKeyPayloadHash, applicationPayloadHash, revokeApiKeyPayloadHash, webhookPayloadHash, type ApplicationPayload } from "../onboarding/payloadHash";
import type { WebhookRegistrationJson } from "../relay/pushedStatusWire";
import type { applicationJsonSchema, createdApiKeyJsonSchema, integratorProfilesJsonSchema, revokedApiKeyJsonSchema } from "../wire/onboardingJson";
import { webhookRegistrationJsonSchema } from "../wire/pushedStatusJson";
import type { ApiTransport } from "./apiTransport";
import { webhookUrlRefusal } from "./integratorWebhook";
import type { TradingWallet } from "./tradingWallet";

/** The application fields a partner chooses; owner wallet and fee recipient are the signing wallet. */
export type IntegratorProfile = {
  chainId?: number;
  displayName: string;
  slug: string;
  contactEmail?: string;
  telegramHandle?: string;
  appUrl?: string;
  requestedMaxFeeBps: number;
  /** Label of the API key `onboard` creates; default "default". */
  keyLabel?: string;
};

export type ApplicationResult = z.input<typeof applicationJsonSchema>;
export type CreatedApiKey = z.input<typeof createdApiKeyJsonSchema>;
export type RevokedApiKey = z.input<typeof revokedApiKeyJsonSchema>;
/** POST /integrators/me's body: the wallet's profiles with masked keys. */
export type IntegratorProfiles = z.input<typeof integratorProfilesJsonSchema>;

export type OnboardingResult = { application: ApplicationResult; apiKey: CreatedApiKey | undefined };

type SignedFields = { nonce: string; issued_at: string; expiration_time: string; signature: Hex };

/**
 * The spec's onboarding steps over one transport and one owner wallet: each signed action asks for
 * its own nonce (bound to the payload hash) and signs the returned message exactly as returned.
 * Onboarding requests are POSTs without idempotency, so they are never retried.
 */
export class OnboardingSteps {
  constructor(readonly transport: ApiTransport) {}

  async #post<T>(path: string, body: unknown): Promise<T> {
    return (await this.transport.request({ method: "POST", path, body })).body as T;
  }

  async #sign(wallet: TradingWallet, action: OnboardingAction, payloadHash: Hex | undefined, chainId: number | undefined): Promise<SignedFields> {
    const challenge = await this.#post<{ message: string; nonce: string; issued_at: string; expiration_time: string }>("/integrators/nonce", {
      wallet: wallet.account.address,
      action,
      ...(payloadHash === undefined ? {} : { payload_hash: payloadHash }),
      ...(chainId === undefined ? {} : { chain_id: chainId }),
    });
    const signature = await wallet.signMessage({ account: wallet.account, message: challenge.message });
    return { nonce: challenge.nonce, issued_at: challenge.issued_at, expiration_time: challenge.expiration_time, signature };
  }

  async apply(wallet: TradingWallet, profile: IntegratorProfile): Promise<ApplicationResult> {
    const owner = wallet.account.address;
    const fields: ApplicationPayload = {
      chain_id: profile.chainId,
      owner_wallet: owner,
      display_name: profile.displayName,
      slug: profile.slug,
      contact_email: profile.contactEmail,
      telegram_handle: profile.telegramHandle,
      app_url: profile.appUrl,
      fee_recipient: owner,
      requested_max_fee_bps: profile.requestedMaxFeeBps,
    };
    const payload_hash = applicationPayloadHash(fields);
    const signed = await this.#sign(wallet, OnboardingAction.CreateApplication, payload_hash, profile.chainId);
    return this.#post("/integrators/applications", { ...fields, payload_hash, ...signed });
  }

  async createApiKey(wallet: TradingWallet, integratorId: number, label: string, chainId?: number): Promise<CreatedApiKey> {
    const fields = { chain_id: chainId, owner_wallet: wallet.account.address, integrator_id: integratorId, label };
    const payload_hash = apiKeyPayloadHash(fields);
    return this.#post("/integrators/api-keys", { ...fields, payload_hash, ...(await this.#sign(wallet, OnboardingAction.CreateApiKey, payload_hash, chainId)) });
  }

  async viewProfile(wallet: TradingWallet, chainId?: number): Promise<IntegratorProfiles> {
    const signed = await this.#sign(wallet, OnboardingAction.ViewProfile, undefined, chainId);
    return this.#post("/integrators/me", { owner_wallet: wallet.account.address, ...(chainId === undefined ? {} : { chain_id: chainId }), ...signed });
  }

  async revokeApiKey(wallet: TradingWallet, integratorId: number, keyId: number): Promise<RevokedApiKey> {
    const fields = { owner_wallet: wallet.account.address, integrator_id: integratorId, key_id: keyId };
    const payload_hash = revokeApiKeyPayloadHash(fields);
    const signed = await this.#sign(wallet, OnboardingAction.RevokeApiKey, payload_hash, undefined);
    return this.#post(`/integrators/api-keys/${keyId}/revoke`, { owner_wallet: fields.owner_wallet, integrator_id: integratorId, payload_hash, ...signed });
  }

  /**
   * Sets, replaces (a new secret each time) or clears (`url` null) the integrator's webhook: the
   * `set_integrator_webhook` action, whose payload hash covers owner_wallet, integrator_id and url.
   * The answer's `secret` is shown this once. A URL the API refuses throws WebhookUrlError.
   */
  async setWebhook(wallet: TradingWallet, integratorId: number, url: string | null, chainId?: number): Promise<WebhookRegistrationJson> {
    const fields = { owner_wallet: wallet.account.address, integrator_id: integratorId, url };
    const payload_hash = webhookPayloadHash(fields);
    const signed = await this.#sign(wallet, OnboardingAction.SetWebhook, payload_hash, chainId);
    const body = { ...(chainId === undefined ? {} : { chain_id: chainId }), ...fields, payload_hash, ...signed };
    const answer = await this.#post<unknown>("/integrators/webhook", body).catch((error: unknown) => {
      throw webhookUrlRefusal(error);
    });
    return webhookRegistrationJsonSchema.parse(answer) as WebhookRegistrationJson;
  }

  /** The whole sequence: application, then (when active) an API key. Store `apiKey.api_key` at once. */
  async onboard(wallet: TradingWallet, profile: IntegratorProfile): Promise<OnboardingResult> {
    const application = await this.apply(wallet, profile);
    if (application.status !== "active") return { application, apiKey: undefined };
    return { application, apiKey: await this.createApiKey(wallet, application.integrator_id, profile.keyLabel ?? "default", profile.chainId) };
  }
}
