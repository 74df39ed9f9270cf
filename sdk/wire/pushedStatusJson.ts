import { z } from "zod";
import { relayJsonSchema } from "./relayJson";

/** A webhook's POST body and a `relay.status` server-sent event's data (RelayStatusEventJson). */
export const relayStatusEventJsonSchema = z.object({
  type: z.literal("relay.status"),
  event_id: z.string().describe("Unique per event; also the webhook-id header. Deduplicate on it: a delivery may come more than once"),
  timestamp: z.string().describe("When the status changed (ISO 8601)"),
  relay: relayJsonSchema,
});

/** The answer of POST /integrators/webhook (WebhookRegistrationJson). */
export const webhookRegistrationJsonSchema = z.object({
  integrator_id: z.number().int(),
  url: z.string().nullable(),
  secret: z.string().nullable().describe("whsec_ + base64: shown in this answer only; null when the webhook was cleared"),
  signature_scheme: z.literal("standard-webhooks-v1"),
});

/** The answer of GET /gasless/webhook/deliveries. */
export const webhookDeliveriesJsonSchema = z.object({
  url: z.string().nullable(),
  circuit: z
    .object({
      state: z.enum(["closed", "open", "half_open"]),
      consecutive_failures: z.number().int(),
      open_until: z.string().nullable(),
    })
    .nullable()
    .describe("The endpoint's circuit breaker: open after repeated failures (nothing is sent until open_until), then half_open (one probe at a time); null without a webhook"),
  deliveries: z.array(
    z.object({
      event_id: z.string(),
      relay_id: z.string(),
      status: z.string(),
      state: z.enum(["pending", "delivered", "failed", "dropped"]),
      attempts: z.number().int(),
      next_attempt_at: z.string().nullable(),
      last_attempt_at: z.string().nullable(),
      last_response_status: z.number().int().nullable(),
      last_error: z.enum(["unreachable", "timeout", "tls", "http_status"]).nullable().describe("Why the last attempt failed, coarsely (never the socket's own error)"),
      delivered_at: z.string().nullable(),
      created_at: z.string(),
    }),
  ),
});
