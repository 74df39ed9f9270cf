import type { RequestHandler } from "express";
import { z } from "zod";
import type { InternalRelayCancellationJson } from "../sdk";
import { cancelRelay, type TrackRelay } from "./relayCancellation";
import type { RelayContext } from "./relayContext";
import { internalRelayJson } from "./relayView";

const cancelRequest = z.strictObject({ integrator_id: z.number().int().positive() });

/**
 * `POST /internal/relays/:id/cancel` with `{ integrator_id }`: the API's forward of
 * `POST /gasless/cancel/{relay_id}`. A relay of another integrator is as absent as an unknown one
 * (404); a final one is answered 409 with `outcome: "final"`; otherwise 200 with what was done.
 */
export function relayCancelHandler(context: RelayContext, track: TrackRelay): RequestHandler {
  return async (req, res) => {
    const parsed = cancelRequest.safeParse(req.body);
    if (!parsed.success) {
      res.status(400).json({ error: `${parsed.error.issues[0]?.path.join(".") ?? "body"}: ${parsed.error.issues[0]?.message ?? "invalid"}`, code: "invalid_request" });
      return;
    }
    const relayId = String(req.params.id);
    const found = z.uuid().safeParse(relayId).success ? await context.store.getRelay(relayId) : undefined;
    if (found === undefined || found.integratorId !== parsed.data.integrator_id) {
      res.status(404).json({ error: `no relay ${relayId}`, code: "relay_not_found" });
      return;
    }
    const cancellation = await cancelRelay(context, relayId, track);
    if (cancellation === undefined) {
      res.status(404).json({ error: `no relay ${relayId}`, code: "relay_not_found" });
      return;
    }
    const { outcome, relay } = cancellation;
    const body: InternalRelayCancellationJson = { outcome, relay: internalRelayJson(relay), taker: relay.taker, permit2_nonce: relay.permit2Nonce.toString() };
    res.status(outcome === "final" ? 409 : 200).json(body);
  };
}
