import type { RelayJson } from "../../sdk";

/**
 * Pushed status (webhooks and server-sent events) as the relayer stores it. Every status change of a
 * relay writes one event to `relay_events` in the same database transaction as the change, and, when
 * the relay's integrator has a webhook, one pending delivery: the outbox. Nothing sent can then be
 * lost by a crash between the change and the send, and nothing is sent for a change that rolled back.
 */
export interface PushedStatusStore {
  /** Events of an integrator (optionally of one relay) after `afterSeq`, oldest first, at most `limit`. */
  listRelayEvents(query: RelayEventQuery): Promise<RelayEvent[]>;
  /** Every integrator's events after `afterSeq`, oldest first, at most `limit`: the feed an API instance follows. */
  listEventFeed(afterSeq: number, limit: number): Promise<RelayEvent[]>;
  /**
   * Calls `listener` after an event is written by any relayer on this database (SQLite: this process,
   * right after the transaction; PostgreSQL: NOTIFY relay_events at the writer's commit), with the
   * event's integrator, or `integratorId: undefined` when events may have been missed (the listening
   * connection came back): then every waiter should read. Returns the unsubscribe function.
   * A notice may also come for a write that rolled back: a waiter reads and finds nothing.
   */
  watchRelayEvents(listener: (notice: RelayEventNotice) => void): () => void;
  /** The highest event sequence number written so far (0 when none): where a stream without Last-Event-ID starts. */
  relayEventHead(): Promise<number>;
  /**
   * Registers (or replaces: a rotation) an integrator's webhook, or clears it (`endpoint` undefined):
   * a cleared endpoint's pending deliveries end `dropped`; a replaced one's are sent to the new URL
   * with the new secret.
   */
  setWebhook(integratorId: number, endpoint: { url: string; secret: string } | undefined, at: Date): Promise<void>;
  getWebhook(integratorId: number): Promise<WebhookEndpoint | undefined>;
  /**
   * Claims due pending deliveries whose relay has no earlier pending delivery (order per relay), of
   * endpoints whose circuit is not open, taking turns between integrators and leaving each at most
   * `perIntegrator` in flight across relayers (1 while its circuit is half-open), at most `limit`, for `lease.owner` until `lease.until`: one claimant each (`FOR UPDATE SKIP LOCKED`
   * on PostgreSQL). Returns each with its event body and its endpoint.
   */
  claimWebhookDeliveries(lease: { owner: string; until: Date }, now: Date, limit: number, perIntegrator: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt's outcome, only while `owner` still holds the claim (false when it does not),
   * and with it the endpoint's circuit: a delivery closes it, a failure counts towards opening it.
   */
  settleWebhookDelivery(eventSeq: number, owner: string, outcome: DeliveryOutcome): Promise<boolean>;
  /** Drops this relayer's claims (its start: nothing of its own is in flight yet). */
  releaseWebhookClaims(owner: string): Promise<number>;
  /** An integrator's most recent deliveries, newest first. */
  listWebhookDeliveries(integratorId: number, limit: number): Promise<WebhookDeliveryRecord[]>;
  /** Endpoints with pending deliveries that failed at least once, or deliveries given up since `since`: the operator's view. */
  listFailingWebhooks(since: Date): Promise<FailingWebhook[]>;
  /** Webhook deliveries not yet delivered nor given up, of every integrator, and when the oldest was created (the backlog an operator watches). */
  webhookBacklog(): Promise<WebhookBacklog>;
  /** Gives up pending deliveries created before `before` that no attempt holds now (an open circuit kept them from being tried); returns how many. */
  expireWebhookDeliveries(before: Date, now: Date): Promise<number>;
  /** Deletes events and settled deliveries older than `before` (pending ones are kept); returns how many events. */
  prunePushedStatus(before: Date): Promise<number>;
}

/** An event was written (its sequence number and integrator), or (`integratorId` undefined) some may have been. */
export type RelayEventNotice = { seq: number | undefined; integratorId: number | undefined };

export type RelayEventQuery = { integratorId: number; relayId?: string | undefined; afterSeq: number; limit: number };

/** One status change: `seq` orders a stream (the SSE id), `body` is the JSON a webhook receives. */
export type RelayEvent = { seq: number; eventId: string; relayId: string; integratorId: number; status: string; body: string; createdAt: Date };

/** What `body` holds: the event id, the event's time and the relay as GET /gasless/status shows it. */
export type RelayEventBody = { type: "relay.status"; event_id: string; timestamp: string; relay: RelayJson };

export type WebhookEndpoint = { integratorId: number; url: string; secret: string; createdAt: Date; updatedAt: Date; circuit: WebhookCircuit };

/** An endpoint's circuit breaker: failed attempts in a row, and until when nothing is sent to it (undefined: closed). */
export type WebhookCircuit = { consecutiveFailures: number; openUntil: Date | undefined };

/** `closed`: deliveries flow; `open`: nothing is sent until `openUntil`; `half_open`: one probe at a time decides. */
export type WebhookCircuitState = "closed" | "open" | "half_open";

export function circuitState(circuit: WebhookCircuit, now: Date): WebhookCircuitState {
  if (circuit.openUntil === undefined) return "closed";
  return circuit.openUntil.getTime() > now.getTime() ? "open" : "half_open";
}

export type DeliveryState = "pending" | "delivered" | "failed" | "dropped";

export type ClaimedDelivery = { eventSeq: number; eventId: string; relayId: string; integratorId: number; attempts: number; createdAt: Date; body: string; url: string; secret: string };

/**
 * `retry_at` undefined with `delivered: false` gives up (the retry window is over): state `failed`.
 * `error` is what the integrator sees (a WebhookFailure). `breaker`: failures in a row that open the
 * endpoint's circuit, and until when it then stays open.
 */
export type DeliveryOutcome = {
  integratorId: number;
  at: Date;
  delivered: boolean;
  status: number | undefined;
  error: string | undefined;
  retryAt: Date | undefined;
  breaker: { failures: number; openUntil: Date };
};

export type WebhookDeliveryRecord = {
  eventSeq: number;
  eventId: string;
  relayId: string;
  status: string;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: Date | undefined;
  lastAttemptAt: Date | undefined;
  lastStatus: number | undefined;
  lastError: string | undefined;
  deliveredAt: Date | undefined;
  createdAt: Date;
};

export type FailingWebhook = {
  integratorId: number;
  url: string | undefined;
  circuit: WebhookCircuit | undefined;
  pending: number;
  failed: number;
  oldestPendingAt: Date | undefined;
  lastAttemptAt: Date | undefined;
  lastStatus: number | undefined;
  lastError: string | undefined;
};

/** Pending webhook deliveries: how many, and when the oldest of them was created (undefined: none). */
export type WebhookBacklog = Readonly<{ pending: number; oldestCreatedAt: Date | undefined }>;

/** A backlog from its row (`COUNT(*)` is a string on PostgreSQL, the time a BIGINT of milliseconds). */
export function webhookBacklogFromRow(row: { pending: number | string; oldest_at: number | string | null }): WebhookBacklog {
  return { pending: Number(row.pending), oldestCreatedAt: row.oldest_at === null ? undefined : new Date(Number(row.oldest_at)) };
}
