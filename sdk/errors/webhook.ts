import { SdkError } from "./base";
import { ApiError } from "./client";

/** Why a receiver refused a webhook delivery. */
export type WebhookRejection = "missing_header" | "malformed_timestamp" | "stale_timestamp" | "signature_mismatch" | "malformed_secret" | "malformed_body" | "body_too_large";

const REJECTION_ADVICE: Readonly<Record<WebhookRejection, string>> = {
  missing_header: "Not a Standard Webhooks delivery: answer 400 and ignore it. Behind a proxy, make sure it forwards webhook-id, webhook-timestamp and webhook-signature.",
  malformed_timestamp: "Not a Standard Webhooks delivery: answer 400 and ignore it.",
  stale_timestamp: "A replayed or long-delayed delivery: answer 400 and ignore it (the sender retries with a fresh timestamp). If every delivery is refused, sync this machine's clock (NTP).",
  signature_mismatch:
    "The body is not what the API signed with this secret: answer 400 and ignore it. Verify the raw request body (before any JSON parsing), and use the secret of the latest registration: each setWebhook issues a new one.",
  malformed_secret: "Pass the whsec_… secret that setWebhook (POST /integrators/webhook) returned, as is.",
  body_too_large: "No delivery of this API is that large: answer 400 (or 413) and ignore it. Raise maxBodyBytes only if your deliveries truly are.",
  malformed_body: "The signature matches but the body is not a relay.status event of this API version: update the SDK, or log it and answer 2xx.",
};

/**
 * A webhook delivery the receiver must not trust (`verifyWebhook`, `verifyRelayWebhook`); `reason`
 * says which check failed. Answer such a request with a 4xx and do not act on its body.
 */
export class WebhookVerificationError extends SdkError {
  override name = "WebhookVerificationError";
  constructor(
    readonly reason: WebhookRejection,
    problem: string,
  ) {
    super(problem, { details: REJECTION_ADVICE[reason] });
  }
}

/**
 * The API refused a webhook URL (400 `webhook_url_not_https`, `webhook_url_internal`, or
 * `invalid_request` about `url`). `field` is always `url`; the API's reason is in the message.
 */
export class WebhookUrlError extends ApiError {
  override name = "WebhookUrlError";
  readonly field = "url";

  constructor(refusal: ApiError) {
    super({
      method: "POST",
      path: "/integrators/webhook",
      status: refusal.status,
      code: refusal.code,
      message: refusal.body.error === undefined ? refusal.shortMessage : String(refusal.body.error),
      body: { ...refusal.body },
      cause: refusal,
      details:
        "Register an absolute https URL of a public host, without credentials or a fragment (https://hooks.example.com/swap). Plain http is accepted only to a loopback host (http://127.0.0.1:PORT/…) on an API that allows it, as the devnet does (WEBHOOK_ALLOW_LOOPBACK_HTTP).",
    });
  }
}
