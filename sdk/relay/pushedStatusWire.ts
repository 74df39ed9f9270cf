import type { RelayJson } from "./relayWire";

/**
 * What a webhook receives (the POST body) and what a server-sent `relay.status` event's data holds:
 * the event id (also the `webhook-id` header; deduplicate on it), when the change happened, and the
 * relay as GET /gasless/status/{relay_id} showed it right after the change.
 */
export type RelayStatusEventJson = { type: "relay.status"; event_id: string; timestamp: string; relay: RelayJson };

/** One event as the relayer's internal `GET /internal/relay-events` returns it; `body` is the RelayStatusEventJson text. */
export type RelayEventJson = { seq: number; event_id: string; relay_id: string; status: string; body: string };

/** One webhook delivery, as GET /gasless/webhook/deliveries lists it. */
export type WebhookDeliveryJson = {
  event_id: string;
  relay_id: string;
  /** The relay status the event reports. */
  status: string;
  /** `pending` (being retried), `delivered` (a 2xx), `failed` (given up after the retry window), `dropped` (the webhook was cleared). */
  state: "pending" | "delivered" | "failed" | "dropped";
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_response_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
};

/** The answer of POST /integrators/webhook: the signing secret appears here once, never again. */
export type WebhookRegistrationJson = {
  integrator_id: number;
  url: string | null;
  /** `whsec_` + base64; null when the webhook was cleared. */
  secret: string | null;
  signature_scheme: "standard-webhooks-v1";
};
