import { z } from "zod";
import { OnboardingAction } from "../../sdk";
import { priceRateLimitPerMinute, statusRateLimitPerMinute } from "../quote/admission/quoteBuckets";
import { parseRequest } from "../requestValidation";
import { optionalChainId, signedChallengeFields, walletAddress } from "../schemas/onboardingFields";
import { maskApiKey } from "../services/apiKeySecret";
import { assertServedChain } from "../services/servedChain";
import { nonceRejectedError, signedFieldsOf, verifySignedRequest } from "../services/verifySignedRequest";
import type { ApiKeyRecord, IntegratorRecord } from "../store/store";
import type { Route } from "./route";
import type { IntegratorGasBudgetJson } from "../../sdk";
import { integratorGasBudgets } from "../gasless/integratorGasBudget";

const bodySchema = z.strictObject({
  chain_id: optionalChainId,
  owner_wallet: walletAddress,
  ...signedChallengeFields,
});

const iso = (date: Date | undefined) => date?.toISOString() ?? null;

/** The config's multipliers of the derived per-key limits. */
type LimitMultipliers = Readonly<{ statusRateLimitMultiplier: number; priceRateLimitMultiplier: number }>;

function keyView(key: ApiKeyRecord, multipliers: LimitMultipliers) {
  return {
    key_id: key.id,
    label: key.label,
    prefix: key.prefix,
    masked_key: maskApiKey(key.prefix, key.lastFour),
    scopes: key.scopes,
    quote_rate_limit_per_minute: key.quoteRateLimitPerMinute,
    swap_rate_limit_per_minute: key.swapRateLimitPerMinute,
    status_rate_limit_per_minute: statusRateLimitPerMinute(key.swapRateLimitPerMinute, multipliers.statusRateLimitMultiplier),
    price_rate_limit_per_minute: priceRateLimitPerMinute(key.quoteRateLimitPerMinute, multipliers.priceRateLimitMultiplier),
    created_at: iso(key.createdAt),
    revoked_at: iso(key.revokedAt),
  };
}

function profileView(integrator: IntegratorRecord, keys: readonly ApiKeyRecord[], multipliers: LimitMultipliers, gasBudget: IntegratorGasBudgetJson | null) {
  return {
    integrator_id: integrator.id,
    slug: integrator.slug,
    status: integrator.status,
    display_name: integrator.displayName,
    contact_email: integrator.contactEmail ?? null,
    telegram_handle: integrator.telegramHandle ?? null,
    app_url: integrator.appUrl ?? null,
    fee_recipient: integrator.feeRecipient,
    max_fee_bps: integrator.maxFeeBps,
    created_at: iso(integrator.createdAt),
    approved_at: iso(integrator.approvedAt),
    api_keys: keys.filter((key) => key.integratorId === integrator.id).map((key) => keyView(key, multipliers)),
    gas_budget: gasBudget,
  };
}

/**
 * POST /integrators/me: the signing wallet's profiles with their keys' metadata (masked; never a
 * secret or a hash). Signed with a `view_integrator_profile` nonce, which it spends.
 */
export const postMe: Route = {
  method: "post",
  path: "/integrators/me",
  handlers: (deps) => [
    async (req, res) => {
      const body = parseRequest(bodySchema, req.body);
      assertServedChain(deps.config, body.chain_id);
      await verifySignedRequest(deps, {
        action: OnboardingAction.ViewProfile,
        wallet: body.owner_wallet,
        sentPayloadHash: undefined,
        payloadHash: undefined,
        ...signedFieldsOf(body),
      });
      const spent = await deps.store.consumeChallenge({ nonce: body.nonce, at: deps.clock.now() });
      if (spent !== "consumed") throw nonceRejectedError(spent === "used" ? "nonce_used" : "nonce_expired");

      const integrators = await deps.store.listIntegrators({ ownerWallet: body.owner_wallet });
      const keys = await deps.store.listApiKeys(integrators.map((integrator) => integrator.id));
      const budgets = await integratorGasBudgets(deps, integrators.map((integrator) => integrator.id));
      res.json({
        owner_wallet: body.owner_wallet,
        integrators: integrators.map((integrator) => profileView(integrator, keys, deps.config, budgets.get(integrator.id) ?? null)),
      });
    },
  ],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { bodySchema as meBodySchema };
