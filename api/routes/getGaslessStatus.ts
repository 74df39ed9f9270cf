import { z } from "zod";
import { ApiError } from "../apiError";
import { RelayerClient } from "../gasless/relayerClient";
import { apiKeyAuth, principalOf } from "../middleware/apiKeyAuth";
import { QuoteBuckets } from "../quote/quoteBuckets";
import { parseRequest } from "../requestValidation";
import { publicRelay } from "./postGaslessSubmit";
import type { Route } from "./route";

const paramsSchema = z.object({ relay_id: z.uuid("must be a relay_id (a UUID) returned by POST /gasless/submit") });

/**
 * GET /gasless/status/{relay_id}: the relay as POST /gasless/submit returned it, now. Any key of the
 * integrator that submitted may read it; for everyone else it does not exist (404), so relay ids of
 * other integrators cannot be probed. Each read takes a point of the key's `gasless:status` bucket
 * (status_rate_limit_per_minute) before anything reaches the relayer; past it, 429 with Retry-After.
 */
export const getGaslessStatusRoute: Route = {
  method: "get",
  path: "/gasless/status/:relay_id",
  handlers: (deps) => {
    const relayer = deps.config.gasless === undefined ? undefined : new RelayerClient(deps.config.gasless);
    const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket }), deps.config.statusRateLimitMultiplier);
    return [
      apiKeyAuth(deps),
      async (req, res) => {
        await buckets.consume("gasless:status", principalOf(res), res);
        const { relay_id: relayId } = parseRequest(paramsSchema, req.params, "path");
        if (relayer === undefined) throw new ApiError(503, "gasless_unavailable", "this deployment has no relayer configured");
        const relay = await relayer.get(relayId);
        if (relay === undefined || relay.integrator_id !== principalOf(res).integratorId) {
          throw new ApiError(404, "relay_not_found", `no relay ${relayId} for this integrator`);
        }
        res.json(publicRelay(relay));
      },
    ];
  },
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { paramsSchema as gaslessStatusParamsSchema };
