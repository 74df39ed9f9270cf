import { parseInternal, type InternalRoute } from "../internalRequest";
import { internalRelayJson } from "../relayView";
import { relayRequest } from "./postRelay";

const matchRequest = relayRequest.pick({ chain_id: true, quote_id: true, integrator_id: true, idempotency_key: true, signature: true });

/** `POST /internal/relays/match`: whether a hand-off of this quote was taken already (200 the same, 409 a conflicting one, `none`). */
export const postRelayMatchRoute: InternalRoute = {
  method: "post",
  path: "/internal/relays/match",
  handler:
    ({ context }) =>
    async (req, res) => {
      const body = parseInternal(matchRequest, req.body, "body");
      const match = await context.store.matchRelay({
        chainId: body.chain_id,
        quoteId: body.quote_id,
        integratorId: body.integrator_id,
        idempotencyKey: body.idempotency_key ?? undefined,
        signature: body.signature,
      });
      if (match === undefined) {
        res.json({ outcome: "none" });
        return;
      }
      res.status(match.outcome === "existing" ? 200 : 409).json({ outcome: match.outcome, relay: internalRelayJson(match.relay) });
    },
};
