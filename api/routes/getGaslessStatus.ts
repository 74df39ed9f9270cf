import { z } from "zod";
import { integratorRelayHandlers, relayIdField } from "../gasless/integratorRelayAccess";
import { parseRequest } from "../requestValidation";
import { publicRelay } from "./postGaslessSubmit";
import type { Route } from "./route";

const paramsSchema = z.object({ relay_id: relayIdField });

/**
 * GET /gasless/status/{relay_id}: the relay as POST /gasless/submit returned it, now. Any key of the
 * integrator that submitted may read it; for everyone else it does not exist (404), so relay ids of
 * other integrators cannot be probed. Each read takes a point of the key's `gasless:status` bucket
 * (status_rate_limit_per_minute) before anything reaches the relayer; past it, 429 with Retry-After.
 */
export const getGaslessStatusRoute: Route = {
  method: "get",
  path: "/gasless/status/:relay_id",
  handlers: (deps) =>
    integratorRelayHandlers(deps, "gasless:status", async (req, res, access) => {
      const { relay_id: relayId } = parseRequest(paramsSchema, req.params, "path");
      res.json(publicRelay(await access.ownRelay(relayId)));
    }),
};

/** The request schema, for the OpenAPI document (api/openapi). */
export { paramsSchema as gaslessStatusParamsSchema };
