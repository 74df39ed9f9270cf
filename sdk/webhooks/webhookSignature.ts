import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { WebhookVerificationError } from "../errors/webhook";

/**
 * Webhook signatures per the Standard Webhooks specification (standardwebhooks.com, v1 HMAC-SHA256):
 * the headers `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, which is
 * `v1,` + base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)), several space-separated during a
 * rotation. The secret is `whsec_` + base64 of the key's bytes.
 */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** How far a webhook's timestamp may be from the receiver's clock before `verifyWebhook` refuses it (replay window). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export type WebhookHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * A request's headers as a receiver has them: node's `req.headers` (express, fastify, http), a fetch
 * `Headers` (Next.js, Hono, workers), or a plain record. Names are matched case-insensitively.
 */
export type ReceivedHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** The raw request body, as received: verify it before any JSON parsing changes a byte. */
export type ReceivedBody = string | Uint8Array;

/** A fresh signing secret: 32 random bytes, `whsec_`-prefixed base64. */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64");
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error(`a webhook secret starts with ${WEBHOOK_SECRET_PREFIX}`);
  return Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), "base64");
}

/** The v1 signature of one message: `v1,<base64>`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/** The three headers of a delivery sent at `at`. */
export function webhookHeaders(secret: string, id: string, at: Date, body: string): WebhookHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signWebhook(secret, id, timestamp, body) };
}

/** One header of a delivery, by its lower-case name; WebhookVerificationError `missing_header` when absent or empty. */
export function webhookHeader(headers: ReceivedHeaders, name: string): string {
  let value: string | readonly string[] | null | undefined;
  if (typeof Headers !== "undefined" && headers instanceof Headers) value = headers.get(name);
  else {
    const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
    value = record[name] ?? Object.entries(record).find(([key]) => key.toLowerCase() === name)?.[1];
  }
  const text = typeof value === "string" ? value : value?.[0];
  if (text === undefined || text === "") throw new WebhookVerificationError("missing_header", `missing header ${name}`);
  return text;
}

/**
 * A receiver's check: the body is exactly what was signed with `secret`, and its timestamp is within
 * `toleranceSeconds` of `now`. Returns the parsed body. Throws WebhookVerificationError (with its
 * `reason`) otherwise. Deduplicate on `webhook-id` (the event id) afterwards: a delivery can arrive
 * more than once. `verifyRelayWebhook` adds the check of the event itself.
 */
export function verifyWebhook(secret: string, headers: ReceivedHeaders, body: ReceivedBody, now: Date = new Date(), toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS): unknown {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new WebhookVerificationError("malformed_secret", `a webhook secret starts with ${WEBHOOK_SECRET_PREFIX}`);
  const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
  const id = webhookHeader(headers, "webhook-id");
  const timestampText = webhookHeader(headers, "webhook-timestamp");
  if (!/^[0-9]{1,12}$/.test(timestampText)) throw new WebhookVerificationError("malformed_timestamp", "webhook-timestamp is not Unix seconds");
  const timestamp = Number(timestampText);
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) {
    throw new WebhookVerificationError("stale_timestamp", `webhook-timestamp ${timestamp} is outside the ${toleranceSeconds} s tolerance`);
  }
  const expected = Buffer.from(signWebhook(secret, id, timestamp, text));
  const matches = webhookHeader(headers, "webhook-signature")
    .split(" ")
    .some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) throw new WebhookVerificationError("signature_mismatch", "no webhook-signature matches the body");
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebhookVerificationError("malformed_body", "the signed body is not JSON");
  }
}
