import { z } from "zod";
import { ApiError } from "../../../sdk/server/apiError";
import type { InternalRoute } from "../internalRequest";
import { internalRelayJson } from "../relayView";

/** `GET /internal/relays/:id`: a relay as the API reads it back (404 for an id that is not one). */
export const getRelayRoute: InternalRoute = {
  method: "get",
  path: "/internal/relays/:id",
  handler:
    ({ context }) =>
    async (req, res) => {
      const id = String(req.params.id);
      const relay = z.uuid().safeParse(id).success ? await context.store.getRelay(id) : undefined;
      if (relay === undefined) throw new ApiError("relay_not_found", `no relay ${id}`);
      res.json(internalRelayJson(relay));
    },
};
