import { step, type SqlDatabase, type TransactionBody } from "../../sdk/storage/sqlDatabase";
import {
  claimedFromRow,
  circuitParams,
  deliveryFromRow,
  eventFromRow,
  eventParams,
  failingFromRow,
  PUSHED_SQL,
  settleParams,
  webhookFromRow,
  type ClaimedRow,
  type DeliveryRow,
  type EventRow,
  type FailingRow,
  type WebhookRow,
} from "./pushedStatusSql";
import { webhookBacklogFromRow, type ClaimedDelivery, type DeliveryOutcome, type FailingWebhook, type PushedStatusStore, type RelayEvent, type RelayEventNotice, type RelayEventQuery, type WebhookBacklog, type WebhookDeliveryRecord, type WebhookEndpoint } from "./pushedStatusStore";
import type { RelayEventSignal } from "./relayEventSignal";
import type { RelaySchema } from "./relaySchema";
import type { RelayRecord } from "./relayStore";

/**
 * Serialises event writes across every relayer on the database, until their transactions commit: a
 * sequence number is then never visible before a smaller one, so a stream that resumes after seq N
 * cannot skip an event that committed late. Status changes are few; the wait is short. (SQLite's
 * immediate transaction holds the whole file, which orders them already.)
 */
const EVENT_ORDER_LOCK = 4663_021;

/**
 * The pushed-status tables (the outbox of relay events, webhooks and their deliveries), written once
 * for both engines: the statements are `PUSHED_SQL`'s text, bound by `SqlDatabase.named`; what differs
 * is how a written event is announced (`RelayEventSignal`) and how deliveries are claimed (row locks).
 */
export class SqlPushedStatus implements PushedStatusStore {
  readonly #db: SqlDatabase<RelaySchema>;
  readonly #signal: RelayEventSignal;

  constructor(db: SqlDatabase<RelaySchema>, signal: RelayEventSignal) {
    this.#db = db;
    this.#signal = signal;
  }

  /** The outbox write of one status change; the relay store yields it inside the change's own transaction. */
  *recordEvent(relay: RelayRecord, at: Date): TransactionBody<void> {
    const db = this.#db;
    if (db.capabilities.advisoryLocks) yield* step.rows(db.named("SELECT pg_advisory_xact_lock(@key)", { key: EVENT_ORDER_LOCK }));
    const params = eventParams(relay, at);
    const inserted = yield* step.first(db.named<{ seq: number }>(PUSHED_SQL.insertEvent, params));
    const seq = Number(inserted!.seq);
    yield* step.changes(db.named(PUSHED_SQL.insertDelivery, { seq, relay_id: relay.id, integrator_id: relay.integratorId, created_at: params.created_at }));
    yield* this.#signal.announce({ seq, integratorId: relay.integratorId });
  }

  /** A new chain run forgets its relays, so their events and deliveries too; yielded inside that transaction. */
  *forget(): TransactionBody<void> {
    yield* step.changes(this.#db.named(PUSHED_SQL.forgetDeliveries, {}));
    yield* step.changes(this.#db.named(PUSHED_SQL.forgetEvents, {}));
  }

  watchRelayEvents(listener: (notice: RelayEventNotice) => void): () => void {
    return this.#signal.watch(listener);
  }

  async close(): Promise<void> {
    await this.#signal.close();
  }

  async listRelayEvents(query: RelayEventQuery): Promise<RelayEvent[]> {
    const params = { integrator_id: query.integratorId, relay_id: query.relayId ?? null, after: query.afterSeq, limit: query.limit };
    return (await this.#db.rows(this.#db.named<EventRow>(PUSHED_SQL.events, params))).map(eventFromRow);
  }

  async listEventFeed(afterSeq: number, limit: number): Promise<RelayEvent[]> {
    return (await this.#db.rows(this.#db.named<EventRow>(PUSHED_SQL.feed, { after: afterSeq, limit }))).map(eventFromRow);
  }

  async relayEventHead(): Promise<number> {
    return Number((await this.#db.first(this.#db.named<{ head: number | string }>(PUSHED_SQL.head, {})))?.head ?? 0);
  }

  async setWebhook(integratorId: number, endpoint: { url: string; secret: string } | undefined, at: Date): Promise<void> {
    const db = this.#db;
    await db.transaction(function* () {
      if (endpoint === undefined) {
        yield* step.changes(db.named(PUSHED_SQL.deleteWebhook, { integrator_id: integratorId }));
        yield* step.changes(db.named(PUSHED_SQL.dropPending, { integrator_id: integratorId }));
      } else {
        yield* step.changes(db.named(PUSHED_SQL.upsertWebhook, { integrator_id: integratorId, url: endpoint.url, secret: endpoint.secret, at: at.getTime() }));
      }
    });
  }

  async getWebhook(integratorId: number): Promise<WebhookEndpoint | undefined> {
    const row = await this.#db.first(this.#db.named<WebhookRow>(PUSHED_SQL.webhook, { integrator_id: integratorId }));
    return row === undefined ? undefined : webhookFromRow(row);
  }

  async claimWebhookDeliveries(lease: { owner: string; until: Date }, now: Date, limit: number, perIntegrator: number): Promise<ClaimedDelivery[]> {
    const db = this.#db;
    // With row locks, FOR UPDATE cannot sit on the window function's query itself: the fair pick runs
    // inside, the lock outside (it re-checks that the row is still pending and unclaimed), and SKIP
    // LOCKED skips what another relayer is claiming before the LIMIT. Two relayers claiming at the same
    // instant can then each give an integrator its share: the cap holds per relayer, at worst relayers × share.
    const pick = db.capabilities.locks
      ? `SELECT d.event_seq FROM relay_webhook_deliveries d JOIN (${PUSHED_SQL.claimable}) f ON f.event_seq = d.event_seq
          WHERE d.state = 'pending' AND (d.lease_until IS NULL OR d.lease_until < @now) ${PUSHED_SQL.claimOrder} FOR UPDATE OF d SKIP LOCKED`
      : `SELECT f.event_seq FROM (${PUSHED_SQL.claimable}) f ${PUSHED_SQL.claimOrder}`;
    return db.transaction(function* (): TransactionBody<ClaimedDelivery[]> {
      const seqs = yield* step.rows(db.named<{ event_seq: number }>(pick, { now: now.getTime(), limit, per_integrator: perIntegrator }));
      const claimed: ClaimedDelivery[] = [];
      for (const { event_seq: seq } of seqs) {
        yield* step.changes(db.named(PUSHED_SQL.claim, { seq, owner: lease.owner, until: lease.until.getTime() }));
        const row = yield* step.first(db.named<ClaimedRow>(PUSHED_SQL.claimed, { seq }));
        if (row !== undefined) claimed.push(claimedFromRow(row));
      }
      return claimed;
    });
  }

  async settleWebhookDelivery(eventSeq: number, owner: string, outcome: DeliveryOutcome): Promise<boolean> {
    const db = this.#db;
    return db.transaction(function* () {
      if ((yield* step.changes(db.named(PUSHED_SQL.settle, settleParams(eventSeq, owner, outcome)))) !== 1) return false;
      const circuit = circuitParams(outcome);
      yield* step.changes(db.named(PUSHED_SQL[circuit.statement], circuit.params));
      return true;
    });
  }

  async expireWebhookDeliveries(before: Date, now: Date): Promise<number> {
    return this.#db.changes(this.#db.named(PUSHED_SQL.expirePending, { before: before.getTime(), now: now.getTime() }));
  }

  async releaseWebhookClaims(owner: string): Promise<number> {
    return this.#db.changes(this.#db.named(PUSHED_SQL.release, { owner }));
  }

  async listWebhookDeliveries(integratorId: number, limit: number): Promise<WebhookDeliveryRecord[]> {
    return (await this.#db.rows(this.#db.named<DeliveryRow>(PUSHED_SQL.deliveries, { integrator_id: integratorId, limit }))).map(deliveryFromRow);
  }

  async webhookBacklog(): Promise<WebhookBacklog> {
    return webhookBacklogFromRow((await this.#db.first(this.#db.named<{ pending: number | string; oldest_at: number | string | null }>(PUSHED_SQL.backlog, {})))!);
  }

  async listFailingWebhooks(since: Date): Promise<FailingWebhook[]> {
    return (await this.#db.rows(this.#db.named<FailingRow>(PUSHED_SQL.failing, { since: since.getTime() }))).map(failingFromRow);
  }

  async prunePushedStatus(before: Date): Promise<number> {
    const db = this.#db;
    return db.transaction(function* () {
      yield* step.changes(db.named(PUSHED_SQL.pruneDeliveries, { before: before.getTime() }));
      return yield* step.changes(db.named(PUSHED_SQL.pruneEvents, { before: before.getTime() }));
    });
  }
}
