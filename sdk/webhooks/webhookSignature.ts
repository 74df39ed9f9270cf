import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

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

export class WebhookVerificationError extends Error {
  override name = "WebhookVerificationError";
}

/**
 * A receiver's check: the body is exactly what was signed with `secret`, and its timestamp is within
 * `toleranceSeconds` of `now`. Returns the parsed body. Throws WebhookVerificationError otherwise.
 * Deduplicate on `webhook-id` (the event id) afterwards: a delivery can arrive more than once.
 */
export function verifyWebhook(secret: string, headers: Record<string, string | string[] | undefined>, body: string, now: Date = new Date(), toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS): unknown {
  const header = (name: string) => {
    const value = headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    if (text === undefined || text === "") throw new WebhookVerificationError(`missing header ${name}`);
    return text;
  };
  const id = header("webhook-id");
  const timestampText = header("webhook-timestamp");
  if (!/^[0-9]{1,12}$/.test(timestampText)) throw new WebhookVerificationError("webhook-timestamp is not Unix seconds");
  const timestamp = Number(timestampText);
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) throw new WebhookVerificationError(`webhook-timestamp ${timestamp} is outside the ${toleranceSeconds} s tolerance`);
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body));
  const matches = header("webhook-signature")
    .split(" ")
    .some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  if (!matches) throw new WebhookVerificationError("no webhook-signature matches the body");
  return JSON.parse(body) as unknown;
}
