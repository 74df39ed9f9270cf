import { isAddressEqual } from "viem";
import { z } from "zod";
import { newWebhookSecret, OnboardingAction, webhookPayloadHash, type WebhookRegistrationJson } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { RelayerClient } from "../gasless/relayerClient";
import { parseRequest } from "../requestValidation";
import { optionalChainId, payloadHash, positiveId, signedChallengeFields, walletAddress } from "../schemas/onboardingFields";
import { storableText } from "../schemas/plainText";
import { assertServedChain } from "../services/servedChain";
import { nonceRejectedError, signedFieldsOf, verifySignedRequest } from "../services/verifySignedRequest";
import { checkWebhookUrl } from "../services/webhookUrl";
import type { Route } from "./route";

const bodySchema = z.strictObject({
  chain_id: optionalChainId,
  owner_wallet: walletAddress,
  integrator_id: positiveId,
  /** The endpoint relay status changes are POSTed to; null clears the webhook. */
  url: storableText(z.string().min(1).max(2048)).meta({ format: "uri" }).nullable(),
  payload_hash: payloadHash,
  ...signedChallengeFields,
});

/**
 * POST /integrators/webhook: sets, replaces (a rotation: a new secret each time) or clears (url null)
 * the integrator's webhook, signed by its owner wallet with a `set_integrator_webhook` nonce whose
 * payload hash covers owner_wallet, integrator_id and url. The signing secret is in this answer only.
 * The relayers keep the endpoint (their outbox delivers to it), so the nonce is spent first and a
 * relayer that cannot be reached then answers 503: sign again with a new nonce.
 */
export const postIntegratorWebhook: Route = {
  method: "post",
  path: "/integrators/webhook",
  handlers: (deps) => {
    const relayer = deps.config.gasless === undefined ? undefined : new RelayerClient(deps.config.gasless);
    return [
      async (req, res) => {
        const body = parseRequest(bodySchema, req.body);
        assertServedChain(deps.config, body.chain_id);
        const url = body.url === null ? undefined : checkWebhookUrl(body.url, deps.config.pushed.allowLoopbackWebhooks);
        await verifySignedRequest(deps, {
          action: OnboardingAction.SetWebhook,
          wallet: body.owner_wallet,
          sentPayloadHash: body.payload_hash,
          // Hashed as sent: the signer signed the text they typed, not our normalisation of it.
          payloadHash: webhookPayloadHash({ owner_wallet: body.owner_wallet, integrator_id: body.integrator_id, url: body.url }),
          ...signedFieldsOf(body),
        });
        const integrator = await deps.store.findIntegrator(body.integrator_id);
        if (integrator === undefined) throw new ApiError("integrator_not_found", `integrator_id ${body.integrator_id} does not exist`);
        if (!isAddressEqual(integrator.ownerWallet, body.owner_wallet)) {
          throw new ApiError("not_integrator_owner", `owner_wallet does not own integrator_id ${body.integrator_id}`);
        }
        if (relayer === undefined) throw new ApiError("gasless_unavailable", "this deployment has no relayer configured");
        const spent = await deps.store.consumeChallenge({ nonce: body.nonce, at: deps.clock.now() });
        if (spent !== "consumed") throw nonceRejectedError(spent === "used" ? "nonce_used" : "nonce_expired");
        const secret = url === undefined ? undefined : newWebhookSecret();
        await relayer.setWebhook(integrator.id, url === undefined || secret === undefined ? undefined : { url, secret }).catch(() => {
          throw new ApiError("relayer_unavailable", "the relayer cannot be reached right now; the nonce is spent: request a new one and sign again");
        });
        deps.logger.info({ integratorId: integrator.id, url: url ?? null }, url === undefined ? "webhook cleared" : "webhook set");
        const answer: WebhookRegistrationJson = { integrator_id: integrator.id, url: url ?? null, secret: secret ?? null, signature_scheme: "standard-webhooks-v1" };
        res.setHeader("cache-control", "no-store");
        res.json(answer);
      },
    ];
  },
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { bodySchema as integratorWebhookBodySchema };
