import { PostgresListener } from "../../sdk/storage/postgresListener";
import { withTransaction, type PostgresClient, type PostgresPool } from "../../sdk/storage/postgresPool";
import {
  claimedFromRow,
  circuitParams,
  deliveryFromRow,
  eventFromRow,
  eventParams,
  failingFromRow,
  positional,
  PUSHED_SQL,
  settleParams,
  webhookFromRow,
  type ClaimedRow,
  type DeliveryRow,
  type EventRow,
  type FailingRow,
  type WebhookRow,
} from "./pushedStatusSql";
import type { ClaimedDelivery, DeliveryOutcome, FailingWebhook, PushedStatusStore, RelayEvent, RelayEventNotice, RelayEventQuery, WebhookBacklog, WebhookDeliveryRecord, WebhookEndpoint } from "./pushedStatusStore";
import { webhookBacklogFromRow } from "./pushedStatusStore";
import type { RelayRecord } from "./relayStore";

type Queryable = Pick<PostgresClient, "query">;

/**
 * Serialises event writes across every relayer on the database, until their transactions commit: a
 * sequence number is then never visible before a smaller one, so a stream that resumes after seq N
 * cannot skip an event that committed late. Status changes are few; the wait is short.
 */
const EVENT_ORDER_LOCK = 4663_021;

/** NOTIFY'd at the commit of every event write, `<seq>:<integrator id>`: what wakes the streams' reads instead of a poll. */
export const RELAY_EVENTS_CHANNEL = "relay_events";

async function run<Row extends object>(db: Queryable, sql: string, params: Record<string, unknown>): Promise<{ rows: Row[]; rowCount: number }> {
  const { text, values } = positional(sql, params);
  const result = await db.query<Row>(text, values);
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/** The pushed-status tables on PostgreSQL, shared by every relayer on the database. */
export class PostgresPushedStatus implements PushedStatusStore {
  readonly #watchers = new Set<(notice: RelayEventNotice) => void>();
  #listener: PostgresListener | undefined;

  constructor(
    private readonly pool: PostgresPool,
    private readonly url: string,
  ) {}

  watchRelayEvents(listener: (notice: RelayEventNotice) => void): () => void {
    this.#watchers.add(listener);
    // One listening connection per relayer, opened by the first watcher: every relayer's writes reach it.
    this.#listener ??= this.#listen();
    return () => this.#watchers.delete(listener);
  }

  async closeListener(): Promise<void> {
    await this.#listener?.close();
  }

  #listen(): PostgresListener {
    const everyone = () => this.#notify({ seq: undefined, integratorId: undefined });
    const listener = new PostgresListener(this.url, [RELAY_EVENTS_CHANNEL], "relayer-events-listener", {
      notification: (_channel, payload) => {
        const [seq, integratorId] = payload.split(":").map(Number);
        this.#notify(Number.isInteger(seq) && Number.isInteger(integratorId) ? { seq, integratorId } : { seq: undefined, integratorId: undefined });
      },
      // Back after a loss: events written meanwhile were not notified, so every waiter reads.
      listening: everyone,
      lost: () => undefined,
    });
    void listener.start();
    return listener;
  }

  #notify(notice: RelayEventNotice): void {
    for (const watcher of this.#watchers) watcher(notice);
  }

  /** The outbox write of one status change, on the change's own transaction (`client`). */
  async recordEvent(client: Queryable, relay: RelayRecord, at: Date): Promise<void> {
    await client.query("SELECT pg_advisory_xact_lock($1)", [EVENT_ORDER_LOCK]);
    const params = eventParams(relay, at);
    const { rows } = await run<{ seq: number }>(client, PUSHED_SQL.insertEvent, params);
    await run(client, PUSHED_SQL.insertDelivery, { seq: rows[0]!.seq, relay_id: relay.id, integrator_id: relay.integratorId, created_at: params.created_at });
    // Sent at commit, to every relayer listening (none for a rollback).
    await client.query("SELECT pg_notify($1, $2)", [RELAY_EVENTS_CHANNEL, `${rows[0]!.seq}:${relay.integratorId}`]);
  }

  async forget(client: Queryable): Promise<void> {
    await client.query(PUSHED_SQL.forgetDeliveries);
    await client.query(PUSHED_SQL.forgetEvents);
  }

  async listRelayEvents(query: RelayEventQuery): Promise<RelayEvent[]> {
    const { rows } = await run<EventRow>(this.pool, PUSHED_SQL.events, { integrator_id: query.integratorId, relay_id: query.relayId ?? null, after: query.afterSeq, limit: query.limit });
    return rows.map(eventFromRow);
  }

  async listEventFeed(afterSeq: number, limit: number): Promise<RelayEvent[]> {
    return (await run<EventRow>(this.pool, PUSHED_SQL.feed, { after: afterSeq, limit })).rows.map(eventFromRow);
  }

  async relayEventHead(): Promise<number> {
    const { rows } = await this.pool.query<{ head: number }>(PUSHED_SQL.head);
    return Number(rows[0]?.head ?? 0);
  }

  async setWebhook(integratorId: number, endpoint: { url: string; secret: string } | undefined, at: Date): Promise<void> {
    await withTransaction(this.pool, async (client) => {
      if (endpoint === undefined) {
        await run(client, PUSHED_SQL.deleteWebhook, { integrator_id: integratorId });
        await run(client, PUSHED_SQL.dropPending, { integrator_id: integratorId });
      } else {
        await run(client, PUSHED_SQL.upsertWebhook, { integrator_id: integratorId, url: endpoint.url, secret: endpoint.secret, at: at.getTime() });
      }
    });
  }

  async getWebhook(integratorId: number): Promise<WebhookEndpoint | undefined> {
    const { rows } = await run<WebhookRow>(this.pool, PUSHED_SQL.webhook, { integrator_id: integratorId });
    return rows[0] === undefined ? undefined : webhookFromRow(rows[0]);
  }

  async claimWebhookDeliveries(lease: { owner: string; until: Date }, now: Date, limit: number, perIntegrator: number): Promise<ClaimedDelivery[]> {
    return withTransaction(this.pool, async (client) => {
      // FOR UPDATE cannot sit on the window function's query itself: the fair pick runs inside, the lock
      // outside (it re-checks that the row is still pending and unclaimed), and SKIP LOCKED skips what
      // another relayer is claiming before the LIMIT. Two relayers claiming at the same instant can
      // then each give an integrator its share: the cap holds per relayer, at worst relayers × share.
      const { rows } = await run<{ event_seq: number }>(
        client,
        `SELECT d.event_seq FROM relay_webhook_deliveries d JOIN (${PUSHED_SQL.claimable}) f ON f.event_seq = d.event_seq
          WHERE d.state = 'pending' AND (d.lease_until IS NULL OR d.lease_until < @now) ${PUSHED_SQL.claimOrder} FOR UPDATE OF d SKIP LOCKED`,
        { now: now.getTime(), limit, per_integrator: perIntegrator },
      );
      const claimed: ClaimedDelivery[] = [];
      for (const { event_seq: seq } of rows) {
        await run(client, PUSHED_SQL.claim, { seq, owner: lease.owner, until: lease.until.getTime() });
        const found = await run<ClaimedRow>(client, PUSHED_SQL.claimed, { seq });
        if (found.rows[0] !== undefined) claimed.push(claimedFromRow(found.rows[0]));
      }
      return claimed;
    });
  }

  async settleWebhookDelivery(eventSeq: number, owner: string, outcome: DeliveryOutcome): Promise<boolean> {
    return withTransaction(this.pool, async (client) => {
      if ((await run(client, PUSHED_SQL.settle, settleParams(eventSeq, owner, outcome))).rowCount !== 1) return false;
      const circuit = circuitParams(outcome);
      await run(client, PUSHED_SQL[circuit.statement], circuit.params);
      return true;
    });
  }

  async expireWebhookDeliveries(before: Date, now: Date): Promise<number> {
    return (await run(this.pool, PUSHED_SQL.expirePending, { before: before.getTime(), now: now.getTime() })).rowCount;
  }

  async releaseWebhookClaims(owner: string): Promise<number> {
    return (await run(this.pool, PUSHED_SQL.release, { owner })).rowCount;
  }

  async listWebhookDeliveries(integratorId: number, limit: number): Promise<WebhookDeliveryRecord[]> {
    return (await run<DeliveryRow>(this.pool, PUSHED_SQL.deliveries, { integrator_id: integratorId, limit })).rows.map(deliveryFromRow);
  }

  async webhookBacklog(): Promise<WebhookBacklog> {
    return webhookBacklogFromRow((await run<{ pending: string; oldest_at: string | null }>(this.pool, PUSHED_SQL.backlog, {})).rows[0]!);
  }

  async listFailingWebhooks(since: Date): Promise<FailingWebhook[]> {
    return (await run<FailingRow>(this.pool, PUSHED_SQL.failing, { since: since.getTime() })).rows.map(failingFromRow);
  }

  async prunePushedStatus(before: Date): Promise<number> {
    return withTransaction(this.pool, async (client) => {
      await run(client, PUSHED_SQL.pruneDeliveries, { before: before.getTime() });
      return (await run(client, PUSHED_SQL.pruneEvents, { before: before.getTime() })).rowCount;
    });
  }
}
