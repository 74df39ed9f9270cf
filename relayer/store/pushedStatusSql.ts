import { randomUUID } from "node:crypto";
import { relayJson } from "../intake/relayView";
import { storableMessage } from "../../sdk/wire/controlCharacters";
import type { DeliveryOutcome, DeliveryState, FailingWebhook, RelayEvent, RelayEventBody, WebhookDeliveryRecord, WebhookEndpoint } from "./pushedStatusStore";
import type { RelayRecord } from "./relayStore";

/**
 * The pushed-status queries, written once as text with `@name` parameters (`SqlDatabase.named` binds
 * them for the engine). Times are milliseconds since the epoch, as in the relay tables.
 */
export const PUSHED_SQL = {
  insertEvent: `INSERT INTO relay_events (event_id, relay_id, integrator_id, status, body, created_at)
    VALUES (@event_id, @relay_id, @integrator_id, @status, @body, @created_at) RETURNING seq`,
  insertDelivery: `INSERT INTO relay_webhook_deliveries (event_seq, relay_id, integrator_id, state, attempts, next_attempt_at, created_at)
    SELECT @seq, @relay_id, integrator_id, 'pending', 0, @created_at, @created_at FROM relay_webhooks WHERE integrator_id = @integrator_id`,
  events: `SELECT * FROM relay_events WHERE integrator_id = @integrator_id AND seq > @after AND (CAST(@relay_id AS TEXT) IS NULL OR relay_id = @relay_id)
    ORDER BY seq LIMIT @limit`,
  head: "SELECT COALESCE(MAX(seq), 0) AS head FROM relay_events",
  /** Every integrator's events after @after: the one feed an API instance follows for all its streams. */
  feed: "SELECT * FROM relay_events WHERE seq > @after ORDER BY seq LIMIT @limit",
  upsertWebhook: `INSERT INTO relay_webhooks (integrator_id, url, secret, created_at, updated_at) VALUES (@integrator_id, @url, @secret, @at, @at)
    ON CONFLICT (integrator_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at,
      consecutive_failures = 0, circuit_open_until = NULL`,
  deleteWebhook: "DELETE FROM relay_webhooks WHERE integrator_id = @integrator_id",
  dropPending: `UPDATE relay_webhook_deliveries SET state = 'dropped', claimed_by = NULL, lease_until = NULL, next_attempt_at = NULL
    WHERE integrator_id = @integrator_id AND state = 'pending'`,
  webhook: "SELECT * FROM relay_webhooks WHERE integrator_id = @integrator_id",
  /**
   * Due, unclaimed (or lease lapsed), and the first pending delivery of its relay (order per relay),
   * of an endpoint whose circuit is not open; fair between integrators: each integrator's due
   * deliveries take turns (`turn` 1 of every integrator before any integrator's 2), and an integrator
   * gets no more than @per_integrator in flight (leases held by any relayer), 1 while its circuit is
   * half-open (the probe). So one integrator's silent endpoint holds at most its own slots.
   */
  claimable: `WITH due AS (
      SELECT d.event_seq, d.integrator_id, d.next_attempt_at,
        ROW_NUMBER() OVER (PARTITION BY d.integrator_id ORDER BY d.next_attempt_at, d.event_seq) AS turn
      FROM relay_webhook_deliveries d JOIN relay_webhooks w ON w.integrator_id = d.integrator_id
      WHERE d.state = 'pending' AND d.next_attempt_at <= @now AND (d.lease_until IS NULL OR d.lease_until < @now)
        AND (w.circuit_open_until IS NULL OR w.circuit_open_until <= @now)
        AND NOT EXISTS (SELECT 1 FROM relay_webhook_deliveries e WHERE e.relay_id = d.relay_id AND e.state = 'pending' AND e.event_seq < d.event_seq)
    ), busy AS (
      SELECT integrator_id, COUNT(*) AS in_flight FROM relay_webhook_deliveries
      WHERE state = 'pending' AND lease_until IS NOT NULL AND lease_until >= @now GROUP BY integrator_id
    )
    SELECT due.event_seq, due.turn, due.next_attempt_at FROM due JOIN relay_webhooks w ON w.integrator_id = due.integrator_id
      LEFT JOIN busy ON busy.integrator_id = due.integrator_id
    WHERE due.turn + COALESCE(busy.in_flight, 0) <= (CASE WHEN w.circuit_open_until IS NULL THEN @per_integrator ELSE 1 END)`,
  /** Turns first (round robin), then due time: the order claims take, and the LIMIT after it (SKIP LOCKED on PostgreSQL skips before it). */
  claimOrder: "ORDER BY f.turn, f.next_attempt_at, f.event_seq LIMIT @limit",
  claim: "UPDATE relay_webhook_deliveries SET claimed_by = @owner, lease_until = @until WHERE event_seq = @seq",
  claimed: `SELECT d.event_seq, d.relay_id, d.integrator_id, d.attempts, d.created_at, e.event_id, e.body, w.url, w.secret
    FROM relay_webhook_deliveries d JOIN relay_events e ON e.seq = d.event_seq JOIN relay_webhooks w ON w.integrator_id = d.integrator_id
    WHERE d.event_seq = @seq`,
  settle: `UPDATE relay_webhook_deliveries SET state = @state, attempts = attempts + 1, last_attempt_at = @at, last_status = @status,
    last_error = @error, next_attempt_at = @retry_at, delivered_at = @delivered_at, claimed_by = NULL, lease_until = NULL
    WHERE event_seq = @seq AND claimed_by = @owner AND state = 'pending'`,
  /** A delivered attempt closes the endpoint's circuit. */
  circuitSucceeded: "UPDATE relay_webhooks SET consecutive_failures = 0, circuit_open_until = NULL WHERE integrator_id = @integrator_id",
  /** A failed one counts; at @threshold in a row (a failed half-open probe included) the circuit opens until @open_until. */
  circuitFailed: `UPDATE relay_webhooks SET consecutive_failures = consecutive_failures + 1,
      circuit_open_until = CASE WHEN consecutive_failures + 1 >= @threshold THEN @open_until ELSE circuit_open_until END
    WHERE integrator_id = @integrator_id`,
  /** Pending deliveries past their retry window that no attempt settled (their endpoint's circuit stayed open): given up. */
  expirePending: `UPDATE relay_webhook_deliveries SET state = 'failed', next_attempt_at = NULL
    WHERE state = 'pending' AND created_at < @before AND (lease_until IS NULL OR lease_until < @now)`,
  release: "UPDATE relay_webhook_deliveries SET claimed_by = NULL, lease_until = NULL WHERE claimed_by = @owner AND state = 'pending'",
  deliveries: `SELECT d.*, e.event_id, e.status FROM relay_webhook_deliveries d JOIN relay_events e ON e.seq = d.event_seq
    WHERE d.integrator_id = @integrator_id ORDER BY d.event_seq DESC LIMIT @limit`,
  backlog: "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest_at FROM relay_webhook_deliveries WHERE state = 'pending'",
  failing: `SELECT d.integrator_id, w.url, w.consecutive_failures, w.circuit_open_until,
      SUM(CASE WHEN d.state = 'pending' THEN 1 ELSE 0 END) AS pending,
      SUM(CASE WHEN d.state = 'failed' THEN 1 ELSE 0 END) AS failed,
      MIN(CASE WHEN d.state = 'pending' THEN d.created_at END) AS oldest_pending_at,
      MAX(d.last_attempt_at) AS last_attempt_at,
      (SELECT x.last_status FROM relay_webhook_deliveries x WHERE x.integrator_id = d.integrator_id AND x.last_attempt_at IS NOT NULL
        ORDER BY x.last_attempt_at DESC, x.event_seq DESC LIMIT 1) AS last_status,
      (SELECT x.last_error FROM relay_webhook_deliveries x WHERE x.integrator_id = d.integrator_id AND x.last_attempt_at IS NOT NULL
        ORDER BY x.last_attempt_at DESC, x.event_seq DESC LIMIT 1) AS last_error
    FROM relay_webhook_deliveries d LEFT JOIN relay_webhooks w ON w.integrator_id = d.integrator_id
    WHERE d.state = 'pending' OR (d.state = 'failed' AND d.last_attempt_at >= @since)
    GROUP BY d.integrator_id, w.url, w.consecutive_failures, w.circuit_open_until
    HAVING SUM(CASE WHEN d.state = 'pending' AND d.attempts > 0 THEN 1 ELSE 0 END) > 0 OR SUM(CASE WHEN d.state = 'failed' THEN 1 ELSE 0 END) > 0
    ORDER BY pending DESC, failed DESC, d.integrator_id`,
  pruneDeliveries: "DELETE FROM relay_webhook_deliveries WHERE state <> 'pending' AND created_at < @before",
  pruneEvents: `DELETE FROM relay_events WHERE created_at < @before
    AND seq NOT IN (SELECT event_seq FROM relay_webhook_deliveries WHERE state = 'pending')`,
  forgetDeliveries: "DELETE FROM relay_webhook_deliveries",
  forgetEvents: "DELETE FROM relay_events",
} as const;

/** The row `insertEvent` writes for a relay that just reached its current status. */
export function eventParams(relay: RelayRecord, at: Date) {
  const eventId = `evt_${randomUUID().replaceAll("-", "")}`;
  const body: RelayEventBody = { type: "relay.status", event_id: eventId, timestamp: at.toISOString(), relay: relayJson(relay) };
  return { event_id: eventId, relay_id: relay.id, integrator_id: relay.integratorId, status: relay.status, body: JSON.stringify(body), created_at: at.getTime() };
}

const optionalDate = (value: number | string | null) => (value === null ? undefined : new Date(Number(value)));

type EventRow = { seq: number; event_id: string; relay_id: string; integrator_id: number; status: string; body: string; created_at: number };

export function eventFromRow(row: EventRow): RelayEvent {
  return { seq: Number(row.seq), eventId: row.event_id, relayId: row.relay_id, integratorId: row.integrator_id, status: row.status, body: row.body, createdAt: new Date(Number(row.created_at)) };
}

type WebhookRow = { integrator_id: number; url: string; secret: string; created_at: number; updated_at: number; consecutive_failures: number; circuit_open_until: number | string | null };

export function webhookFromRow(row: WebhookRow): WebhookEndpoint {
  return {
    integratorId: row.integrator_id,
    url: row.url,
    secret: row.secret,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
    circuit: { consecutiveFailures: row.consecutive_failures, openUntil: optionalDate(row.circuit_open_until) },
  };
}

type ClaimedRow = { event_seq: number; relay_id: string; integrator_id: number; attempts: number; created_at: number; event_id: string; body: string; url: string; secret: string };

export function claimedFromRow(row: ClaimedRow) {
  return {
    eventSeq: Number(row.event_seq),
    eventId: row.event_id,
    relayId: row.relay_id,
    integratorId: row.integrator_id,
    attempts: row.attempts,
    createdAt: new Date(Number(row.created_at)),
    body: row.body,
    url: row.url,
    secret: row.secret,
  };
}

type DeliveryRow = {
  event_seq: number;
  event_id: string;
  relay_id: string;
  status: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
};

export function deliveryFromRow(row: DeliveryRow): WebhookDeliveryRecord {
  return {
    eventSeq: Number(row.event_seq),
    eventId: row.event_id,
    relayId: row.relay_id,
    status: row.status,
    state: row.state,
    attempts: row.attempts,
    nextAttemptAt: row.state === "pending" ? optionalDate(row.next_attempt_at) : undefined,
    lastAttemptAt: optionalDate(row.last_attempt_at),
    lastStatus: row.last_status ?? undefined,
    lastError: row.last_error ?? undefined,
    deliveredAt: optionalDate(row.delivered_at),
    createdAt: new Date(Number(row.created_at)),
  };
}

type FailingRow = {
  integrator_id: number;
  url: string | null;
  consecutive_failures: number | null;
  circuit_open_until: number | string | null;
  pending: number | string;
  failed: number | string;
  oldest_pending_at: number | string | null;
  last_attempt_at: number | string | null;
  last_status: number | null;
  last_error: string | null;
};

export function failingFromRow(row: FailingRow): FailingWebhook {
  return {
    integratorId: row.integrator_id,
    url: row.url ?? undefined,
    circuit: row.url === null ? undefined : { consecutiveFailures: Number(row.consecutive_failures ?? 0), openUntil: optionalDate(row.circuit_open_until) },
    pending: Number(row.pending),
    failed: Number(row.failed),
    oldestPendingAt: optionalDate(row.oldest_pending_at),
    lastAttemptAt: optionalDate(row.last_attempt_at),
    lastStatus: row.last_status ?? undefined,
    lastError: row.last_error ?? undefined,
  };
}

export type { EventRow, WebhookRow, ClaimedRow, DeliveryRow, FailingRow };

/** The `settle` parameters of an attempt's outcome. */
export function settleParams(eventSeq: number, owner: string, outcome: DeliveryOutcome) {
  const state: DeliveryState = outcome.delivered ? "delivered" : outcome.retryAt === undefined ? "failed" : "pending";
  return {
    seq: eventSeq,
    owner,
    state,
    at: outcome.at.getTime(),
    status: outcome.status ?? null,
    error: outcome.error === undefined ? null : storableMessage(outcome.error.slice(0, 500)),
    retry_at: state === "pending" ? outcome.retryAt!.getTime() : null,
    delivered_at: outcome.delivered ? outcome.at.getTime() : null,
  };
}

/** The circuit update that goes with a settled attempt: which statement, with its parameters. */
export function circuitParams(outcome: DeliveryOutcome): { statement: "circuitSucceeded" | "circuitFailed"; params: Record<string, unknown> } {
  return outcome.delivered
    ? { statement: "circuitSucceeded", params: { integrator_id: outcome.integratorId } }
    : { statement: "circuitFailed", params: { integrator_id: outcome.integratorId, threshold: outcome.breaker.failures, open_until: outcome.breaker.openUntil.getTime() } };
}
