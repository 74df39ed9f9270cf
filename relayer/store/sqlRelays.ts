import { sql, type Updateable } from "kysely";
import type { Address, Hex } from "viem";
import { canMoveRelay, type RelayStatus } from "../../sdk";
import { step, template, type Query, type SqlDatabase, type Template, type TransactionBody } from "../../sdk/storage/sqlDatabase";
import { storableMessage } from "../../sdk/wire/controlCharacters";
import {
  batchMemberRefusal,
  CANCELLED_UNSENT,
  cancellationDecision,
  endedRefusal,
  foreignFill,
  leaseRefusal,
  matchOutcome,
  relayFromRow,
  relayParams,
  transactionFromRow,
  transactionParams,
  type RelayRow,
  type TransactionRow,
} from "./relayRows";
import type { RelaySchema, RelaysTable } from "./relaySchema";
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
} from "./relayStore";
import type { SqlPushedStatus } from "./sqlPushedStatus";

/** The open statuses as literals: SQLite uses its partial index of open relays only for the predicate it was built with. */
const OPEN = [sql.lit<RelayStatus>("accepted"), sql.lit<RelayStatus>("submitted")];
/** Moves a relay to `submitted` on its first broadcast; a later one (a replacement, a cancel) leaves its status. */
const SUBMITTED = sql<RelayStatus>`CASE WHEN status = 'accepted' THEN 'submitted' ELSE status END`;

type WrittenHere =
  | "matchRelay" | "createRelay" | "getRelay" | "listOpenRelays" | "claimOpenRelays" | "renewLeases" | "recordBroadcast" | "requestCancellation"
  | "recordBatchBroadcast" | "batchMembers" | "latestAtNonce" | "updateRelay" | "chainRun" | "setChainRun" | "highestNonce";

/**
 * The relays, every transaction broadcast for them, and the chain run they belong to, written once for
 * SQLite and PostgreSQL. On PostgreSQL the relay table is the queue several relayers share: a relay is
 * claimed with `FOR UPDATE SKIP LOCKED` by exactly one of them, held by a lease it renews, and taken
 * over once the lease runs out; every write that decides on a relay's state locks its row first. On
 * SQLite one immediate transaction holds the file, which orders the same writes. Each status change
 * writes its event (pushed status) in its own transaction.
 */
export class SqlRelays implements Pick<RelayStore, WrittenHere> {
  readonly #db: SqlDatabase<RelaySchema>;
  readonly #pushed: SqlPushedStatus;
  readonly #q: RelayStatements;
  /** `updateRelay`'s writes, a template for each set of columns it changes (a few dozen at most). */
  readonly #writes = new Map<string, Template<Record<string, unknown>, never>>();

  constructor(db: SqlDatabase<RelaySchema>, pushed: SqlPushedStatus) {
    this.#db = db;
    this.#pushed = pushed;
    this.#q = relayStatements(db);
  }

  async matchRelay(query: RelayMatchQuery): Promise<RelayCreation | undefined> {
    return this.#db.read(() => this.#match(query));
  }

  /** One transaction; a conflicting insert (PostgreSQL: a concurrent hand-off of the same quote) is skipped, and the loser then finds the winner's relay. */
  async createRelay(relay: NewRelay, claim?: Lease): Promise<RelayCreation> {
    const created = await this.#db.transaction(() => this.#create(relay, claim));
    if (created !== undefined) return created;
    const winner = await this.matchRelay(relay);
    if (winner === undefined) throw new Error(`relay ${relay.id} conflicted with a relay that cannot be found`);
    return winner;
  }

  async getRelay(id: string): Promise<RelayRecord | undefined> {
    return this.#db.read(() => this.#current(id));
  }

  async listOpenRelays(): Promise<RelayRecord[]> {
    const open = this.#db.build.selectFrom("relays").selectAll().where("status", "in", OPEN).orderBy("created_at").orderBy("id");
    return this.#db.read(() => this.#records(open));
  }

  async claimOpenRelays(lease: Lease, now: Date, limit: number, options: { own: boolean }): Promise<ClaimedRelay[]> {
    const { build } = this.#db;
    const candidates = this.#db.lockRows(
      build
        .selectFrom("relays")
        .select(["id", "claimed_by"])
        .where("status", "in", OPEN)
        .where((eb) => eb.or([eb("claimed_by", "is", null), eb("lease_until", "<", now.getTime()), ...(options.own ? [eb("claimed_by", "=", lease.owner)] : [])]))
        .orderBy("created_at")
        .orderBy("id")
        .limit(limit),
      { skipLocked: true },
    );
    // The claim commits before the relays are read, so their row locks are held for two statements only.
    const claimed = await this.#db.transaction(function* () {
      const rows = yield* step.rows(candidates);
      if (rows.length > 0) yield* step.changes(build.updateTable("relays").set({ claimed_by: lease.owner, lease_until: lease.until.getTime() }).where("id", "in", rows.map((row) => row.id)));
      return rows;
    });
    if (claimed.length === 0) return [];
    const self = this;
    return this.#db.read(function* () {
      const relays: ClaimedRelay[] = [];
      for (const row of claimed) relays.push({ relay: (yield* self.#current(row.id))!, previousOwner: row.claimed_by ?? undefined });
      return relays;
    });
  }

  async renewLeases(lease: Lease): Promise<number> {
    return this.#db.changes(this.#db.build.updateTable("relays").set({ lease_until: lease.until.getTime() }).where("claimed_by", "=", lease.owner).where("status", "in", OPEN));
  }

  async recordBroadcast(relayId: string, transaction: NewRelayTransaction, fence: BroadcastFence): Promise<BroadcastRecording> {
    const self = this;
    return this.#db.transaction(function* (): TransactionBody<BroadcastRecording> {
      // The row lock orders this against another relayer's claim of the same relay.
      const row = yield* step.first(self.#q.lockedRelay({ id: relayId }));
      if (row === undefined) throw new Error(`relay ${relayId} does not exist`);
      const refusal = leaseRefusal(row, fence) ?? endedRefusal(row, transaction.kind);
      if (refusal !== undefined) return refusal;
      yield* self.#insertTransaction(relayId, { ...transaction, mined: false });
      yield* self.#submitted([relayId], transaction);
      if (row.status === "accepted") yield* self.#pushed.recordEvent((yield* self.#current(relayId))!, transaction.sentAt);
      return "recorded";
    });
  }

  async requestCancellation(relayId: string, at: Date): Promise<CancellationRequest | undefined> {
    const { build } = this.#db;
    // The row lock orders this against recordBroadcast and a batch's claim of the same relay.
    const locked = this.#db.lockRows(build.selectFrom("relays").selectAll().where("id", "=", relayId));
    const broadcast = build.selectFrom("relay_transactions").select("hash").where("relay_id", "=", relayId).limit(1);
    const cancel = build
      .updateTable("relays")
      .set({ status: "cancelled", cancel_requested_at: at.getTime(), error: CANCELLED_UNSENT, updated_at: at.getTime() })
      .where("id", "=", relayId)
      .where("status", "in", OPEN)
      .where("signer", "is", null)
      .where((eb) => eb.not(eb.exists(eb.selectFrom("relay_transactions").select("hash").where("relay_id", "=", relayId))));
    const mark = build
      .updateTable("relays")
      .set((eb) => ({ cancel_requested_at: eb.fn.coalesce("cancel_requested_at", eb.val(at.getTime())), cancelling: 1, updated_at: at.getTime() }))
      .where("id", "=", relayId)
      .where("status", "in", OPEN);
    const self = this;
    return this.#db.transaction(function* (): TransactionBody<CancellationRequest | undefined> {
      const row = yield* step.first(locked);
      if (row === undefined) return undefined;
      const decision = cancellationDecision(row, (yield* step.first(broadcast)) !== undefined);
      if (decision === "cancelled") yield* step.changes(cancel);
      if (decision === "cancelling") yield* step.changes(mark);
      const relay = (yield* self.#current(relayId))!;
      if (decision === "cancelled") yield* self.#pushed.recordEvent(relay, at);
      return { decision, relay };
    });
  }

  async recordBatchBroadcast(batch: BatchRecordingRequest, fence: BroadcastFence): Promise<BatchRecording> {
    // Nothing to record (and `IN ()` is no SQL on PostgreSQL).
    if (batch.members.length === 0) return { outcome: "recorded" };
    const ids = batch.members.map((member) => member.relayId);
    // Row locks, in one order for every relayer, against a claim or a cancellation of any member.
    const locked = this.#db.lockRows(this.#db.build.selectFrom("relays").selectAll().where("id", "in", ids).orderBy("id"));
    const self = this;
    return this.#db.transaction(function* (): TransactionBody<BatchRecording> {
      const byId = new Map((yield* step.rows(locked)).map((row) => [row.id, row]));
      const refused: { relayId: string; refusal: BatchRefusal }[] = [];
      for (const id of ids) {
        const row = byId.get(id);
        const refusal = row === undefined ? "changed" : batchMemberRefusal(row, batch.expect, fence, batch.transaction.kind);
        if (refusal !== undefined) refused.push({ relayId: id, refusal });
      }
      if (refused.length > 0) return { outcome: "refused", refused };
      const { transaction } = batch;
      for (const member of batch.members) {
        yield* self.#insertTransaction(member.relayId, { ...transaction, mined: false, batch: { position: member.position, size: batch.members.length } });
      }
      yield* self.#submitted(ids, transaction);
      for (const id of ids) if (byId.get(id)!.status === "accepted") yield* self.#pushed.recordEvent((yield* self.#current(id))!, transaction.sentAt);
      return { outcome: "recorded" };
    });
  }

  async batchMembers(hash: Hex): Promise<BatchMember[]> {
    const members = this.#db.build
      .selectFrom("relay_transactions")
      .select(["relay_id", "batch_position"])
      .where("hash", "=", hash.toLowerCase())
      .where("batch_position", "is not", null)
      .orderBy("batch_position");
    return (await this.#db.rows(members)).map((row) => ({ relayId: row.relay_id, position: row.batch_position! }));
  }

  async latestAtNonce(signer: Address, nonce: number): Promise<Hex | undefined> {
    const latest = this.#db.build
      .selectFrom("relay_transactions")
      .select("hash")
      .where("signer", "=", signer.toLowerCase())
      .where("nonce", "=", nonce)
      .where("raw", "is not", null)
      .orderBy("sent_at", "desc")
      .orderBy(this.#db.fn.insertionOrder("seq"), "desc")
      .limit(1);
    return (await this.#db.first(latest))?.hash as Hex | undefined;
  }

  async updateRelay(relayId: string, update: RelayUpdate): Promise<void> {
    const { mined } = update;
    const change: Updateable<RelaysTable> = { updated_at: update.at.getTime() };
    if (update.status !== undefined) change.status = update.status;
    if (update.reason !== undefined) change.reason = update.reason;
    if (update.error !== undefined) change.error = storableMessage(update.error);
    if (update.cancelling !== undefined) change.cancelling = Number(update.cancelling);
    if (update.releaseSigner === true) Object.assign(change, { signer: null, signer_nonce: null });
    const write = this.#write(change, relayId);
    const self = this;
    await this.#db.transaction(function* () {
      const current = yield* step.first(self.#q.lockedRelay({ id: relayId }));
      if (current === undefined) throw new Error(`relay ${relayId} does not exist`);
      if (update.status !== undefined && update.status !== current.status && !canMoveRelay(current.status, update.status)) {
        throw new Error(`relay ${relayId} cannot move from ${current.status} to ${update.status}`);
      }
      if (mined?.foreign !== undefined) yield* self.#insertTransaction(relayId, foreignFill(mined.hash, mined.foreign, update.at));
      // A fill by a transaction already on record (another relayer's, taken over) is marked mined too.
      if (mined !== undefined) yield* step.changes(self.#q.markMined({ hash: mined.hash.toLowerCase(), relayId }));
      yield* step.changes(write);
      if (update.status !== undefined && update.status !== current.status) yield* self.#pushed.recordEvent((yield* self.#current(relayId))!, update.at);
    });
  }

  async chainRun(): Promise<Hex | undefined> {
    return (await this.#db.first(this.#db.build.selectFrom("relayer_meta").select("value").where("key", "=", "chain_run")))?.value as Hex | undefined;
  }

  async setChainRun(deployBlockHash: Hex, options: { forgetRelays: boolean }): Promise<number> {
    const { build } = this.#db;
    const record = build
      .insertInto("relayer_meta")
      .values({ key: "chain_run", value: deployBlockHash.toLowerCase() })
      .onConflict((conflict) => conflict.column("key").doUpdateSet((eb) => ({ value: eb.ref("excluded.value") })));
    const pushed = this.#pushed;
    return this.#db.transaction(function* () {
      let forgotten = 0;
      if (options.forgetRelays) {
        yield* pushed.forget();
        yield* step.changes(build.deleteFrom("relay_transactions"));
        forgotten = yield* step.changes(build.deleteFrom("relays"));
      }
      yield* step.changes(record);
      return forgotten;
    });
  }

  async highestNonce(signer: Address): Promise<number | undefined> {
    const highest = this.#db.build
      .selectFrom("relay_transactions")
      .select((eb) => eb.fn.max("nonce").as("nonce"))
      .where("signer", "=", signer.toLowerCase())
      .where("raw", "is not", null);
    const nonce = (await this.#db.first(highest))?.nonce;
    return nonce === null || nonce === undefined ? undefined : Number(nonce);
  }

  /** The update of `change`'s columns of one relay. */
  #write(change: Updateable<RelaysTable>, relayId: string) {
    const names = Object.keys(change) as (keyof RelaysTable & string)[];
    const key = names.join(",");
    let write = this.#writes.get(key);
    if (write === undefined) {
      const { build } = this.#db;
      write = template<Record<string, unknown>, never>((p) => build.updateTable("relays").set(columns<Updateable<RelaysTable>>(p, names)).where("id", "=", p("relayId") as string));
      this.#writes.set(key, write);
    }
    return write({ ...change, relayId });
  }

  *#create(relay: NewRelay, claim: Lease | undefined): TransactionBody<RelayCreation | undefined> {
    const existing = yield* this.#match(relay);
    if (existing !== undefined) return existing;
    const params = relayParams(relay, claim);
    const row = yield* step.first(this.#q.insertRelay({ ...params, status: "accepted", updated_at: params.created_at }));
    if (row === undefined) return undefined;
    const created = yield* this.#record(row);
    yield* this.#pushed.recordEvent(created, relay.createdAt);
    return { outcome: "created", relay: created };
  }

  *#match(query: RelayMatchQuery): TransactionBody<RelayCreation | undefined> {
    const byKey = query.idempotencyKey === undefined ? undefined : yield* step.first(this.#q.byIdempotencyKey({ integratorId: query.integratorId, key: query.idempotencyKey }));
    const byQuote = byKey !== undefined ? undefined : yield* step.first(this.#q.byQuote({ chainId: query.chainId, quoteId: query.quoteId }));
    const match = matchOutcome(query, byKey, byQuote);
    return match && { outcome: match.outcome, relay: yield* this.#record(match.row) };
  }

  /** The relay as this transaction (or read) sees it now. */
  *#current(id: string): TransactionBody<RelayRecord | undefined> {
    const row = yield* step.first(this.#q.relay({ id }));
    return row === undefined ? undefined : yield* this.#record(row);
  }

  *#records(select: Query<RelayRow>): TransactionBody<RelayRecord[]> {
    const records: RelayRecord[] = [];
    for (const row of yield* step.rows(select)) records.push(yield* this.#record(row));
    return records;
  }

  /** A relay with its transactions, in the order they were recorded. */
  *#record(row: RelayRow): TransactionBody<RelayRecord> {
    return relayFromRow(row, (yield* step.rows(this.#q.transactions({ relayId: row.id }))).map(transactionFromRow));
  }

  /** Written once per (hash, relay): recording the same transaction again is a no-op. */
  *#insertTransaction(relayId: string, transaction: RelayTransaction): TransactionBody<void> {
    yield* step.changes(this.#q.insertTransaction(transactionParams(relayId, transaction)));
  }

  *#submitted(ids: readonly string[], transaction: NewRelayTransaction): TransactionBody<void> {
    const change = { signer: transaction.signer.toLowerCase(), nonce: transaction.nonce, at: transaction.sentAt.getTime() };
    if (ids.length === 1) {
      yield* step.changes(this.#q.submitted({ id: ids[0]!, ...change }));
    } else {
      yield* step.changes(this.#db.build.updateTable("relays").set({ status: SUBMITTED, signer: change.signer, signer_nonce: change.nonce, updated_at: change.at }).where("id", "in", ids));
    }
  }
}

type RelayValues = ReturnType<typeof relayParams> & { status: RelayStatus; updated_at: number };
type TransactionValues = ReturnType<typeof transactionParams>;
const RELAY_COLUMNS = [
  "id", "chain_id", "quote_id", "onchain_quote_id", "integrator_id", "api_key_id", "idempotency_key", "taker", "router", "data", "signature",
  "permit2_nonce", "deadline", "estimated_gas", "fee_wei", "accepted_block", "claimed_by", "lease_until", "created_at", "status", "updated_at",
] as const satisfies readonly (keyof RelayValues)[];
const TRANSACTION_COLUMNS = [
  "hash", "relay_id", "kind", "signer", "nonce", "raw", "max_fee_per_gas", "max_priority_fee_per_gas", "sent_at", "mined", "batch_position", "batch_size",
] as const satisfies readonly (keyof TransactionValues)[];

/** Every column named, each a parameter of the template. */
function columns<Values extends Record<string, unknown>>(param: (name: keyof Values & string) => unknown, names: readonly (keyof Values & string)[]): Values {
  return Object.fromEntries(names.map((name) => [name, param(name)])) as Values;
}

type RelayStatements = ReturnType<typeof relayStatements>;

/** The statements of a relay's hot path (hand-off, broadcast, receipt, status reads), each built and compiled once for the engine. */
function relayStatements(db: SqlDatabase<RelaySchema>) {
  const { build } = db;
  const relays = () => build.selectFrom("relays").selectAll();
  return {
    relay: template<{ id: string }, RelayRow>((p) => relays().where("id", "=", p("id"))),
    /** Locked until the transaction ends (PostgreSQL): what a write that decides on the relay's state reads first. */
    lockedRelay: template<{ id: string }, RelayRow>((p) => db.lockRows(relays().where("id", "=", p("id")))),
    byIdempotencyKey: template<{ integratorId: number; key: string }, RelayRow>((p) => relays().where("integrator_id", "=", p("integratorId")).where("idempotency_key", "=", p("key"))),
    byQuote: template<{ chainId: number; quoteId: string }, RelayRow>((p) => relays().where("chain_id", "=", p("chainId")).where("quote_id", "=", p("quoteId"))),
    /** A conflicting insert (a concurrent hand-off of the same quote on PostgreSQL) is skipped and returns no row. */
    insertRelay: template<RelayValues, RelayRow>((p) => build.insertInto("relays").values(columns<RelayValues>(p, RELAY_COLUMNS)).onConflict((conflict) => conflict.doNothing()).returningAll()),
    /** In the order they were recorded. */
    transactions: template<{ relayId: string }, TransactionRow>((p) =>
      build.selectFrom("relay_transactions").selectAll().where("relay_id", "=", p("relayId")).orderBy("sent_at").orderBy(db.fn.insertionOrder("seq")),
    ),
    /** Written once per (hash, relay): recording the same transaction again is a no-op. */
    insertTransaction: template<TransactionValues, never>((p) =>
      build.insertInto("relay_transactions").values(columns<TransactionValues>(p, TRANSACTION_COLUMNS)).onConflict((conflict) => conflict.columns(["hash", "relay_id"]).doNothing()),
    ),
    markMined: template<{ hash: string; relayId: string }, never>((p) => build.updateTable("relay_transactions").set({ mined: 1 }).where("hash", "=", p("hash")).where("relay_id", "=", p("relayId"))),
    submitted: template<{ id: string; signer: string; nonce: number; at: number }, never>((p) =>
      build.updateTable("relays").set({ status: SUBMITTED, signer: p("signer"), signer_nonce: p("nonce"), updated_at: p("at") }).where("id", "=", p("id")),
    ),
  } satisfies Record<string, Template<never, unknown>>;
}
