import { WebhookVerificationError } from "../errors/webhook";
import type { RelayStatusEventJson } from "../relay/pushedStatusWire";
import { relayStatusEventJsonSchema } from "../wire/pushedStatusJson";
import { verifyWebhook, webhookHeader, WEBHOOK_TOLERANCE_SECONDS, type ReceivedBody, type ReceivedHeaders } from "./webhookSignature";

export type VerifyRelayWebhookOptions = {
  /** The receiver's clock; default now. */
  now?: Date;
  /** How far `webhook-timestamp` may be from `now`; default WEBHOOK_TOLERANCE_SECONDS (5 minutes). */
  toleranceSeconds?: number;
};

/**
 * The receiving side of the API's webhooks, in one call: checks the Standard Webhooks signature and
 * timestamp of a delivery (`verifyWebhook`), then that the body is a `relay.status` event whose
 * `event_id` is the `webhook-id` header, and returns the event. Throws WebhookVerificationError (its
 * `reason` says which check failed): answer 400 and ignore the body. Deliveries are at least once:
 * deduplicate on `event_id` before acting on one.
 *
 * @example
 * // express: keep the raw body, the signature covers its exact bytes
 * app.post("/hooks/relays", express.text({ type: "application/json" }), (req, res) => {
 *   try {
 *     const event = verifyRelayWebhook(process.env.WEBHOOK_SECRET!, req.headers, req.body);
 *     if (!seen.has(event.event_id)) { seen.add(event.event_id); onStatus(event.relay); }
 *     res.sendStatus(204);
 *   } catch (error) {
 *     res.sendStatus(error instanceof WebhookVerificationError ? 400 : 500);
 *   }
 * });
 */
export function verifyRelayWebhook(secret: string, headers: ReceivedHeaders, body: ReceivedBody, options: VerifyRelayWebhookOptions = {}): RelayStatusEventJson {
  const parsed = relayStatusEventJsonSchema.safeParse(verifyWebhook(secret, headers, body, options.now, options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WebhookVerificationError("malformed_body", `the signed body is not a relay.status event (${issue === undefined ? "invalid" : `${issue.path.join(".") || "body"}: ${issue.message}`})`);
  }
  const event = parsed.data as RelayStatusEventJson;
  // The signature covers the header's id; the body must name the same event, so that deduplicating
  // on either one is the same.
  const headerId = webhookHeader(headers, "webhook-id");
  if (event.event_id !== headerId) throw new WebhookVerificationError("malformed_body", `the body's event_id ${event.event_id} is not the webhook-id ${headerId}`);
  return event;
}
