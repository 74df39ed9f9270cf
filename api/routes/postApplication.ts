import { isAddressEqual } from "viem";
import { z } from "zod";
import { applicationPayloadHash, OnboardingAction } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { parseRequest } from "../requestValidation";
import {
  appUrl,
  contactEmail,
  feeBps,
  optionalChainId,
  optionalText,
  payloadHash,
  signedChallengeFields,
  slug,
  text,
  walletAddress,
} from "../schemas/onboardingFields";
import { assertServedChain } from "../services/servedChain";
import { nonceRejectedError, signedFieldsOf, verifySignedRequest } from "../services/verifySignedRequest";
import type { Route } from "./route";

const bodySchema = z.strictObject({
  chain_id: optionalChainId,
  owner_wallet: walletAddress,
  display_name: text(100),
  slug,
  contact_email: contactEmail,
  telegram_handle: optionalText(64),
  app_url: appUrl,
  fee_recipient: walletAddress,
  requested_max_fee_bps: feeBps,
  payload_hash: payloadHash,
  ...signedChallengeFields,
});

/** POST /integrators/applications: creates a profile owned by the signing wallet, `active` or `pending`. */
export const postApplication: Route = {
  method: "post",
  path: "/integrators/applications",
  handlers: (deps) => [
    async (req, res) => {
      const body = parseRequest(bodySchema, req.body);
      assertServedChain(deps.config, body.chain_id);
      if (!isAddressEqual(body.fee_recipient, body.owner_wallet)) {
        throw new ApiError("fee_recipient_not_owner", "fee_recipient must equal owner_wallet");
      }
      if (body.requested_max_fee_bps > deps.config.maxFeeBps) {
        throw new ApiError("fee_bps_out_of_range", `requested_max_fee_bps must be at most ${deps.config.maxFeeBps}`);
      }

      await verifySignedRequest(deps, {
        action: OnboardingAction.CreateApplication,
        wallet: body.owner_wallet,
        sentPayloadHash: body.payload_hash,
        payloadHash: applicationPayloadHash(body),
        ...signedFieldsOf(body),
      });

      const now = deps.clock.now();
      const result = await deps.store.createIntegrator(
        {
          slug: body.slug,
          ownerWallet: body.owner_wallet,
          displayName: body.display_name,
          contactEmail: body.contact_email,
          telegramHandle: body.telegram_handle,
          appUrl: body.app_url,
          feeRecipient: body.fee_recipient,
          maxFeeBps: body.requested_max_fee_bps,
          chainId: body.chain_id,
          status: deps.config.autoApprove ? "active" : "pending",
          createdAt: now,
        },
        { nonce: body.nonce, at: now },
      );
      switch (result.outcome) {
        case "slug_taken":
          throw new ApiError("slug_taken", `slug ${body.slug} is already taken`);
        case "nonce_used":
        case "nonce_expired":
          throw nonceRejectedError(result.outcome);
        case "created": {
          const { integrator } = result;
          deps.logger.info({ integratorId: integrator.id, slug: integrator.slug, status: integrator.status }, "integrator application accepted");
          res.status(201).json({
            integrator_id: integrator.id,
            slug: integrator.slug,
            status: integrator.status,
            message:
              integrator.status === "active"
                ? "Application approved: the profile is active and API keys can be created now."
                : "Application submitted for review: API keys can be created once an operator approves it.",
          });
        }
      }
    },
  ],
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { bodySchema as applicationBodySchema };
