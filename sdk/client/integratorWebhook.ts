import { ApiError } from "../errors/client";
import { WebhookUrlError } from "../errors/webhook";
import type { WebhookDeliveriesJson } from "../relay/pushedStatusWire";
import { webhookDeliveriesJsonSchema } from "../wire/pushedStatusJson";
import type { ApiTransport } from "./apiTransport";

export type WebhookDeliveriesOptions = {
  /** How many of the newest deliveries, 1-200; default 50 (the API's). */
  limit?: number;
  signal?: AbortSignal;
};

/**
 * GET /gasless/webhook/deliveries: the integrator's webhook URL and its recent deliveries (newest
 * first) with their state (`pending`, `delivered`, `failed`, `dropped`), attempts and the endpoint's
 * last answer: what to read when an endpoint receives nothing. Any key of the integrator.
 */
export async function getWebhookDeliveries(transport: ApiTransport, options: WebhookDeliveriesOptions = {}): Promise<WebhookDeliveriesJson> {
  const query = options.limit === undefined ? "" : `?limit=${options.limit}`;
  const response = await transport.request({ method: "GET", path: `/gasless/webhook/deliveries${query}`, authenticated: true, retry: true, signal: options.signal });
  return webhookDeliveriesJsonSchema.parse(response.body) as WebhookDeliveriesJson;
}

const URL_CODES = new Set(["webhook_url_not_https", "webhook_url_internal"]);

/** POST /integrators/webhook's refusal of the URL as a WebhookUrlError; any other error as it was. */
export function webhookUrlRefusal(error: unknown): unknown {
  if (!(error instanceof ApiError) || error.status !== 400) return error;
  const message = typeof error.body.error === "string" ? error.body.error : "";
  const aboutUrl = URL_CODES.has(error.code) || (error.code === "invalid_request" && /^url\b/.test(message));
  return aboutUrl ? new WebhookUrlError(error) : error;
}
