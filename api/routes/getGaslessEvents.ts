import type { Response } from "express";
import { z } from "zod";
import { isFinalRelayStatus, relayStatuses, type RelayStatus } from "../../sdk";
import { ApiError } from "../apiError";
import { RelayerClient } from "../gasless/relayerClient";
import { apiKeyAuth, principalOf } from "../middleware/apiKeyAuth";
import { QuoteBuckets } from "../quote/quoteBuckets";
import { parseRequest } from "../requestValidation";
import type { Route } from "./route";

const querySchema = z.strictObject({
  relay_id: z.uuid("must be a relay_id (a UUID) returned by POST /gasless/submit").optional(),
  /** For clients that cannot set headers; the Last-Event-ID header wins when both are sent. */
  last_event_id: z.string().optional(),
});

const eventId = z.string().regex(/^[0-9]{1,15}$/, "must be the id of an event this stream sent").transform(Number);

/** Open streams per API key in this process (SSE_MAX_STREAMS_PER_KEY). */
class StreamCounter {
  readonly #open = new Map<number, number>();
  acquire(keyId: number, max: number): boolean {
    const open = this.#open.get(keyId) ?? 0;
    if (open >= max) return false;
    this.#open.set(keyId, open + 1);
    return true;
  }
  release(keyId: number): void {
    const open = (this.#open.get(keyId) ?? 1) - 1;
    if (open <= 0) this.#open.delete(keyId);
    else this.#open.set(keyId, open);
  }
}

const isRelayStatus = (status: string): status is RelayStatus => (relayStatuses as readonly string[]).includes(status);

/**
 * GET /gasless/events: server-sent events of relay status changes, of one relay (`relay_id`) or of
 * every relay of the key's integrator. Each event is `event: relay.status`, `id: <sequence>` (grows
 * along the stream) and `data:` the webhook body. A reconnect with `Last-Event-ID` resumes after that
 * event (within RELAY_EVENT_RETENTION_HOURS). Without it, a relay's stream starts at the relay's
 * first event, and the integrator's at the next new one. A relay's stream ends after its final
 * status. The API reads the relayer's outbox with long polls; an idle stream gets a comment every
 * SSE_KEEPALIVE_SECONDS. Opening one takes a point of the `gasless:status` bucket.
 */
export const getGaslessEventsRoute: Route = {
  method: "get",
  path: "/gasless/events",
  handlers: (deps) => {
    const relayer = deps.config.gasless === undefined ? undefined : new RelayerClient(deps.config.gasless);
    const buckets = new QuoteBuckets(deps.config.quoteProbeMultiplier, deps.rateLimiters, (bucket) => deps.metrics?.rateLimited.inc({ bucket }), deps.config.statusRateLimitMultiplier);
    const streams = new StreamCounter();
    const { maxStreamsPerKey, keepAliveSeconds } = deps.config.pushed;
    return [
      apiKeyAuth(deps),
      async (req, res) => {
        const principal = principalOf(res);
        await buckets.consume("gasless:status", principal, res);
        const query = parseRequest(querySchema, req.query, "query");
        const lastEventText = req.get("last-event-id") ?? query.last_event_id;
        const lastEventId = lastEventText === undefined || lastEventText === "" ? undefined : parseRequest(eventId, lastEventText, "Last-Event-ID");
        if (relayer === undefined) throw new ApiError(503, "gasless_unavailable", "this deployment has no relayer configured");
        if (query.relay_id !== undefined) {
          const relay = await relayer.get(query.relay_id);
          if (relay === undefined || relay.integrator_id !== principal.integratorId) throw new ApiError(404, "relay_not_found", `no relay ${query.relay_id} for this integrator`);
        }
        if (!streams.acquire(principal.keyId, maxStreamsPerKey)) {
          throw new ApiError(429, "too_many_streams", `this key has ${maxStreamsPerKey} event streams open already; close one first`, { headers: { "Retry-After": "5" } });
        }
        const closed = new AbortController();
        res.on("close", () => closed.abort());
        try {
          await stream(res, closed.signal, {
            next: (after) => relayer.relayEvents({ integratorId: principal.integratorId, relayId: query.relay_id, after, waitMs: keepAliveSeconds * 1000 }, closed.signal),
            start: lastEventId ?? (query.relay_id === undefined ? "head" : 0),
            endOnFinal: query.relay_id !== undefined,
          });
        } catch (error) {
          // The relayer went away mid-stream: the stream ends, and the client resumes with Last-Event-ID.
          if (!closed.signal.aborted) deps.logger.warn({ err: error }, "event stream ended: the relayer could not be read");
        } finally {
          streams.release(principal.keyId);
          res.end();
        }
      },
    ];
  },
};

type StreamSource = {
  next(after: number | "head"): Promise<{ after: number; events: { seq: number; status: string; body: string }[] }>;
  start: number | "head";
  endOnFinal: boolean;
};

async function stream(res: Response, closed: AbortSignal, source: StreamSource): Promise<void> {
  res.status(200);
  res.setHeader("content-type", "text/event-stream; charset=utf-8");
  res.setHeader("cache-control", "no-cache, no-transform");
  res.setHeader("x-accel-buffering", "no");
  res.flushHeaders();
  // How long an EventSource waits before it reconnects.
  res.write("retry: 2000\n\n");
  let after = source.start;
  while (!closed.aborted) {
    const answer = await source.next(after);
    after = answer.after;
    if (answer.events.length === 0) res.write(": keep-alive\n\n");
    for (const event of answer.events) {
      res.write(`id: ${event.seq}\nevent: relay.status\ndata: ${event.body}\n\n`);
      after = event.seq;
      if (source.endOnFinal && isRelayStatus(event.status) && isFinalRelayStatus(event.status)) return;
    }
  }
}

export { querySchema as gaslessEventsQuerySchema };
