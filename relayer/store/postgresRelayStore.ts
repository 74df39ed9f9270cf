import { getAddress, type Address, type Hex } from "viem";
import { canMoveRelay } from "../../sdk";
import { applyPostgresMigrations, withTransaction, type PostgresClient, type PostgresPool } from "../../sdk/storage/postgresPool";
import { openServicePool } from "../../sdk/storage/servicePools";
import { postgresRelayMigrations } from "./postgresRelayMigrations";
import {
  CANCELLED_UNSENT,
  cancellationDecision,
  endedRefusal,
  batchMemberRefusal,
  foreignFill,
  leaseRefusal,
  matchOutcome,
  RELAY_INSERT_COLUMNS,
  relayFromRow,
  relayParams,
  TRANSACTION_COLUMNS,
  transactionFromRow,
  transactionParams,
  type RelayRow,
  type TransactionRow,
} from "./relayRows";
import type {
  BatchMember,
  BatchRecording,
  BatchRecordingRequest,
  BatchRefusal,
  BroadcastFence,
  BroadcastRecording,
  CancellationRequest,
  ClaimedRelay,
  Lease,
  NewRelay,
  NewRelayTransaction,
  RelayCreation,
  RelayMatchQuery,
  RelayRecord,
  RelayStore,
  RelayTransaction,
  RelayUpdate,
  SignerClaim,
  SignerHolder,
} from "./relayStore";
import { storableMessage } from "../../sdk/wire/controlCharacters";
import { PostgresPushedStatus } from "./postgresPushedStatus";
import { LIST_SIGNER_STATES_SQL, reportSignerSql, setSignerStateSql, SIGNER_REPORT_COLUMNS, signerStateFromRow, type SignerStateRow } from "./signerStateSql";
import type { SignerReport, SignerState, SignerStateRecord, TopUpIntent, TopUpRecord, TopUpStatus } from "./relayStore";
import { insertTopUpSql, listTopUpsSql, setTopUpStatusSql, TOP_UP_COLUMNS, topUpFromRow, UNFINISHED_TOP_UPS_SQL, type TopUpRow } from "./topUpSql";
import type { UnpaidGasCharged, UnpaidGasEntry, UnpaidGasSubject, UnpaidGasTally, UnpaidGasTotal } from "../ledger/unpaidGas";
import {
  chargedSql,
  clearSql,
  releaseAtSql,
  subjectValue,
  talliesSql,
  totalsSql,
  UNPAID_GAS_INSERT_COLUMNS,
  unpaidGasInsertSql,
  unpaidGasParams,
  unpaidGasTallyFromRow,
  unpaidGasTotalFromRow,
  type UnpaidGasTallyRow,
  type UnpaidGasTotalRow,
} from "./unpaidGasSql";

type Queryable = Pick<PostgresClient, "query">;
const OPEN = "status IN ('accepted', 'submitted')";

/**
 * The relay table in one PostgreSQL database is the queue that several relayers share: a relay is
 * claimed with `FOR UPDATE SKIP LOCKED` by exactly one of them, held by a lease it renews, and taken
 * over by another once the lease runs out (its owner died).
 */
export async function openPostgresRelayStore(url: string): Promise<RelayStore> {
  const pool = openServicePool(url, "relayer");
  try {
    await applyPostgresMigrations(pool, "relayer_schema_migrations", postgresRelayMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PostgresRelayStore(pool, url);
}

class PostgresRelayStore implements RelayStore {
  readonly #pool: PostgresPool;
  readonly #pushed: PostgresPushedStatus;

  constructor(pool: PostgresPool, url: string) {
    this.#pool = pool;
    this.#pushed = new PostgresPushedStatus(pool, url);
  }

  async matchRelay(query: RelayMatchQuery): Promise<RelayCreation | undefined> {
    const byKey =
      query.idempotencyKey === undefined
        ? undefined
        : await this.#one("SELECT * FROM relays WHERE integrator_id = $1 AND idempotency_key = $2", [query.integratorId, query.idempotencyKey]);
    const byQuote = byKey !== undefined ? undefined : await this.#one("SELECT * FROM relays WHERE chain_id = $1 AND quote_id = $2", [query.chainId, query.quoteId]);
    const match = matchOutcome(query, byKey, byQuote);
    return match && { outcome: match.outcome, relay: await record(this.#pool, match.row) };
  }

  /** The insert skips a conflicting row; the loser of a race then finds the winner's relay. */
  async createRelay(relay: NewRelay, claim?: Lease): Promise<RelayCreation> {
    const existing = await this.matchRelay(relay);
    if (existing !== undefined) return existing;
    const row = relayParams(relay, claim);
    const created = await withTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<RelayRow>(
        `INSERT INTO relays (${RELAY_INSERT_COLUMNS.join(", ")}, status, updated_at)
         VALUES (${RELAY_INSERT_COLUMNS.map((_, index) => `$${index + 1}`).join(", ")}, 'accepted', $${RELAY_INSERT_COLUMNS.length})
         ON CONFLICT DO NOTHING RETURNING *`,
        RELAY_INSERT_COLUMNS.map((column) => row[column]),
      );
      if (rows[0] === undefined) return undefined;
      const inserted = await record(client, rows[0]);
      await this.#pushed.recordEvent(client, inserted, relay.createdAt);
      return inserted;
    });
    if (created !== undefined) return { outcome: "created", relay: created };
    const winner = await this.matchRelay(relay);
    if (winner === undefined) throw new Error(`relay ${relay.id} conflicted with a relay that cannot be found`);
    return winner;
  }

  async getRelay(id: string): Promise<RelayRecord | undefined> {
    const row = await this.#one("SELECT * FROM relays WHERE id = $1", [id]);
    return row && record(this.#pool, row);
  }

  async listOpenRelays(): Promise<RelayRecord[]> {
    const { rows } = await this.#pool.query<RelayRow>(`SELECT * FROM relays WHERE ${OPEN} ORDER BY created_at, id`);
    return Promise.all(rows.map((row) => record(this.#pool, row)));
  }

  async claimOpenRelays(lease: Lease, now: Date, limit: number, options: { own: boolean }): Promise<ClaimedRelay[]> {
    const { rows } = await this.#pool.query<RelayRow & { previous_owner: string | null }>(
      `WITH candidates AS (
         SELECT id, claimed_by FROM relays
         WHERE ${OPEN} AND (claimed_by IS NULL OR lease_until < $3 OR ($5::boolean AND claimed_by = $1))
         ORDER BY created_at, id LIMIT $4 FOR UPDATE SKIP LOCKED)
       UPDATE relays r SET claimed_by = $1, lease_until = $2 FROM candidates c WHERE r.id = c.id
       RETURNING r.*, c.claimed_by AS previous_owner`,
      [lease.owner, lease.until.getTime(), now.getTime(), limit, options.own],
    );
    rows.sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
    return Promise.all(rows.map(async (row) => ({ relay: await record(this.#pool, row), previousOwner: row.previous_owner ?? undefined })));
  }

  async renewLeases(lease: Lease): Promise<number> {
    const { rowCount } = await this.#pool.query(`UPDATE relays SET lease_until = $2 WHERE claimed_by = $1 AND ${OPEN}`, [lease.owner, lease.until.getTime()]);
    return rowCount ?? 0;
  }

  async recordBroadcast(relayId: string, transaction: NewRelayTransaction, fence: BroadcastFence): Promise<BroadcastRecording> {
    return withTransaction(this.#pool, async (client): Promise<BroadcastRecording> => {
      // The row lock orders this against another relayer's claim of the same relay.
      const { rows } = await client.query<Pick<RelayRow, "claimed_by" | "lease_until" | "status" | "cancel_requested_at">>(
        "SELECT claimed_by, lease_until, status, cancel_requested_at FROM relays WHERE id = $1 FOR UPDATE",
        [relayId],
      );
      const row = rows[0];
      if (row === undefined) throw new Error(`relay ${relayId} does not exist`);
      const refusal = leaseRefusal(row, fence) ?? endedRefusal(row, transaction.kind);
      if (refusal !== undefined) return refusal;
      await insertTransaction(client, relayId, { ...transaction, mined: false });
      await client.query(
        `UPDATE relays SET status = CASE WHEN status = 'accepted' THEN 'submitted' ELSE status END, signer = $2, signer_nonce = $3, updated_at = $4 WHERE id = $1`,
        [relayId, transaction.signer.toLowerCase(), transaction.nonce, transaction.sentAt.getTime()],
      );
      if (row.status === "accepted") await this.#pushed.recordEvent(client, (await this.#locked(client, relayId))!, transaction.sentAt);
      return "recorded";
    });
  }

  async requestCancellation(relayId: string, at: Date): Promise<CancellationRequest | undefined> {
    return withTransaction(this.#pool, async (client): Promise<CancellationRequest | undefined> => {
      // The row lock orders this against recordBroadcast and a batch's claim of the same relay.
      const { rows } = await client.query<RelayRow>("SELECT * FROM relays WHERE id = $1 FOR UPDATE", [relayId]);
      const row = rows[0];
      if (row === undefined) return undefined;
      const broadcast = await client.query("SELECT 1 FROM relay_transactions WHERE relay_id = $1 LIMIT 1", [relayId]);
      const decision = cancellationDecision(row, (broadcast.rowCount ?? 0) > 0);
      if (decision === "cancelled") {
        await client.query(
          `UPDATE relays SET status = 'cancelled', cancel_requested_at = $2, error = $3, updated_at = $2
           WHERE id = $1 AND status IN ('accepted', 'submitted') AND signer IS NULL
             AND NOT EXISTS (SELECT 1 FROM relay_transactions WHERE relay_id = $1)`,
          [relayId, at.getTime(), CANCELLED_UNSENT],
        );
      }
      if (decision === "cancelling") {
        await client.query(
          "UPDATE relays SET cancel_requested_at = COALESCE(cancel_requested_at, $2), cancelling = 1, updated_at = $2 WHERE id = $1 AND status IN ('accepted', 'submitted')",
          [relayId, at.getTime()],
        );
      }
      const relay = (await this.#locked(client, relayId))!;
      if (decision === "cancelled") await this.#pushed.recordEvent(client, relay, at);
      return { decision, relay };
    });
  }

  async recordBatchBroadcast(batch: BatchRecordingRequest, fence: BroadcastFence): Promise<BatchRecording> {
    return withTransaction(this.#pool, async (client): Promise<BatchRecording> => {
      // Row locks, in one order for every relayer, against a claim or a cancellation of any member.
      const ids = batch.members.map((member) => member.relayId);
      const { rows } = await client.query<RelayRow>("SELECT * FROM relays WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE", [ids]);
      const byId = new Map(rows.map((row) => [row.id, row]));
      const refused: { relayId: string; refusal: BatchRefusal }[] = [];
      for (const id of ids) {
        const row = byId.get(id);
        const refusal = row === undefined ? "changed" : batchMemberRefusal(row, batch.expect, fence, batch.transaction.kind);
        if (refusal !== undefined) refused.push({ relayId: id, refusal });
      }
      if (refused.length > 0) return { outcome: "refused", refused };
      const { transaction } = batch;
      for (const member of batch.members) {
        await insertTransaction(client, member.relayId, { ...transaction, mined: false, batch: { position: member.position, size: batch.members.length } });
      }
      await client.query(
        `UPDATE relays SET status = CASE WHEN status = 'accepted' THEN 'submitted' ELSE status END, signer = $2, signer_nonce = $3, updated_at = $4 WHERE id = ANY($1::text[])`,
        [ids, transaction.signer.toLowerCase(), transaction.nonce, transaction.sentAt.getTime()],
      );
      for (const id of ids) if (byId.get(id)!.status === "accepted") await this.#pushed.recordEvent(client, (await this.#locked(client, id))!, transaction.sentAt);
      return { outcome: "recorded" };
    });
  }

  async batchMembers(hash: Hex): Promise<BatchMember[]> {
    const { rows } = await this.#pool.query<{ relay_id: string; batch_position: number }>(
      "SELECT relay_id, batch_position FROM relay_transactions WHERE hash = $1 AND batch_position IS NOT NULL ORDER BY batch_position",
      [hash.toLowerCase()],
    );
    return rows.map((row) => ({ relayId: row.relay_id, position: row.batch_position }));
  }

  async latestAtNonce(signer: Address, nonce: number): Promise<Hex | undefined> {
    const { rows } = await this.#pool.query<{ hash: string }>(
      "SELECT hash FROM relay_transactions WHERE signer = $1 AND nonce = $2 AND raw IS NOT NULL ORDER BY sent_at DESC, seq DESC LIMIT 1",
      [signer.toLowerCase(), nonce],
    );
    return rows[0]?.hash as Hex | undefined;
  }

  async updateRelay(relayId: string, update: RelayUpdate): Promise<void> {
    await withTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<{ status: RelayRow["status"] }>("SELECT status FROM relays WHERE id = $1 FOR UPDATE", [relayId]);
      const current = rows[0];
      if (current === undefined) throw new Error(`relay ${relayId} does not exist`);
      if (update.status !== undefined && update.status !== current.status && !canMoveRelay(current.status, update.status)) {
        throw new Error(`relay ${relayId} cannot move from ${current.status} to ${update.status}`);
      }
      const { mined } = update;
      if (mined?.foreign !== undefined) await insertTransaction(client, relayId, foreignFill(mined.hash, mined.foreign, update.at));
      if (mined !== undefined) await client.query("UPDATE relay_transactions SET mined = 1 WHERE hash = $1 AND relay_id = $2", [mined.hash.toLowerCase(), relayId]);
      const release = update.releaseSigner === true;
      await client.query(
        `UPDATE relays SET status = COALESCE($2, status), reason = COALESCE($3, reason), error = COALESCE($4, error),
           cancelling = COALESCE($5, cancelling), signer = CASE WHEN $6 THEN NULL ELSE signer END,
           signer_nonce = CASE WHEN $6 THEN NULL ELSE signer_nonce END, updated_at = $7 WHERE id = $1`,
        [relayId, update.status ?? null, update.reason ?? null, update.error === undefined ? null : storableMessage(update.error), update.cancelling === undefined ? null : Number(update.cancelling), release, update.at.getTime()],
      );
      if (update.status !== undefined && update.status !== current.status) await this.#pushed.recordEvent(client, (await this.#locked(client, relayId))!, update.at);
    });
  }

  async chainRun(): Promise<Hex | undefined> {
    const { rows } = await this.#pool.query<{ value: string }>("SELECT value FROM relayer_meta WHERE key = 'chain_run'");
    return rows[0]?.value as Hex | undefined;
  }

  async setChainRun(deployBlockHash: Hex, options: { forgetRelays: boolean }): Promise<number> {
    return withTransaction(this.#pool, async (client) => {
      let forgotten = 0;
      if (options.forgetRelays) {
        await this.#pushed.forget(client);
        await client.query("DELETE FROM relay_transactions");
        forgotten = (await client.query("DELETE FROM relays")).rowCount ?? 0;
      }
      await client.query("INSERT INTO relayer_meta (key, value) VALUES ('chain_run', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [deployBlockHash.toLowerCase()]);
      return forgotten;
    });
  }

  async highestNonce(signer: Address): Promise<number | undefined> {
    const { rows } = await this.#pool.query<{ nonce: number | null }>("SELECT MAX(nonce) AS nonce FROM relay_transactions WHERE signer = $1 AND raw IS NOT NULL", [signer.toLowerCase()]);
    return rows[0]?.nonce ?? undefined;
  }

  async recordUnpaidGas(entry: UnpaidGasEntry): Promise<boolean> {
    const params = unpaidGasParams(entry);
    const { rowCount } = await this.#pool.query(
      unpaidGasInsertSql(UNPAID_GAS_INSERT_COLUMNS.map((_, index) => `$${index + 1}`)),
      UNPAID_GAS_INSERT_COLUMNS.map((column) => { const value = params[column]; return typeof value === "bigint" ? value.toString() : value; }),
    );
    return rowCount === 1;
  }

  async unpaidGasCharged(query: { taker: Address; integratorId: number; since: Date }): Promise<UnpaidGasCharged> {
    const { rows } = await this.#pool.query<{ taker: string; integrator: string }>(chargedSql("postgres", { taker: "$1", integrator: "$2", since: "$3" }), [
      query.taker.toLowerCase(),
      query.integratorId,
      query.since.getTime(),
    ]);
    return { taker: BigInt(rows[0]?.taker ?? 0), integrator: BigInt(rows[0]?.integrator ?? 0) };
  }

  async unpaidGasReleaseAt(subject: UnpaidGasSubject, query: { since: Date; keep: bigint }): Promise<Date | undefined> {
    const { rows } = await this.#pool.query<{ charged_at: number }>(releaseAtSql("postgres", subject.kind, { who: "$1", since: "$2", keep: "$3" }), [
      subjectValue(subject),
      query.since.getTime(),
      query.keep.toString(),
    ]);
    return rows[0] === undefined ? undefined : new Date(Number(rows[0].charged_at));
  }

  async unpaidGasTotals(query: { since?: Date; integratorId?: number }): Promise<UnpaidGasTotal[]> {
    const { rows } = await this.#pool.query<UnpaidGasTotalRow>(totalsSql("postgres", { since: "$1", integrator: "$2" }), [query.since?.getTime() ?? 0, query.integratorId ?? null]);
    return rows.map(unpaidGasTotalFromRow);
  }

  async listUnpaidGasTallies(since: Date): Promise<UnpaidGasTally[]> {
    const { rows } = await this.#pool.query<UnpaidGasTallyRow>(talliesSql("postgres", "$1"), [since.getTime()]);
    return rows.map(unpaidGasTallyFromRow);
  }

  async clearUnpaidGas(subject: UnpaidGasSubject): Promise<number> {
    const { rowCount } = await this.#pool.query(clearSql(subject.kind, "$1"), [subjectValue(subject)]);
    return rowCount ?? 0;
  }

  async claimSigners(claim: SignerClaim): Promise<SignerHolder[]> {
    return withTransaction(this.#pool, async (client) => {
      // One relayer registers at a time: two starting together cannot both find the other absent.
      await client.query("LOCK TABLE relayer_signers IN SHARE ROW EXCLUSIVE MODE");
      const mine = claim.signers.map((signer) => signer.toLowerCase());
      const { rows } = await client.query<{ signer: string; relayer_id: string; live_until: number }>(
        "SELECT signer, relayer_id, live_until FROM relayer_signers WHERE signer = ANY($1) AND relayer_id <> $2 AND live_until > $3",
        [mine, claim.relayerId, claim.now.getTime()],
      );
      if (rows.length > 0) return rows.map((row) => ({ signer: getAddress(row.signer), relayerId: row.relayer_id, until: new Date(row.live_until) }));
      for (const signer of mine) {
        await client.query(
          `INSERT INTO relayer_signers (signer, relayer_id, live_until) VALUES ($1, $2, $3)
           ON CONFLICT (signer) DO UPDATE SET relayer_id = excluded.relayer_id, live_until = excluded.live_until`,
          [signer, claim.relayerId, claim.until.getTime()],
        );
      }
      return [];
    });
  }

  async renewSigners(relayerId: string, until: Date): Promise<void> {
    await this.#pool.query("UPDATE relayer_signers SET live_until = $1 WHERE relayer_id = $2", [until.getTime(), relayerId]);
  }

  async setSignerState(signer: Address, state: SignerState, at: Date): Promise<void> {
    await this.#pool.query(setSignerStateSql(["$1", "$2", "$3"]), [signer.toLowerCase(), state, at.getTime()]);
  }

  async recordTopUp(intent: TopUpIntent, at: Date): Promise<number> {
    const { rows } = await this.#pool.query<{ id: string }>(insertTopUpSql(TOP_UP_COLUMNS.map((_, index) => `$${index + 1}`)), [
      intent.signer.toLowerCase(),
      intent.treasury.toLowerCase(),
      intent.amountWei.toString(),
      intent.nonce,
      intent.rawTx,
      intent.txHash,
      "intent",
      at.getTime(),
      at.getTime(),
    ]);
    return Number(rows[0]!.id);
  }

  async setTopUpStatus(id: number, status: TopUpStatus, at: Date): Promise<void> {
    await this.#pool.query(setTopUpStatusSql(["$1", "$2", "$3"]), [id, status, at.getTime()]);
  }

  async topUps(query: { since?: Date; limit?: number } = {}): Promise<TopUpRecord[]> {
    const { rows } = await this.#pool.query<TopUpRow>(listTopUpsSql(["$1", "$2"]), [query.since?.getTime() ?? 0, query.limit ?? 1000]);
    return rows.map(topUpFromRow);
  }

  async unfinishedTopUps(): Promise<TopUpRecord[]> {
    const { rows } = await this.#pool.query<TopUpRow>(UNFINISHED_TOP_UPS_SQL);
    return rows.map(topUpFromRow);
  }

  async signerStates(): Promise<SignerStateRecord[]> {
    const { rows } = await this.#pool.query<SignerStateRow>(LIST_SIGNER_STATES_SQL);
    return rows.map(signerStateFromRow);
  }

  async reportSigners(relayerId: string, reports: readonly SignerReport[], at: Date): Promise<void> {
    const sql = reportSignerSql(SIGNER_REPORT_COLUMNS.map((_, index) => `$${index + 1}`));
    await withTransaction(this.#pool, async (client) => {
      for (const report of reports) {
        await client.query(sql, [report.signer.toLowerCase(), relayerId, report.backend, report.balanceWei?.toString() ?? null, report.pending, report.dailySpendWei.toString(), at.getTime()]);
      }
    });
  }

  async releaseSigners(relayerId: string): Promise<void> {
    await this.#pool.query("DELETE FROM relayer_signers WHERE relayer_id = $1", [relayerId]);
  }

  listRelayEvents(...args: Parameters<RelayStore["listRelayEvents"]>) { return this.#pushed.listRelayEvents(...args); }
  relayEventHead() { return this.#pushed.relayEventHead(); }
  watchRelayEvents(...args: Parameters<RelayStore["watchRelayEvents"]>) { return this.#pushed.watchRelayEvents(...args); }
  listEventFeed(...args: Parameters<RelayStore["listEventFeed"]>) { return this.#pushed.listEventFeed(...args); }
  setWebhook(...args: Parameters<RelayStore["setWebhook"]>) { return this.#pushed.setWebhook(...args); }
  getWebhook(...args: Parameters<RelayStore["getWebhook"]>) { return this.#pushed.getWebhook(...args); }
  claimWebhookDeliveries(...args: Parameters<RelayStore["claimWebhookDeliveries"]>) { return this.#pushed.claimWebhookDeliveries(...args); }
  settleWebhookDelivery(...args: Parameters<RelayStore["settleWebhookDelivery"]>) { return this.#pushed.settleWebhookDelivery(...args); }
  releaseWebhookClaims(...args: Parameters<RelayStore["releaseWebhookClaims"]>) { return this.#pushed.releaseWebhookClaims(...args); }
  listWebhookDeliveries(...args: Parameters<RelayStore["listWebhookDeliveries"]>) { return this.#pushed.listWebhookDeliveries(...args); }
  listFailingWebhooks(...args: Parameters<RelayStore["listFailingWebhooks"]>) { return this.#pushed.listFailingWebhooks(...args); }
  webhookBacklog() { return this.#pushed.webhookBacklog(); }
  prunePushedStatus(...args: Parameters<RelayStore["prunePushedStatus"]>) { return this.#pushed.prunePushedStatus(...args); }
  expireWebhookDeliveries(...args: Parameters<RelayStore["expireWebhookDeliveries"]>) { return this.#pushed.expireWebhookDeliveries(...args); }

  /** The relay as this transaction sees it, for the event of its change. */
  async #locked(client: Queryable, relayId: string): Promise<RelayRecord | undefined> {
    const { rows } = await client.query<RelayRow>("SELECT * FROM relays WHERE id = $1", [relayId]);
    return rows[0] && record(client, rows[0]);
  }

  async ping(): Promise<void> {
    await this.#pool.query("SELECT 1");
  }

  async close(): Promise<void> {
    await this.#pushed.closeListener();
    await this.#pool.end();
  }

  async #one(sql: string, params: unknown[]): Promise<RelayRow | undefined> {
    return (await this.#pool.query<RelayRow>(sql, params)).rows[0];
  }
}

async function insertTransaction(client: Queryable, relayId: string, transaction: RelayTransaction): Promise<void> {
  const row = transactionParams(relayId, transaction);
  await client.query(
    `INSERT INTO relay_transactions (${TRANSACTION_COLUMNS.join(", ")}) VALUES (${TRANSACTION_COLUMNS.map((_, index) => `$${index + 1}`).join(", ")})
     ON CONFLICT (hash, relay_id) DO NOTHING`,
    TRANSACTION_COLUMNS.map((column) => row[column]),
  );
}

async function record(db: Queryable, row: RelayRow): Promise<RelayRecord> {
  const { rows } = await db.query<TransactionRow>("SELECT * FROM relay_transactions WHERE relay_id = $1 ORDER BY sent_at, seq", [row.id]);
  return relayFromRow(row, rows.map(transactionFromRow));
}
