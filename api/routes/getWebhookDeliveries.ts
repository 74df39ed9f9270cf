import { z } from "zod";
import { ApiError } from "../apiError";
import { RelayerClient } from "../gasless/relayerClient";
import { apiKeyAuth, principalOf } from "../middleware/apiKeyAuth";
import { QuoteBuckets } from "../quote/quoteBuckets";
import { parseRequest } from "../requestValidation";
import type { Route } from "./route";

const querySchema = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50) });

/**
 * GET /gasless/webhook/deliveries: the integrator's webhook URL and its most recent deliveries
 * (newest first) with their state, attempts and last answer, so an integrator can see why its
 * endpoint gets nothing. Any key of the integrator; takes a point of the `gasless:status` bucket.
 */
export const getWebhookDeliveriesRoute: Route = {
  method: "get",
  path: "/gasless/webhook/deliveries",
  handlers: (deps) => {
    const relayer = deps.config.gasless === undefined ? undefined : new RelayerClient(deps.config.gasless);
    const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket }), deps.config.statusRateLimitMultiplier);
    return [
      apiKeyAuth(deps),
      async (req, res) => {
        await buckets.consume("gasless:status", principalOf(res), res);
        const { limit } = parseRequest(querySchema, req.query, "query");
        if (relayer === undefined) throw new ApiError(503, "gasless_unavailable", "this deployment has no relayer configured");
        res.json(await relayer.webhookDeliveries(principalOf(res).integratorId, limit));
      },
    ];
  },
};

export { querySchema as webhookDeliveriesQuerySchema };
