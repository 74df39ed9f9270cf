import { Router, type Response } from "express";
import { z } from "zod";
import type { RelayEventJson, RelayFeedEventJson } from "../../sdk";
import type { RelayEvent } from "../store/pushedStatusStore";
import type { RelayContext } from "../queue/relayContext";
import { httpUrl } from "../../sdk/config/httpUrl";
import { positiveInt } from "../../sdk/config/positiveInt";
import { parseInternal } from "../intake/internalRequest";
import { nextRelayEvent } from "./relayEventWake";
import { webhookDeliveriesJson } from "./webhookDeliveriesJson";


const webhookBody = z.strictObject({ url: httpUrl.max(2048), secret: z.string().regex(/^whsec_[A-Za-z0-9+/=]{20,200}$/) });

const eventsQuery = z.strictObject({
  integrator_id: positiveInt,
  relay_id: z.uuid().optional(),
  /** Events after this sequence number; `head` starts at the newest (only new events). */
  after: z.union([z.literal("head"), z.coerce.number().int().min(0)]),
  /** Long poll: with no event yet, wait up to this long for one. */
  wait_ms: z.coerce.number().int().min(0).max(30_000).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const feedQuery = z.strictObject({
  after: z.union([z.literal("head"), z.coerce.number().int().min(0)]),
  wait_ms: z.coerce.number().int().min(0).max(30_000).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(500),
});

const deliveriesQuery = z.strictObject({ limit: z.coerce.number().int().min(1).max(200).default(50) });

/**
 * The relayer's internal endpoints of pushed status, for the API only (behind the internal token):
 * an integrator's webhook (set by the API after its signed onboarding action), its recent deliveries,
 * and the relay events the API's server-sent-event streams carry: one feed per API instance (all
 * integrators, a long poll woken by each written event) and a catch-up read per stream.
 */
export function pushedStatusRoutes(context: RelayContext): Router {
  const router = Router();
  const { store } = context;

  router.put("/internal/webhooks/:integrator_id", async (req, res) => {
    const id = parseInternal(positiveInt, req.params.integrator_id, "request");
    const body = parseInternal(webhookBody, req.body, "request");
    await store.setWebhook(id, body, context.now());
    context.logger.info({ integratorId: id, url: body.url }, "webhook registered");
    res.json({ integrator_id: id, url: body.url });
  });

  router.delete("/internal/webhooks/:integrator_id", async (req, res) => {
    const id = parseInternal(positiveInt, req.params.integrator_id, "request");
    await store.setWebhook(id, undefined, context.now());
    context.logger.info({ integratorId: id }, "webhook cleared");
    res.json({ integrator_id: id, url: null });
  });

  router.get("/internal/webhooks/:integrator_id/deliveries", async (req, res) => {
    const id = parseInternal(positiveInt, req.params.integrator_id, "request");
    const { limit } = parseInternal(deliveriesQuery, req.query, "request");
    res.json(await webhookDeliveriesJson(store, id, limit, context.now()));
  });

  router.get("/internal/relay-events", async (req, res) => {
    const query = parseInternal(eventsQuery, req.query, "request");
    const after = query.after === "head" ? await store.relayEventHead() : query.after;
    const events = await longPoll(res, query.integrator_id, query.wait_ms, () =>
      store.listRelayEvents({ integratorId: query.integrator_id, relayId: query.relay_id, afterSeq: after, limit: query.limit }),
    );
    const json: RelayEventJson[] = events.map((event) => ({ seq: event.seq, event_id: event.eventId, relay_id: event.relayId, status: event.status, body: event.body }));
    res.json({ after, events: json });
  });

  /** Every integrator's events: the one feed each API instance follows for all of its streams. */
  router.get("/internal/relay-events/feed", async (req, res) => {
    const query = parseInternal(feedQuery, req.query, "request");
    const after = query.after === "head" ? await store.relayEventHead() : query.after;
    const events = await longPoll(res, undefined, query.wait_ms, () => store.listEventFeed(after, query.limit));
    const json: RelayFeedEventJson[] = events.map((event) => ({
      seq: event.seq,
      event_id: event.eventId,
      relay_id: event.relayId,
      integrator_id: event.integratorId,
      status: event.status,
      body: event.body,
    }));
    res.json({ after, events: json });
  });

  /** Reads now, and again only when an event of `integratorId` (any, when undefined) is written, until some come or `waitMs` passes. */
  async function longPoll(res: Response, integratorId: number | undefined, waitMs: number, read: () => Promise<RelayEvent[]>): Promise<RelayEvent[]> {
    const until = Date.now() + waitMs;
    const closed = new AbortController();
    res.on("close", () => closed.abort());
    for (;;) {
      const wake = nextRelayEvent(store, integratorId, until - Date.now(), closed.signal);
      try {
        const events = await read();
        if (events.length > 0 || Date.now() >= until || closed.signal.aborted) return events;
        await wake.woken;
      } finally {
        wake.cancel();
      }
    }
  }

  return router;
}
