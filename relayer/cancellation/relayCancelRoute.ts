import type { RequestHandler } from "express";
import { z } from "zod";
import { isFinalRelayStatus, type InternalRelayCancellationJson } from "../../sdk";
import { budgetRefusal } from "../../sdk/relay/budgetRefusal";
import { integratorGasBudget } from "../intake/gaslessStanding";
import { cancelRelay, type TrackRelay } from "./relayCancellation";
import type { RelayContext } from "../queue/relayContext";
import { internalRelayJson } from "../intake/relayView";

/** What a spent integrator budget refuses here (a replacement transaction is the relayer's gas). */
const BROADCAST_CANCELS_REFUSED = "cancels of swaps already broadcast (each costs the relayer a replacement transaction) are refused";

const cancelRequest = z.strictObject({ integrator_id: z.number().int().positive() });

/**
 * `POST /internal/relays/:id/cancel` with `{ integrator_id }`: the API's forward of
 * `POST /gasless/cancel/{relay_id}`. A relay of another integrator is as absent as an unknown one
 * (404); a final one is answered 409 with `outcome: "final"`; a broadcast one whose integrator's gas
 * budget is spent 403 `gasless_integrator_gas_budget_spent`; otherwise 200 with what was done.
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
    // A cancel of a swap already broadcast makes the relayer pay a replacement (charged to the
    // integrator when mined): refused before anything is sent once the integrator's budget is spent.
    // One never broadcast is free and always served; a repeated request of a relay already being
    // cancelled sends nothing more and is answered as before.
    const broadcast = found.signer !== undefined || found.transactions.length > 0;
    if (!isFinalRelayStatus(found.status) && broadcast && found.cancelRequestedAt === undefined) {
      const budget = await integratorGasBudget(context.store, context.config.gasBudgets, found.integratorId, context.now());
      if (budget.integrator.spent) {
        context.logger.info({ relayId, integratorId: found.integratorId, chargedGas: budget.integrator.charged_gas }, "cancel of a broadcast swap refused: the integrator's gas budget is spent");
        res.status(403).json(budgetRefusal("integrator", budget.integrator, budget.window_hours, BROADCAST_CANCELS_REFUSED));
        return;
      }
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
