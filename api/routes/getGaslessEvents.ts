import type { Response } from "express";
import { z } from "zod";
import { isFinalRelayStatus, relayStatuses, type RelayFeedEventJson, type RelayStatus } from "../../sdk";
import { ApiError } from "../../sdk/server/apiError";
import { RelayEventFeed } from "../gasless/relayEventFeed";
import { integratorRelayHandlers, relayIdField } from "../gasless/integratorRelayAccess";
import type { RelayerClient } from "../gasless/relayerClient";
import { StreamSlots } from "../gasless/streamSlots";
import { parseRequest } from "../requestValidation";
import type { Route } from "./route";

const querySchema = z.strictObject({
  relay_id: relayIdField.optional(),
  /** For clients that cannot set headers; the Last-Event-ID header wins when both are sent. */
  last_event_id: z.string().optional(),
});

const eventId = z.string().regex(/^[0-9]{1,15}$/, "must be the id of an event this stream sent").transform(Number);

/** How long a new stream waits for the instance's feed to learn the relayer's head before it gives up (503). */
const POSITION_TIMEOUT_MS = 10_000;
/** Events per catch-up read (the relayer's default page): a shorter page means caught up. */
const CATCH_UP_PAGE = 100;
/**
 * Live events a stream may hold for a client that reads slower than they come; one more ends the
 * stream with `stream.end` (`reason: "backlog"`), and the client resumes from its Last-Event-ID.
 */
export const MAX_BACKLOG_EVENTS = 1_000;

const isRelayStatus = (status: string): status is RelayStatus => (relayStatuses as readonly string[]).includes(status);

/**
 * GET /gasless/events: server-sent events of relay status changes, of one relay (`relay_id`) or of
 * every relay of the key's integrator. Each event is `event: relay.status`, `id: <sequence>` (grows
 * along the stream) and `data:` the webhook body. A reconnect with `Last-Event-ID` resumes after that
 * event (within RELAY_EVENT_RETENTION_HOURS). Without it, a relay's stream starts at the relay's
 * first event, and the integrator's at the next new one. A relay's stream ends after its final
 * status; any stream ends after SSE_MAX_LIFETIME_SECONDS with `event: stream.end` whose `id` is where
 * to resume. An idle stream gets a comment every SSE_KEEPALIVE_SECONDS. Open streams are capped per
 * key, per integrator and per instance. Events are pushed: the instance follows one relayer feed for
 * all its streams (api/gasless/relayEventFeed), and a stream reads the relayer only to catch up when
 * it opens. Opening one takes a point of the `gasless:status` bucket.
 */
export const getGaslessEventsRoute: Route = {
  method: "get",
  path: "/gasless/events",
  handlers: (deps) => {
    const { maxStreamsPerKey, maxStreamsPerIntegrator, maxStreams, maxLifetimeSeconds, keepAliveSeconds } = deps.config.pushed;
    const slots = new StreamSlots({ perKey: maxStreamsPerKey, perIntegrator: maxStreamsPerIntegrator, total: maxStreams });
    let feed: RelayEventFeed | undefined;
    return integratorRelayHandlers(deps, "gasless:status", async (req, res, { principal, relayer: relayerOrUnavailable, ownRelay }) => {
      const query = parseRequest(querySchema, req.query, "query");
      const lastEventText = req.get("last-event-id") ?? query.last_event_id;
      const lastEventId = lastEventText === undefined || lastEventText === "" ? undefined : parseRequest(eventId, lastEventText, "Last-Event-ID");
      const relayer = relayerOrUnavailable();
      if (query.relay_id !== undefined) await ownRelay(query.relay_id);
      const refused = slots.acquire(principal.keyId, principal.integratorId);
      if (refused === "key") {
        throw new ApiError("too_many_streams", `this key has ${maxStreamsPerKey} event streams open already (SSE_MAX_STREAMS_PER_KEY); close one first`, { headers: { "Retry-After": "5" } });
      }
      if (refused === "integrator") {
        throw new ApiError("too_many_integrator_streams", `this integrator's keys have ${maxStreamsPerIntegrator} event streams open already (SSE_MAX_STREAMS_PER_INTEGRATOR); close one first`, {
          headers: { "Retry-After": "5" },
        });
      }
      if (refused === "total") {
        throw new ApiError("stream_capacity_reached", `this API instance serves ${maxStreams} event streams already (SSE_MAX_STREAMS); retry shortly`, { headers: { "Retry-After": "5" } });
      }
      feed ??= new RelayEventFeed(relayer, keepAliveSeconds * 1000, deps.logger.child({ component: "event-feed" }));
      const closed = new AbortController();
      res.on("close", () => closed.abort());
      try {
        await stream(res, closed.signal, relayer, feed, {
          integratorId: principal.integratorId,
          relayId: query.relay_id,
          start: lastEventId ?? (query.relay_id === undefined ? "head" : 0),
          keepAliveMs: keepAliveSeconds * 1000,
          lifetimeMs: maxLifetimeSeconds * 1000,
        });
      } catch (error) {
        if (error instanceof ApiError && !res.headersSent) throw error;
        // The relayer went away mid-stream: the stream ends, and the client resumes with Last-Event-ID.
        if (!closed.signal.aborted) deps.logger.warn({ err: error }, "event stream ended: the relayer could not be read");
      } finally {
        slots.release(principal.keyId, principal.integratorId);
        res.end();
      }
    });
  },
};

type StreamOptions = { integratorId: number; relayId: string | undefined; start: number | "head"; keepAliveMs: number; lifetimeMs: number };
type StreamEvent = { seq: number; status: string; body: string };

/**
 * One stream: subscribe to the instance's feed first (buffering), wait until the feed is positioned,
 * catch up from the relayer's store from `start` a page at a time (each page written before the next
 * is read), then write the buffered and live events after the last one written. Every write waits
 * for the socket to drain, so a stream holds at most one page and MAX_BACKLOG_EVENTS live events.
 * Ends at a final status (a relay's stream), at its lifetime, when its client falls MAX_BACKLOG_EVENTS
 * behind, on the client's close, or when the feed fails.
 */
async function stream(res: Response, closed: AbortSignal, relayer: RelayerClient, feed: RelayEventFeed, options: StreamOptions): Promise<void> {
  const mine = (event: RelayFeedEventJson) => event.integrator_id === options.integratorId && (options.relayId === undefined || event.relay_id === options.relayId);
  const ended = new AbortController();
  let pending: RelayFeedEventJson[] = [];
  let behind = false;
  let failure: unknown;
  let wake = () => undefined as void;
  const subscription = feed.subscribe({
    events: (events) => {
      pending.push(...events.filter(mine));
      // A client that does not read as fast as its events come: it resumes from where it got to.
      if (pending.length > MAX_BACKLOG_EVENTS && !ended.signal.aborted) {
        behind = true;
        ended.abort();
      }
      wake();
    },
    failed: (error) => {
      failure = error ?? new Error("the event feed failed");
      wake();
    },
  });
  ended.signal.addEventListener("abort", () => wake(), { once: true });
  const lifetime = setTimeout(() => ended.abort(), options.lifetimeMs);
  const stop = () => ended.abort();
  closed.addEventListener("abort", stop, { once: true });
  try {
    const positioned = await Promise.race([
      subscription.positioned.then(() => true),
      new Promise<false>((resolve) => setTimeout(() => resolve(false), POSITION_TIMEOUT_MS).unref()),
      new Promise<false>((resolve) => ended.signal.addEventListener("abort", () => resolve(false), { once: true })),
    ]);
    if (!positioned) {
      if (closed.aborted) return;
      throw new ApiError("relayer_unavailable", "the relayer's events cannot be read right now; retry shortly");
    }
    // Catch up: everything up to the feed's position is in the relayer's store now. The first page
    // is read before the headers, so that a relayer that cannot answer is a 503, not an empty stream.
    const read = (after: number | "head") => relayer.relayEvents({ integratorId: options.integratorId, relayId: options.relayId, after, waitMs: 0 }, closed);
    let page = await read(options.start);
    res.status(200);
    res.setHeader("content-type", "text/event-stream; charset=utf-8");
    res.setHeader("cache-control", "no-cache, no-transform");
    res.setHeader("x-accel-buffering", "no");
    res.flushHeaders();
    // How long an EventSource waits before it reconnects.
    res.write("retry: 2000\n\n");
    // Where this stream starts: Last-Event-ID, the relay's beginning, or the head the relayer named.
    let written = page.after;
    /** Writes `text`, then, when the socket's buffer is full, waits until it drains or the stream ends. */
    const send = async (text: string): Promise<void> => {
      if (res.write(text) || ended.signal.aborted) return;
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          ended.signal.removeEventListener("abort", done);
          resolve();
        };
        res.on("drain", done);
        ended.signal.addEventListener("abort", done, { once: true });
      });
    };
    /** Writes the events after `written` until the stream ends; true after a relay's final status. */
    const write = async (events: readonly StreamEvent[]): Promise<boolean> => {
      for (const event of events) {
        if (ended.signal.aborted) return false;
        if (event.seq <= written) continue;
        written = event.seq;
        await send(`id: ${event.seq}\nevent: relay.status\ndata: ${event.body}\n\n`);
        if (options.relayId !== undefined && isRelayStatus(event.status) && isFinalRelayStatus(event.status)) return true;
      }
      return false;
    };
    for (;;) {
      if (await write(page.events)) return;
      // Live events the catch-up has written already need not wait in memory.
      pending = pending.filter((event) => event.seq > written);
      if (ended.signal.aborted || page.events.length < CATCH_UP_PAGE) break;
      page = await read(page.events.at(-1)!.seq);
    }
    while (!ended.signal.aborted) {
      if (failure !== undefined) throw failure;
      const batch = pending;
      pending = [];
      if (await write(batch)) return;
      if (pending.length > 0 || ended.signal.aborted) continue;
      const idle = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(true), options.keepAliveMs);
        wake = () => {
          clearTimeout(timer);
          resolve(false);
        };
        if (ended.signal.aborted) wake();
      });
      wake = () => undefined;
      if (idle) await send(": keep-alive\n\n");
    }
    if (failure !== undefined) throw failure;
    // The lifetime is over, or the client fell behind: say where to resume (an EventSource takes `id`
    // as its Last-Event-ID too). Written after any buffered events, so the client reads them first.
    if (!closed.aborted) res.write(`id: ${written}\nevent: stream.end\ndata: {"reason":"${behind ? "backlog" : "lifetime"}","resume_after":${written}}\n\n`);
  } finally {
    clearTimeout(lifetime);
    closed.removeEventListener("abort", stop);
    subscription.unsubscribe();
  }
}

export { querySchema as gaslessEventsQuerySchema };
