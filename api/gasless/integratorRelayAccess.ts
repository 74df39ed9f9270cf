import type { Request, RequestHandler, Response } from "express";
import { z } from "zod";
import type { InternalRelayJson } from "../../sdk";
import type { ApiDependencies } from "../apiDependencies";
import { ApiError } from "../../sdk/server/apiError";
import { apiKeyAuth, principalOf, type ApiKeyPrincipal } from "../middleware/apiKeyAuth";
import { QuoteBuckets, type QuoteBucket } from "../quote/admission/quoteBuckets";
import { RelayerClient } from "./relayerClient";

/** A relay_id in a path or query: the UUID POST /gasless/submit returned. */
export const relayIdField = z.uuid("must be a relay_id (a UUID) returned by POST /gasless/submit");

/** What a gasless route of an integrator's key gets once the key is authenticated and its bucket charged. */
export type IntegratorRelayAccess = Readonly<{
  principal: ApiKeyPrincipal;
  /**
   * The relayer, or 503 `gasless_unavailable` when this deployment has none. Asked for after the
   * request is validated, so a malformed request is a 400 even without a relayer.
   */
  relayer(): RelayerClient;
  /** The relay when it belongs to the key's integrator; 404 `relay_not_found` otherwise (see `assertOwnRelay`). */
  ownRelay(relayId: string): Promise<InternalRelayJson>;
}>;

/**
 * 404 unless `found` (a relay, or an answer about one) exists and its relay belongs to
 * `integratorId`: another integrator's relay does not exist for this key, so relay ids cannot be probed.
 */
export function assertOwnRelay<Found>(found: Found | undefined, integratorOf: (found: Found) => number, relayId: string, integratorId: number): asserts found is Found {
  if (found === undefined || integratorOf(found) !== integratorId) throw new ApiError("relay_not_found", `no relay ${relayId} for this integrator`);
}

/**
 * The shared start of the gasless routes an integrator's key calls (status, cancel, events, webhook
 * deliveries): `apiKeyAuth`, then one point of the key's `bucket` before anything reaches the
 * relayer, then the route's own handler with the relayer and the ownership check at hand. Each route
 * keeps its own relayer client and buckets, as it did when each wrote this out.
 */
export function integratorRelayHandlers(
  deps: ApiDependencies,
  bucket: Extract<QuoteBucket, "gasless:status" | "gasless:cancel">,
  handle: (req: Request, res: Response, access: IntegratorRelayAccess) => Promise<void>,
): RequestHandler[] {
  const relayer = deps.config.gasless === undefined ? undefined : new RelayerClient(deps.config.gasless);
  const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier, deps.rateLimiters, (name) => deps.metrics?.rateLimited.inc({ bucket: name }), deps.config.statusRateLimitMultiplier);
  const relayerOrUnavailable = (): RelayerClient => {
    if (relayer === undefined) throw new ApiError("gasless_unavailable", "this deployment has no relayer configured");
    return relayer;
  };
  return [
    apiKeyAuth(deps),
    async (req, res) => {
      const principal = principalOf(res);
      await buckets.consume(bucket, principal, res);
      await handle(req, res, {
        principal,
        relayer: relayerOrUnavailable,
        ownRelay: async (relayId) => {
          const relay = await relayerOrUnavailable().get(relayId);
          assertOwnRelay(relay, (found) => found.integrator_id, relayId, principal.integratorId);
          return relay;
        },
      });
    },
  ];
}
