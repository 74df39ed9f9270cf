import { isAddressEqual } from "viem";
import { z } from "zod";
import { OnboardingAction, revokeApiKeyPayloadHash } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { parseRequest } from "../requestValidation";
import { optionalChainId, payloadHash, positiveId, signedChallengeFields, walletAddress } from "../schemas/onboardingFields";
import { assertServedChain } from "../services/servedChain";
import { nonceRejectedError, signedFieldsOf, verifySignedRequest } from "../services/verifySignedRequest";
import type { Route } from "./route";

const paramsSchema = z.object({
  key_id: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/, "must be a positive integer")
    .transform(Number),
});

const bodySchema = z.strictObject({
  chain_id: optionalChainId,
  owner_wallet: walletAddress,
  integrator_id: positiveId,
  /** Optional echo of the path's key id; when present it must agree with the path. */
  key_id: positiveId.optional(),
  payload_hash: payloadHash,
  ...signedChallengeFields,
});

/**
 * POST /integrators/api-keys/{key_id}/revoke: revokes a key of the signing wallet's profile. It takes
 * effect at once: the auth middleware reads the key's state on every request.
 */
export const postRevokeApiKey: Route = {
  method: "post",
  path: "/integrators/api-keys/:key_id/revoke",
  handlers: (deps) => [
    async (req, res) => {
      const { key_id: keyId } = parseRequest(paramsSchema, req.params, "path");
      const body = parseRequest(bodySchema, req.body);
      assertServedChain(deps.config, body.chain_id);
      if (body.key_id !== undefined && body.key_id !== keyId) {
        throw new ApiError("invalid_request", `key_id in the body (${body.key_id}) differs from the path (${keyId})`);
      }

      await verifySignedRequest(deps, {
        action: OnboardingAction.RevokeApiKey,
        wallet: body.owner_wallet,
        sentPayloadHash: body.payload_hash,
        payloadHash: revokeApiKeyPayloadHash({ owner_wallet: body.owner_wallet, integrator_id: body.integrator_id, key_id: keyId }),
        ...signedFieldsOf(body),
      });

      const [key, integrator] = await Promise.all([deps.store.findApiKey(keyId), deps.store.findIntegrator(body.integrator_id)]);
      if (integrator === undefined) {
        throw new ApiError("integrator_not_found", `integrator_id ${body.integrator_id} does not exist`);
      }
      if (!isAddressEqual(integrator.ownerWallet, body.owner_wallet)) {
        throw new ApiError("not_integrator_owner", `owner_wallet does not own integrator_id ${body.integrator_id}`);
      }
      if (key === undefined || key.integratorId !== integrator.id) {
        throw new ApiError("api_key_not_found", `key_id ${keyId} is not a key of integrator_id ${integrator.id}`);
      }

      const now = deps.clock.now();
      const result = await deps.store.revokeApiKey(keyId, now, { nonce: body.nonce, at: now });
      switch (result.outcome) {
        case "not_found":
          throw new ApiError("api_key_not_found", `key_id ${keyId} does not exist`);
        case "already_revoked":
          throw new ApiError("api_key_already_revoked", `key_id ${keyId} was already revoked at ${result.key.revokedAt?.toISOString()}`);
        case "nonce_used":
        case "nonce_expired":
          throw nonceRejectedError(result.outcome);
        case "revoked":
          deps.logger.info({ integratorId: integrator.id, keyId }, "api key revoked");
          res.json({
            key_id: result.key.id,
            integrator_id: integrator.id,
            revoked: true,
            revoked_at: result.key.revokedAt?.toISOString() ?? now.toISOString(),
          });
      }
    },
  ],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { paramsSchema as revokeApiKeyParamsSchema, bodySchema as revokeApiKeyBodySchema };
