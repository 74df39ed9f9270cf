import { randomBytes } from "node:crypto";
import { z } from "zod";
import { actionRequiresPayloadHash, createOnboardingMessage, onboardingActions } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { parseRequest } from "../requestValidation";
import { optionalChainId, payloadHash, walletAddress } from "../schemas/onboardingFields";
import { assertServedChain } from "../services/servedChain";
import type { Route } from "./route";

const bodySchema = z.strictObject({
  chain_id: optionalChainId,
  wallet: walletAddress,
  action: z.enum(onboardingActions),
  payload_hash: payloadHash.nullish().transform((value) => value ?? undefined),
});

/**
 * POST /integrators/nonce: issues a single-use SIWE challenge bound to the wallet, action, chain and
 * (for create and revoke) payload hash, and stores it; later requests are checked against the stored copy.
 */
export const postNonce: Route = {
  method: "post",
  path: "/integrators/nonce",
  handlers: (deps) => [
    async (req, res) => {
      const body = parseRequest(bodySchema, req.body);
      assertServedChain(deps.config, body.chain_id);
      const needsHash = actionRequiresPayloadHash(body.action);
      if (needsHash && body.payload_hash === undefined) {
        throw new ApiError("invalid_request", `payload_hash is required for action ${body.action}`);
      }
      // A view binds to no payload; a hash sent with it is ignored rather than half-honoured.
      const boundHash = needsHash ? body.payload_hash : undefined;

      const issuedAt = deps.clock.now();
      const expiresAt = new Date(issuedAt.getTime() + deps.config.nonceTtlSeconds * 1000);
      // 128 random bits as hex: alphanumeric, as EIP-4361 requires of a nonce.
      const nonce = randomBytes(16).toString("hex");
      const message = createOnboardingMessage({
        domain: deps.config.siweDomain,
        uri: deps.config.siweUri,
        wallet: body.wallet,
        chainId: deps.config.chainId,
        action: body.action,
        payloadHash: boundHash,
        nonce,
        issuedAt,
        expirationTime: expiresAt,
      });
      await deps.store.saveChallenge({
        nonce,
        wallet: body.wallet,
        action: body.action,
        chainId: deps.config.chainId,
        payloadHash: boundHash,
        message,
        issuedAt,
        expiresAt,
      });
      deps.logger.info({ wallet: body.wallet, action: body.action, nonce }, "nonce issued");
      res.json({ message, nonce, issued_at: issuedAt.toISOString(), expiration_time: expiresAt.toISOString() });
    },
  ],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { bodySchema as nonceBodySchema };
