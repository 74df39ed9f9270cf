import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { getAddress, type Address, type Hex } from "viem";
import { canMoveRelay } from "../../sdk";
import { applySqliteMigrations } from "../../sdk/storage/sqliteMigrations";
import { relayMigrations } from "./relayMigrations";
import { CANCELLED_UNSENT, cancellationDecision, endedRefusal, batchMemberRefusal, foreignFill, leaseRefusal, matchOutcome, RELAY_INSERT_COLUMNS, relayFromRow, relayParams, transactionFromRow, transactionParams, type RelayRow, type TransactionRow } from "./relayRows";
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
  RelayUpdate,
  SignerClaim,
  SignerHolder,
} from "./relayStore";
import { storableMessage } from "../../sdk/wire/controlCharacters";
import { SqlitePushedStatus } from "./sqlitePushedStatus";
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

const OPEN = "status IN ('accepted', 'submitted')";

/**
 * Opens (creating if needed) the relayer's SQLite database. `synchronous = FULL`: a broadcast follows
 * every write of a signed transaction, so the write must survive a power cut, not only a crash.
 * One relayer process per file; several relayers share a PostgreSQL database instead.
 */
export function openSqliteRelayStore(path: string): RelayStore {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    applySqliteMigrations(db, relayMigrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return new SqliteRelayStore(db);
}

class SqliteRelayStore implements RelayStore {
  readonly #db: Database.Database;
  readonly #statements;
  readonly #pushed: SqlitePushedStatus;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#pushed = new SqlitePushedStatus(db);
    this.#statements = {
      byId: db.prepare("SELECT * FROM relays WHERE id = ?"),
      byQuote: db.prepare("SELECT * FROM relays WHERE chain_id = ? AND quote_id = ?"),
      byIdempotencyKey: db.prepare("SELECT * FROM relays WHERE integrator_id = ? AND idempotency_key = ?"),
      open: db.prepare(`SELECT * FROM relays WHERE ${OPEN} ORDER BY created_at, id`),
      claimable: db.prepare(`SELECT * FROM relays WHERE ${OPEN} AND (claimed_by IS NULL OR lease_until < @now OR (@own = 1 AND claimed_by = @owner))
        ORDER BY created_at, id LIMIT @limit`),
      claim: db.prepare("UPDATE relays SET claimed_by = @owner, lease_until = @until WHERE id = @id"),
      renew: db.prepare(`UPDATE relays SET lease_until = @until WHERE claimed_by = @owner AND ${OPEN}`),
      insert: db.prepare(`INSERT INTO relays (${RELAY_INSERT_COLUMNS.join(", ")}, status, updated_at)
        VALUES (${RELAY_INSERT_COLUMNS.map((column) => `@${column}`).join(", ")}, 'accepted', @created_at)`),
      transactions: db.prepare("SELECT * FROM relay_transactions WHERE relay_id = ? ORDER BY sent_at, rowid"),
      insertTransaction: db.prepare(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas,
        max_priority_fee_per_gas, sent_at, mined, batch_position, batch_size) VALUES (@hash, @relay_id, @kind, @signer, @nonce, @raw, @max_fee_per_gas,
        @max_priority_fee_per_gas, @sent_at, @mined, @batch_position, @batch_size) ON CONFLICT (hash, relay_id) DO NOTHING`),
      batchMembers: db.prepare("SELECT relay_id, batch_position FROM relay_transactions WHERE hash = ? AND batch_position IS NOT NULL ORDER BY batch_position"),
      latestAtNonce: db.prepare("SELECT hash FROM relay_transactions WHERE signer = ? AND nonce = ? AND raw IS NOT NULL ORDER BY sent_at DESC, rowid DESC LIMIT 1"),
      markMined: db.prepare("UPDATE relay_transactions SET mined = 1 WHERE hash = ? AND relay_id = ?"),
      submitted: db.prepare(`UPDATE relays SET status = CASE WHEN status = 'accepted' THEN 'submitted' ELSE status END,
        signer = @signer, signer_nonce = @nonce, updated_at = @at WHERE id = @id`),
      update: db.prepare(`UPDATE relays SET status = COALESCE(@status, status), reason = COALESCE(@reason, reason),
        error = COALESCE(@error, error), cancelling = COALESCE(@cancelling, cancelling),
        signer = CASE WHEN @release = 1 THEN NULL ELSE signer END,
        signer_nonce = CASE WHEN @release = 1 THEN NULL ELSE signer_nonce END, updated_at = @at WHERE id = @id`),
      broadcastOnRecord: db.prepare("SELECT 1 FROM relay_transactions WHERE relay_id = ? LIMIT 1"),
      cancelUnsent: db.prepare(`UPDATE relays SET status = 'cancelled', cancel_requested_at = @at, error = @error, updated_at = @at
        WHERE id = @id AND status IN ('accepted', 'submitted') AND signer IS NULL
          AND NOT EXISTS (SELECT 1 FROM relay_transactions WHERE relay_id = @id)`),
      markCancelling: db.prepare(`UPDATE relays SET cancel_requested_at = COALESCE(cancel_requested_at, @at), cancelling = 1, updated_at = @at
        WHERE id = @id AND status IN ('accepted', 'submitted')`),
      chainRun: db.prepare("SELECT value FROM relayer_meta WHERE key = 'chain_run'"),
      setChainRun: db.prepare("INSERT INTO relayer_meta (key, value) VALUES ('chain_run', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
      deleteTransactions: db.prepare("DELETE FROM relay_transactions"),
      deleteRelays: db.prepare("DELETE FROM relays"),
      highestNonce: db.prepare("SELECT MAX(nonce) AS nonce FROM relay_transactions WHERE signer = ? AND raw IS NOT NULL"),
      recordUnpaidGas: db.prepare(unpaidGasInsertSql(UNPAID_GAS_INSERT_COLUMNS.map((column) => `@${column}`))),
      unpaidGasCharged: db.prepare(chargedSql("sqlite", { taker: "@taker", integrator: "@integrator", since: "@since" })),
      takerReleaseAt: db.prepare(releaseAtSql("sqlite", "taker", { who: "@who", since: "@since", keep: "@keep" })),
      integratorReleaseAt: db.prepare(releaseAtSql("sqlite", "integrator", { who: "@who", since: "@since", keep: "@keep" })),
      unpaidGasTotals: db.prepare(totalsSql("sqlite", { since: "@since", integrator: "@integrator" })),
      unpaidGasTallies: db.prepare(talliesSql("sqlite", "@since")),
      clearTaker: db.prepare(clearSql("taker", "?")),
      clearIntegrator: db.prepare(clearSql("integrator", "?")),
      signerHolders: db.prepare("SELECT signer, relayer_id, live_until FROM relayer_signers WHERE relayer_id <> @relayer AND live_until > @now"),
      claimSigner: db.prepare(`INSERT INTO relayer_signers (signer, relayer_id, live_until) VALUES (@signer, @relayer, @until)
        ON CONFLICT (signer) DO UPDATE SET relayer_id = excluded.relayer_id, live_until = excluded.live_until`),
      renewSigners: db.prepare("UPDATE relayer_signers SET live_until = ? WHERE relayer_id = ?"),
      releaseSigners: db.prepare("DELETE FROM relayer_signers WHERE relayer_id = ?"),
      setSignerState: db.prepare(setSignerStateSql(["@signer", "@state", "@at"])),
      reportSigner: db.prepare(reportSignerSql(SIGNER_REPORT_COLUMNS.map((column) => `@${column}`))),
      signerStates: db.prepare(LIST_SIGNER_STATES_SQL),
      insertTopUp: db.prepare(insertTopUpSql(TOP_UP_COLUMNS.map((column) => `@${column}`))),
      setTopUpStatus: db.prepare(setTopUpStatusSql(["@id", "@status", "@at"])),
      topUps: db.prepare(listTopUpsSql(["@since", "@limit"])),
      unfinishedTopUps: db.prepare(UNFINISHED_TOP_UPS_SQL),
    };
  }

  async matchRelay(query: RelayMatchQuery): Promise<RelayCreation | undefined> {
    return this.#match(query);
  }

  #match(query: RelayMatchQuery): RelayCreation | undefined {
    const byKey = query.idempotencyKey === undefined ? undefined : (this.#statements.byIdempotencyKey.get(query.integratorId, query.idempotencyKey) as RelayRow | undefined);
    const byQuote = byKey !== undefined ? undefined : (this.#statements.byQuote.get(query.chainId, query.quoteId) as RelayRow | undefined);
    const match = matchOutcome(query, byKey, byQuote);
    return match && { outcome: match.outcome, relay: this.#record(match.row) };
  }

  async createRelay(relay: NewRelay, claim?: Lease): Promise<RelayCreation> {
    return this.#db
      .transaction((): RelayCreation => {
        const existing = this.#match(relay);
        if (existing !== undefined) return existing;
        this.#statements.insert.run(relayParams(relay, claim));
        const created = this.#record(this.#statements.byId.get(relay.id) as RelayRow);
        this.#pushed.recordEvent(created, relay.createdAt);
        return { outcome: "created", relay: created };
      })
      .immediate();
  }

  async getRelay(id: string): Promise<RelayRecord | undefined> {
    const row = this.#statements.byId.get(id) as RelayRow | undefined;
    return row === undefined ? undefined : this.#record(row);
  }

  async listOpenRelays(): Promise<RelayRecord[]> {
    return (this.#statements.open.all() as RelayRow[]).map((row) => this.#record(row));
  }

  async claimOpenRelays(lease: Lease, now: Date, limit: number, options: { own: boolean }): Promise<ClaimedRelay[]> {
    return this.#db
      .transaction(() => {
        const rows = this.#statements.claimable.all({ owner: lease.owner, now: now.getTime(), limit, own: Number(options.own) }) as RelayRow[];
        return rows.map((row) => {
          this.#statements.claim.run({ id: row.id, owner: lease.owner, until: lease.until.getTime() });
          return { relay: this.#record(this.#statements.byId.get(row.id) as RelayRow), previousOwner: row.claimed_by ?? undefined };
        });
      })
      .immediate();
  }

  async renewLeases(lease: Lease): Promise<number> {
    return this.#statements.renew.run({ owner: lease.owner, until: lease.until.getTime() }).changes;
  }

  async recordBroadcast(relayId: string, transaction: NewRelayTransaction, fence: BroadcastFence): Promise<BroadcastRecording> {
    return this.#db
      .transaction((): BroadcastRecording => {
        const row = this.#statements.byId.get(relayId) as RelayRow | undefined;
        if (row === undefined) throw new Error(`relay ${relayId} does not exist`);
        const refusal = leaseRefusal(row, fence) ?? endedRefusal(row, transaction.kind);
        if (refusal !== undefined) return refusal;
        this.#statements.insertTransaction.run(transactionParams(relayId, { ...transaction, mined: false }));
        this.#statements.submitted.run({ id: relayId, signer: transaction.signer.toLowerCase(), nonce: transaction.nonce, at: transaction.sentAt.getTime() });
        if (row.status === "accepted") this.#pushed.recordEvent(this.#record(this.#statements.byId.get(relayId) as RelayRow), transaction.sentAt);
        return "recorded";
      })
      .immediate();
  }

  async requestCancellation(relayId: string, at: Date): Promise<CancellationRequest | undefined> {
    return this.#db
      .transaction((): CancellationRequest | undefined => {
        const row = this.#statements.byId.get(relayId) as RelayRow | undefined;
        if (row === undefined) return undefined;
        const decision = cancellationDecision(row, this.#statements.broadcastOnRecord.get(relayId) !== undefined);
        if (decision === "cancelled") this.#statements.cancelUnsent.run({ id: relayId, at: at.getTime(), error: CANCELLED_UNSENT });
        if (decision === "cancelling") this.#statements.markCancelling.run({ id: relayId, at: at.getTime() });
        const relay = this.#record(this.#statements.byId.get(relayId) as RelayRow);
        if (decision === "cancelled") this.#pushed.recordEvent(relay, at);
        return { decision, relay };
      })
      .immediate();
  }

  async recordBatchBroadcast(batch: BatchRecordingRequest, fence: BroadcastFence): Promise<BatchRecording> {
    return this.#db
      .transaction((): BatchRecording => {
        const refused: { relayId: string; refusal: BatchRefusal }[] = [];
        for (const member of batch.members) {
          const row = this.#statements.byId.get(member.relayId) as RelayRow | undefined;
          const refusal = row === undefined ? "changed" : batchMemberRefusal(row, batch.expect, fence, batch.transaction.kind);
          if (refusal !== undefined) refused.push({ relayId: member.relayId, refusal });
        }
        if (refused.length > 0) return { outcome: "refused", refused };
        const { transaction } = batch;
        for (const member of batch.members) {
          const leavesAccepted = (this.#statements.byId.get(member.relayId) as RelayRow).status === "accepted";
          this.#statements.insertTransaction.run(transactionParams(member.relayId, { ...transaction, mined: false, batch: { position: member.position, size: batch.members.length } }));
          this.#statements.submitted.run({ id: member.relayId, signer: transaction.signer.toLowerCase(), nonce: transaction.nonce, at: transaction.sentAt.getTime() });
          if (leavesAccepted) this.#pushed.recordEvent(this.#record(this.#statements.byId.get(member.relayId) as RelayRow), transaction.sentAt);
        }
        return { outcome: "recorded" };
      })
      .immediate();
  }

  async batchMembers(hash: Hex): Promise<BatchMember[]> {
    return (this.#statements.batchMembers.all(hash.toLowerCase()) as { relay_id: string; batch_position: number }[]).map((row) => ({ relayId: row.relay_id, position: row.batch_position }));
  }

  async latestAtNonce(signer: Address, nonce: number): Promise<Hex | undefined> {
    const row = this.#statements.latestAtNonce.get(signer.toLowerCase(), nonce) as { hash: string } | undefined;
    return row?.hash as Hex | undefined;
  }

  async updateRelay(relayId: string, update: RelayUpdate): Promise<void> {
    this.#db
      .transaction(() => {
        const current = this.#statements.byId.get(relayId) as RelayRow | undefined;
        if (current === undefined) throw new Error(`relay ${relayId} does not exist`);
        if (update.status !== undefined && update.status !== current.status && !canMoveRelay(current.status, update.status)) {
          throw new Error(`relay ${relayId} cannot move from ${current.status} to ${update.status}`);
        }
        const { mined } = update;
        if (mined?.foreign !== undefined) this.#statements.insertTransaction.run(transactionParams(relayId, foreignFill(mined.hash, mined.foreign, update.at)));
        // A fill by a transaction already on record (another relayer's, taken over) is marked mined too.
        if (mined !== undefined) this.#statements.markMined.run(mined.hash.toLowerCase(), relayId);
        this.#statements.update.run({
          id: relayId,
          status: update.status ?? null,
          reason: update.reason ?? null,
          error: update.error === undefined ? null : storableMessage(update.error),
          cancelling: update.cancelling === undefined ? null : Number(update.cancelling),
          release: update.releaseSigner === true ? 1 : 0,
          at: update.at.getTime(),
        });
        if (update.status !== undefined && update.status !== current.status) this.#pushed.recordEvent(this.#record(this.#statements.byId.get(relayId) as RelayRow), update.at);
      })
      .immediate();
  }

  async chainRun(): Promise<Hex | undefined> {
    const row = this.#statements.chainRun.get() as { value: string } | undefined;
    return row?.value as Hex | undefined;
  }

  async setChainRun(deployBlockHash: Hex, options: { forgetRelays: boolean }): Promise<number> {
    return this.#db
      .transaction(() => {
        let forgotten = 0;
        if (options.forgetRelays) {
          this.#pushed.forget();
          this.#statements.deleteTransactions.run();
          forgotten = this.#statements.deleteRelays.run().changes;
        }
        this.#statements.setChainRun.run(deployBlockHash.toLowerCase());
        return forgotten;
      })
      .immediate();
  }

  async highestNonce(signer: Address): Promise<number | undefined> {
    const row = this.#statements.highestNonce.get(signer.toLowerCase()) as { nonce: number | null };
    return row.nonce ?? undefined;
  }

  async recordUnpaidGas(entry: UnpaidGasEntry): Promise<boolean> {
    return this.#statements.recordUnpaidGas.run(unpaidGasParams(entry)).changes === 1;
  }

  async unpaidGasCharged(query: { taker: Address; integratorId: number; since: Date }): Promise<UnpaidGasCharged> {
    const row = this.#statements.unpaidGasCharged.get({ taker: query.taker.toLowerCase(), integrator: query.integratorId, since: query.since.getTime() }) as { taker: string; integrator: string };
    return { taker: BigInt(row.taker), integrator: BigInt(row.integrator) };
  }

  async unpaidGasReleaseAt(subject: UnpaidGasSubject, query: { since: Date; keep: bigint }): Promise<Date | undefined> {
    const statement = subject.kind === "taker" ? this.#statements.takerReleaseAt : this.#statements.integratorReleaseAt;
    const row = statement.get({ who: subjectValue(subject), since: query.since.getTime(), keep: query.keep }) as { charged_at: number } | undefined;
    return row === undefined ? undefined : new Date(row.charged_at);
  }

  async unpaidGasTotals(query: { since?: Date; integratorId?: number }): Promise<UnpaidGasTotal[]> {
    const rows = this.#statements.unpaidGasTotals.all({ since: query.since?.getTime() ?? 0, integrator: query.integratorId ?? null }) as UnpaidGasTotalRow[];
    return rows.map(unpaidGasTotalFromRow);
  }

  async listUnpaidGasTallies(since: Date): Promise<UnpaidGasTally[]> {
    return (this.#statements.unpaidGasTallies.all({ since: since.getTime() }) as UnpaidGasTallyRow[]).map(unpaidGasTallyFromRow);
  }

  async clearUnpaidGas(subject: UnpaidGasSubject): Promise<number> {
    return (subject.kind === "taker" ? this.#statements.clearTaker : this.#statements.clearIntegrator).run(subjectValue(subject)).changes;
  }

  async claimSigners(claim: SignerClaim): Promise<SignerHolder[]> {
    return this.#db
      .transaction((): SignerHolder[] => {
        const mine = new Set(claim.signers.map((signer) => signer.toLowerCase()));
        const rows = this.#statements.signerHolders.all({ relayer: claim.relayerId, now: claim.now.getTime() }) as { signer: string; relayer_id: string; live_until: number }[];
        const holders = rows.filter((row) => mine.has(row.signer)).map((row) => ({ signer: getAddress(row.signer), relayerId: row.relayer_id, until: new Date(row.live_until) }));
        if (holders.length > 0) return holders;
        for (const signer of mine) this.#statements.claimSigner.run({ signer, relayer: claim.relayerId, until: claim.until.getTime() });
        return [];
      })
      .immediate();
  }

  async renewSigners(relayerId: string, until: Date): Promise<void> {
    this.#statements.renewSigners.run(until.getTime(), relayerId);
  }

  async releaseSigners(relayerId: string): Promise<void> {
    this.#statements.releaseSigners.run(relayerId);
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

  async setSignerState(signer: Address, state: SignerState, at: Date): Promise<void> {
    this.#statements.setSignerState.run({ signer: signer.toLowerCase(), state, at: at.getTime() });
  }

  async recordTopUp(intent: TopUpIntent, at: Date): Promise<number> {
    const row = this.#statements.insertTopUp.get({
      signer: intent.signer.toLowerCase(),
      treasury: intent.treasury.toLowerCase(),
      amount_wei: intent.amountWei.toString(),
      nonce: intent.nonce,
      raw_tx: intent.rawTx,
      tx_hash: intent.txHash,
      status: "intent",
      created_at: at.getTime(),
      updated_at: at.getTime(),
    }) as { id: number };
    return row.id;
  }

  async setTopUpStatus(id: number, status: TopUpStatus, at: Date): Promise<void> {
    this.#statements.setTopUpStatus.run({ id, status, at: at.getTime() });
  }

  async topUps(query: { since?: Date; limit?: number } = {}): Promise<TopUpRecord[]> {
    return (this.#statements.topUps.all({ since: query.since?.getTime() ?? 0, limit: query.limit ?? 1000 }) as TopUpRow[]).map(topUpFromRow);
  }

  async unfinishedTopUps(): Promise<TopUpRecord[]> {
    return (this.#statements.unfinishedTopUps.all() as TopUpRow[]).map(topUpFromRow);
  }

  async signerStates(): Promise<SignerStateRecord[]> {
    return (this.#statements.signerStates.all() as SignerStateRow[]).map(signerStateFromRow);
  }

  async reportSigners(relayerId: string, reports: readonly SignerReport[], at: Date): Promise<void> {
    this.#db.transaction(() => {
      for (const report of reports) {
        this.#statements.reportSigner.run({
          signer: report.signer.toLowerCase(),
          relayer_id: relayerId,
          backend: report.backend,
          balance_wei: report.balanceWei?.toString() ?? null,
          pending: report.pending,
          daily_spend_wei: report.dailySpendWei.toString(),
          reported_at: at.getTime(),
        });
      }
    })();
  }

  async ping(): Promise<void> {
    this.#statements.chainRun.get();
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #record(row: RelayRow): RelayRecord {
    return relayFromRow(row, (this.#statements.transactions.all(row.id) as TransactionRow[]).map(transactionFromRow));
  }
}
