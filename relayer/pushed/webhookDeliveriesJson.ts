import type { WebhookDeliveriesJson, WebhookDeliveryJson, WebhookFailureCode } from "../../sdk";
import { circuitState, type PushedStatusStore } from "../store/pushedStatusStore";

/** An integrator's webhook, its circuit breaker and its recent deliveries, as GET /gasless/webhook/deliveries answers them. */
export async function webhookDeliveriesJson(store: PushedStatusStore, integratorId: number, limit: number, now: Date): Promise<WebhookDeliveriesJson> {
  const [endpoint, deliveries] = await Promise.all([store.getWebhook(integratorId), store.listWebhookDeliveries(integratorId, limit)]);
  const json: WebhookDeliveryJson[] = deliveries.map((delivery) => ({
    event_id: delivery.eventId,
    relay_id: delivery.relayId,
    status: delivery.status,
    state: delivery.state,
    attempts: delivery.attempts,
    next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
    last_response_status: delivery.lastStatus ?? null,
    // Only coarse codes are written (the relay migrations coarsened older rows).
    last_error: (delivery.lastError as WebhookFailureCode | undefined) ?? null,
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
    created_at: delivery.createdAt.toISOString(),
  }));
  const circuit = endpoint?.circuit;
  return {
    url: endpoint?.url ?? null,
    circuit:
      circuit === undefined
        ? null
        : { state: circuitState(circuit, now), consecutive_failures: circuit.consecutiveFailures, open_until: circuit.openUntil?.toISOString() ?? null },
    deliveries: json,
  };
}
