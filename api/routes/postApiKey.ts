import { isAddressEqual } from "viem";
import { z } from "zod";
import { apiKeyPayloadHash, OnboardingAction } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { defaultApiKeyScopes } from "../apiKeyScopes";
import { priceRateLimitPerMinute, statusRateLimitPerMinute } from "../quote/admission/quoteBuckets";
import { parseRequest } from "../requestValidation";
import { optionalChainId, payloadHash, positiveId, signedChallengeFields, text, walletAddress } from "../schemas/onboardingFields";
import { generateApiKey, maskApiKey } from "../services/apiKeySecret";
import { assertServedChain } from "../services/servedChain";
import { nonceRejectedError, signedFieldsOf, verifySignedRequest } from "../services/verifySignedRequest";
import type { Route } from "./route";
import { integratorGasBudgets } from "../gasless/integratorGasBudget";

const bodySchema = z.strictObject({
  chain_id: optionalChainId,
  owner_wallet: walletAddress,
  integrator_id: positiveId,
  label: text(64),
  payload_hash: payloadHash,
  ...signedChallengeFields,
});

/**
 * POST /integrators/api-keys: issues a key for an active profile of the signing wallet. The secret
 * appears in this response only; the store keeps its hash. A profile holds at most
 * MAX_API_KEYS_PER_INTEGRATOR keys that are not revoked (409 api_key_limit_reached past it): every
 * per-key bucket and stream cap would otherwise multiply with free keys. The nonce is not spent then.
 */
export const postApiKey: Route = {
  method: "post",
  path: "/integrators/api-keys",
  handlers: (deps) => [
    async (req, res) => {
      const body = parseRequest(bodySchema, req.body);
      assertServedChain(deps.config, body.chain_id);

      await verifySignedRequest(deps, {
        action: OnboardingAction.CreateApiKey,
        wallet: body.owner_wallet,
        sentPayloadHash: body.payload_hash,
        payloadHash: apiKeyPayloadHash(body),
        ...signedFieldsOf(body),
      });

      const integrator = await deps.store.findIntegrator(body.integrator_id);
      if (integrator === undefined) {
        throw new ApiError("integrator_not_found", `integrator_id ${body.integrator_id} does not exist`);
      }
      if (!isAddressEqual(integrator.ownerWallet, body.owner_wallet)) {
        throw new ApiError("not_integrator_owner", `owner_wallet does not own integrator_id ${body.integrator_id}`);
      }

      const secret = generateApiKey();
      const now = deps.clock.now();
      const result = await deps.store.createApiKey(
        {
          integratorId: integrator.id,
          label: body.label,
          prefix: secret.prefix,
          lastFour: secret.lastFour,
          secretHash: secret.secretHash,
          scopes: defaultApiKeyScopes,
          quoteRateLimitPerMinute: integrator.quoteRateLimitPerMinute ?? deps.config.defaultQuoteRateLimitPerMinute,
          swapRateLimitPerMinute: integrator.swapRateLimitPerMinute ?? deps.config.defaultSwapRateLimitPerMinute,
          createdAt: now,
        },
        { nonce: body.nonce, at: now },
        deps.config.maxApiKeysPerIntegrator,
      );
      switch (result.outcome) {
        case "integrator_not_found":
          throw new ApiError("integrator_not_found", `integrator_id ${body.integrator_id} does not exist`);
        case "integrator_not_active":
          throw new ApiError("integrator_not_active", `integrator ${integrator.slug} is ${integrator.status}; keys are issued only for active profiles`);
        case "key_limit_reached":
          throw new ApiError(
            "api_key_limit_reached",
            `integrator ${integrator.slug} has ${result.active} active API keys, the most MAX_API_KEYS_PER_INTEGRATOR (${deps.config.maxApiKeysPerIntegrator}) allows; revoke one first (revoked keys do not count)`,
            { body: { limit: deps.config.maxApiKeysPerIntegrator } },
          );
        case "nonce_used":
        case "nonce_expired":
          throw nonceRejectedError(result.outcome);
        case "created": {
          const { key } = result;
          deps.logger.info({ integratorId: integrator.id, keyId: key.id, prefix: key.prefix }, "api key created");
          const gasBudget = (await integratorGasBudgets(deps, [integrator.id])).get(integrator.id) ?? null;
          res.status(201).json({
            key_id: key.id,
            api_key: secret.apiKey,
            masked_key: maskApiKey(key.prefix, key.lastFour),
            prefix: key.prefix,
            scopes: key.scopes,
            quote_rate_limit_per_minute: key.quoteRateLimitPerMinute,
            swap_rate_limit_per_minute: key.swapRateLimitPerMinute,
            status_rate_limit_per_minute: statusRateLimitPerMinute(key.swapRateLimitPerMinute, deps.config.statusRateLimitMultiplier),
            price_rate_limit_per_minute: priceRateLimitPerMinute(key.quoteRateLimitPerMinute, deps.config.priceRateLimitMultiplier),
            // The spec's key response names the profile by slug here, unlike the application response.
            integrator_id: integrator.slug,
            integrator_fee_recipient: integrator.feeRecipient,
            integrator_max_fee_bps: integrator.maxFeeBps,
            gas_budget: gasBudget,
            shown_once: true,
          });
        }
      }
    },
  ],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { bodySchema as apiKeyBodySchema };
