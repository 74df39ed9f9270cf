import type { RelayJson } from "./relayWire";

/**
 * What a webhook receives (the POST body) and what a server-sent `relay.status` event's data holds:
 * the event id (also the `webhook-id` header; deduplicate on it), when the change happened, and the
 * relay as GET /gasless/status/{relay_id} showed it right after the change.
 */
export type RelayStatusEventJson = { type: "relay.status"; event_id: string; timestamp: string; relay: RelayJson };

/** One event as the relayer's internal `GET /internal/relay-events` returns it; `body` is the RelayStatusEventJson text. */
export type RelayEventJson = { seq: number; event_id: string; relay_id: string; status: string; body: string };

/** One event of the relayer's internal `GET /internal/relay-events/feed` (every integrator's events). */
export type RelayFeedEventJson = RelayEventJson & { integrator_id: number };

/** Why a webhook attempt failed, as an integrator is told (never the socket's own error: that would map the relayer's network). */
export type WebhookFailureCode = "unreachable" | "timeout" | "tls" | "http_status";

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
  /**
   * Why the last attempt failed, coarsely: `unreachable` (no connection: refused, no route, a name
   * that does not resolve or resolves to an address a webhook may not reach), `timeout`, `tls`, or
   * `http_status` (an answer other than 2xx, redirects included: see last_response_status).
   */
  last_error: WebhookFailureCode | null;
  delivered_at: string | null;
  created_at: string;
};

/**
 * The webhook's circuit breaker: after WEBHOOK_BREAKER_FAILURES failed attempts in a row it opens and
 * nothing is sent until `open_until`; then (`half_open`) one delivery at a time probes the endpoint,
 * and a success closes it again.
 */
export type WebhookCircuitJson = { state: "closed" | "open" | "half_open"; consecutive_failures: number; open_until: string | null };

/** The answer of GET /gasless/webhook/deliveries: the webhook's URL and circuit (null when none is set) and its recent deliveries, newest first. */
export type WebhookDeliveriesJson = { url: string | null; circuit: WebhookCircuitJson | null; deliveries: WebhookDeliveryJson[] };

/** The answer of POST /integrators/webhook: the signing secret appears here once, never again. */
export type WebhookRegistrationJson = {
  integrator_id: number;
  url: string | null;
  /** `whsec_` + base64; null when the webhook was cleared. */
  secret: string | null;
  signature_scheme: "standard-webhooks-v1";
};
