import type { IncomingMessage, ServerResponse } from "node:http";
import { ClientConfigError } from "../errors/client";
import { WebhookVerificationError } from "../errors/webhook";
import type { RelayStatusEventJson } from "../relay/pushedStatusWire";
import { verifyRelayWebhook, type VerifyRelayWebhookOptions } from "./relayWebhook";
import type { ReceivedBody } from "./webhookSignature";

/** A Node request as plain `http` or express hands it over; express's body parsers leave their result in `body`. */
export type WebhookRequest = IncomingMessage & { body?: unknown };

export type ReadRelayWebhookOptions = VerifyRelayWebhookOptions & {
  /** The largest body read (a delivery is a few KB); past it the delivery is refused (`body_too_large`). Default 1 MiB. */
  maxBodyBytes?: number;
};

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * The exact bytes of the request body, which the signature covers: the stream itself, or what
 * `express.raw()` (a Buffer) or `express.text()` (a string) read from it. A body already parsed into
 * an object (`express.json()`) cannot be verified: the bytes are gone.
 */
async function rawBody(request: WebhookRequest, maxBytes: number): Promise<ReceivedBody> {
  const parsed = request.body;
  if (typeof parsed === "string" || parsed instanceof Uint8Array) return parsed;
  if (parsed !== undefined && parsed !== null && request.readableEnded) {
    throw new ClientConfigError(
      "the webhook request's body was already parsed (express.json()?), so its signature cannot be checked",
      'Mount express.raw({ type: "application/json" }) (or no body parser) on the webhook route: the signature covers the raw bytes.',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer | string>) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) throw new WebhookVerificationError("body_too_large", `the body is larger than ${maxBytes} bytes`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

/**
 * Reads, verifies and parses one webhook delivery from a Node request (plain `http`, or express with
 * `express.raw()` or no body parser): the Standard Webhooks signature and timestamp, then the
 * `relay.status` event (verifyRelayWebhook). Throws WebhookVerificationError for a delivery not to
 * trust (answer 400), ClientConfigError when the body was parsed before it could be checked.
 *
 * @example
 * http.createServer(async (req, res) => {
 *   const event = await readRelayWebhook(secret, req).catch(() => undefined);
 *   res.writeHead(event === undefined ? 400 : 204).end();
 *   if (event !== undefined) onStatus(event.relay);
 * });
 */
export async function readRelayWebhook(secret: string, request: WebhookRequest, options: ReadRelayWebhookOptions = {}): Promise<RelayStatusEventJson> {
  const body = await rawBody(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  return verifyRelayWebhook(secret, request.headers, body, options);
}

/**
 * A request handler for plain `http` (`http.createServer(handler)`) and express
 * (`app.post("/hooks/relays", handler)`): verifies each delivery (readRelayWebhook), calls `onEvent`,
 * and answers 204 once it resolved. A delivery not to trust is answered 400 with
 * `{"error", "code": <reason>}` and `onEvent` is not called; a failing `onEvent` (or a misconfigured
 * route) is answered 500, so the API delivers the event again later. Deliveries are at least once:
 * deduplicate on `event.event_id` in `onEvent`.
 */
export function relayWebhookHandler(
  secret: string,
  onEvent: (event: RelayStatusEventJson) => void | Promise<void>,
  options: ReadRelayWebhookOptions = {},
): (request: WebhookRequest, response: ServerResponse) => Promise<void> {
  const answer = (response: ServerResponse, status: number, body?: { error: string; code: string }) => {
    if (response.headersSent) return;
    if (body === undefined) response.writeHead(status).end();
    else response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  return async (request, response) => {
    let event: RelayStatusEventJson;
    try {
      event = await readRelayWebhook(secret, request, options);
    } catch (error) {
      if (error instanceof WebhookVerificationError) return answer(response, 400, { error: error.shortMessage, code: error.reason });
      return answer(response, 500, { error: error instanceof Error ? error.message.split("\n")[0]! : "receiver error", code: "receiver_error" });
    }
    try {
      await onEvent(event);
    } catch {
      // The event was genuine: a 5xx makes the API retry it, rather than lose it.
      return answer(response, 500, { error: "the receiver failed to handle the event", code: "receiver_error" });
    }
    answer(response, 204);
  };
}
