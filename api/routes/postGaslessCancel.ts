import { z } from "zod";
import { encodeInvalidateNonce, PERMIT2_ADDRESS, type InvalidateNonceJson, type RelayCancellationJson } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { assertOwnRelay, integratorRelayHandlers, relayIdField } from "../gasless/integratorRelayAccess";
import { parseRequest } from "../requestValidation";
import { publicRelay } from "./postGaslessSubmit";
import type { Route } from "./route";

const paramsSchema = z.object({ relay_id: relayIdField });

/**
 * POST /gasless/cancel/{relay_id}: cancels a relay of the key's integrator (any of its keys, as for
 * GET /gasless/status; for everyone else the relay does not exist, 404). Not yet broadcast, it ends
 * `cancelled` and is never sent; pending, its swap is replaced at the same nonce by a zero-value
 * self-transfer and the relay stays `submitted` until the chain decides (`outcome` says which case;
 * see sdk/relay/relayCancelOutcome.ts). A final relay: 409 `relay_final` with its `status`. The
 * answer also carries the taker's own way to kill the signature on chain, Permit2's
 * `invalidateUnorderedNonces` for the order's nonce. Rate-limited like status reads: each request
 * takes a point of the key's `gasless:cancel` bucket, with the allowance of `gasless:status`.
 */
export const postGaslessCancelRoute: Route = {
  method: "post",
  path: "/gasless/cancel/:relay_id",
  handlers: (deps) =>
    integratorRelayHandlers(deps, "gasless:cancel", async (req, res, { principal, relayer }) => {
      const { relay_id: relayId } = parseRequest(paramsSchema, req.params, "path");
      const cancellation = await relayer().cancel(relayId, principal.integratorId);
      assertOwnRelay(cancellation, (found) => found.relay.integrator_id, relayId, principal.integratorId);
      const { outcome, relay } = cancellation;
      if (outcome === "final") {
        throw new ApiError("relay_final", `relay ${relayId} is already ${relay.status}; there is nothing to cancel`, { body: { status: relay.status, relay_id: relayId } });
      }
      const permit2 = deps.chains.get(relay.chain_id)?.manifest.contracts.permit2 ?? PERMIT2_ADDRESS;
      const invalidation: InvalidateNonceJson = {
        chain_id: relay.chain_id,
        from: cancellation.taker,
        to: permit2,
        data: encodeInvalidateNonce(BigInt(cancellation.permit2_nonce)),
        value: "0",
        permit2_nonce: cancellation.permit2_nonce,
      };
      const body: RelayCancellationJson = { outcome, relay: publicRelay(relay), invalidate_nonce: invalidation };
      res.json(body);
    }),
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { paramsSchema as gaslessCancelParamsSchema };
