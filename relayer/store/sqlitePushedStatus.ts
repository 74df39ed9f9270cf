import type Database from "better-sqlite3";
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
import type { ClaimedDelivery, DeliveryOutcome, FailingWebhook, PushedStatusStore, RelayEvent, RelayEventNotice, RelayEventQuery, WebhookBacklog, WebhookDeliveryRecord, WebhookEndpoint } from "./pushedStatusStore";
import { webhookBacklogFromRow } from "./pushedStatusStore";
import type { RelayRecord } from "./relayStore";

/**
 * The pushed-status tables on SQLite. `recordEvent` is synchronous on purpose: the relay store calls
 * it inside the transaction of the status change it reports.
 */
export class SqlitePushedStatus implements PushedStatusStore {
  readonly #db: Database.Database;
  readonly #watchers = new Set<(notice: RelayEventNotice) => void>();
  readonly #statements;

  constructor(db: Database.Database) {
    this.#db = db;
    const queries = { ...PUSHED_SQL, claimNext: `SELECT f.event_seq FROM (${PUSHED_SQL.claimable}) f ${PUSHED_SQL.claimOrder}` };
    const { claimable: _fragment, claimOrder: _order, ...statements } = queries;
    this.#statements = Object.fromEntries(Object.entries(statements).map(([name, sql]) => [name, db.prepare(sql)])) as Record<keyof typeof statements, Database.Statement>;
  }

  /** The outbox write of one status change; the caller runs it in the change's own transaction. */
  recordEvent(relay: RelayRecord, at: Date): void {
    const params = eventParams(relay, at);
    const { seq } = this.#statements.insertEvent.get(params) as { seq: number };
    this.#statements.insertDelivery.run({ seq, relay_id: relay.id, integrator_id: relay.integratorId, created_at: params.created_at });
    // better-sqlite3's transactions are synchronous: by the microtask, the caller's transaction has
    // committed (or rolled back: a waiter then reads nothing new). Only this process writes this file.
    const notice: RelayEventNotice = { seq: Number(seq), integratorId: relay.integratorId };
    if (this.#watchers.size > 0) queueMicrotask(() => this.#notify(notice));
  }

  watchRelayEvents(listener: (notice: RelayEventNotice) => void): () => void {
    this.#watchers.add(listener);
    return () => this.#watchers.delete(listener);
  }

  #notify(notice: RelayEventNotice): void {
    for (const watcher of this.#watchers) watcher(notice);
  }

  /** A new chain run forgets its relays, so their events and deliveries too. */
  forget(): void {
    this.#statements.forgetDeliveries.run();
    this.#statements.forgetEvents.run();
  }

  async listRelayEvents(query: RelayEventQuery): Promise<RelayEvent[]> {
    const rows = this.#statements.events.all({ integrator_id: query.integratorId, relay_id: query.relayId ?? null, after: query.afterSeq, limit: query.limit }) as EventRow[];
    return rows.map(eventFromRow);
  }

  async listEventFeed(afterSeq: number, limit: number): Promise<RelayEvent[]> {
    return (this.#statements.feed.all({ after: afterSeq, limit }) as EventRow[]).map(eventFromRow);
  }

  async relayEventHead(): Promise<number> {
    return (this.#statements.head.get() as { head: number }).head;
  }

  async setWebhook(integratorId: number, endpoint: { url: string; secret: string } | undefined, at: Date): Promise<void> {
    this.#db
      .transaction(() => {
        if (endpoint === undefined) {
          this.#statements.deleteWebhook.run({ integrator_id: integratorId });
          this.#statements.dropPending.run({ integrator_id: integratorId });
        } else {
          this.#statements.upsertWebhook.run({ integrator_id: integratorId, url: endpoint.url, secret: endpoint.secret, at: at.getTime() });
        }
      })
      .immediate();
  }

  async getWebhook(integratorId: number): Promise<WebhookEndpoint | undefined> {
    const row = this.#statements.webhook.get({ integrator_id: integratorId }) as WebhookRow | undefined;
    return row === undefined ? undefined : webhookFromRow(row);
  }

  async claimWebhookDeliveries(lease: { owner: string; until: Date }, now: Date, limit: number, perIntegrator: number): Promise<ClaimedDelivery[]> {
    return this.#db
      .transaction(() => {
        const seqs = (this.#statements.claimNext.all({ now: now.getTime(), limit, per_integrator: perIntegrator }) as { event_seq: number }[]).map((row) => row.event_seq);
        return seqs.flatMap((seq) => {
          this.#statements.claim.run({ seq, owner: lease.owner, until: lease.until.getTime() });
          const row = this.#statements.claimed.get({ seq }) as ClaimedRow | undefined;
          return row === undefined ? [] : [claimedFromRow(row)];
        });
      })
      .immediate();
  }

  async settleWebhookDelivery(eventSeq: number, owner: string, outcome: DeliveryOutcome): Promise<boolean> {
    return this.#db
      .transaction(() => {
        if (this.#statements.settle.run(settleParams(eventSeq, owner, outcome)).changes !== 1) return false;
        const circuit = circuitParams(outcome);
        this.#statements[circuit.statement].run(circuit.params);
        return true;
      })
      .immediate();
  }

  async expireWebhookDeliveries(before: Date, now: Date): Promise<number> {
    return this.#statements.expirePending.run({ before: before.getTime(), now: now.getTime() }).changes;
  }

  async releaseWebhookClaims(owner: string): Promise<number> {
    return this.#statements.release.run({ owner }).changes;
  }

  async listWebhookDeliveries(integratorId: number, limit: number): Promise<WebhookDeliveryRecord[]> {
    return (this.#statements.deliveries.all({ integrator_id: integratorId, limit }) as DeliveryRow[]).map(deliveryFromRow);
  }

  async webhookBacklog(): Promise<WebhookBacklog> {
    return webhookBacklogFromRow(this.#statements.backlog.get() as { pending: number; oldest_at: number | null });
  }

  async listFailingWebhooks(since: Date): Promise<FailingWebhook[]> {
    return (this.#statements.failing.all({ since: since.getTime() }) as FailingRow[]).map(failingFromRow);
  }

  async prunePushedStatus(before: Date): Promise<number> {
    return this.#db
      .transaction(() => {
        this.#statements.pruneDeliveries.run({ before: before.getTime() });
        return this.#statements.pruneEvents.run({ before: before.getTime() }).changes;
      })
      .immediate();
  }
}
