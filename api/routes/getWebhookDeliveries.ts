import { z } from "zod";
import { integratorRelayHandlers } from "../gasless/integratorRelayAccess";
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
  handlers: (deps) =>
    integratorRelayHandlers(deps, "gasless:status", async (req, res, { principal, relayer }) => {
      const { limit } = parseRequest(querySchema, req.query, "query");
      res.json(await relayer().webhookDeliveries(principal.integratorId, limit));
    }),
};

export { querySchema as webhookDeliveriesQuerySchema };
