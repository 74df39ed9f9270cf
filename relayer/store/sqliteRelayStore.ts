import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { getAddress, type Address, type Hex } from "viem";
import { applySqliteMigrations, canMoveRelay, type RelayReason, type RelayStatus } from "../../sdk";
import { relayMigrations } from "./relayMigrations";
import type { NewRelay, NewRelayTransaction, RelayCreation, RelayMatchQuery, RelayRecord, RelayStore, RelayTransaction, RelayUpdate } from "./relayStore";

type RelayRow = {
  id: string;
  chain_id: number;
  quote_id: string;
  onchain_quote_id: string;
  integrator_id: number;
  api_key_id: number;
  idempotency_key: string | null;
  taker: string;
  router: string;
  data: string;
  signature: string;
  permit2_nonce: string;
  deadline: number;
  estimated_gas: number;
  accepted_block: number;
  status: RelayStatus;
  reason: string | null;
  error: string | null;
  signer: string | null;
  signer_nonce: number | null;
  cancelling: number;
  created_at: number;
  updated_at: number;
};

type TransactionRow = {
  hash: string;
  relay_id: string;
  kind: "swap" | "cancel";
  signer: string;
  nonce: number;
  raw: string | null;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  sent_at: number;
  mined: number;
};

/**
 * Opens (creating if needed) the relayer's SQLite database. `synchronous = FULL`: a broadcast follows
 * every write of a signed transaction, so the write must survive a power cut, not only a crash.
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

  constructor(db: Database.Database) {
    this.#db = db;
    this.#statements = {
      byId: db.prepare("SELECT * FROM relays WHERE id = ?"),
      byQuote: db.prepare("SELECT * FROM relays WHERE chain_id = ? AND quote_id = ?"),
      byIdempotencyKey: db.prepare("SELECT * FROM relays WHERE integrator_id = ? AND idempotency_key = ?"),
      open: db.prepare("SELECT * FROM relays WHERE status IN ('accepted', 'submitted') ORDER BY created_at, id"),
      insert: db.prepare(`INSERT INTO relays (id, chain_id, quote_id, onchain_quote_id, integrator_id, api_key_id, idempotency_key,
        taker, router, data, signature, permit2_nonce, deadline, estimated_gas, accepted_block, status, created_at, updated_at)
        VALUES (@id, @chain_id, @quote_id, @onchain_quote_id, @integrator_id, @api_key_id, @idempotency_key, @taker, @router,
        @data, @signature, @permit2_nonce, @deadline, @estimated_gas, @accepted_block, 'accepted', @created_at, @created_at)`),
      transactions: db.prepare("SELECT * FROM relay_transactions WHERE relay_id = ? ORDER BY sent_at, rowid"),
      insertTransaction: db.prepare(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas,
        max_priority_fee_per_gas, sent_at, mined) VALUES (@hash, @relay_id, @kind, @signer, @nonce, @raw, @max_fee_per_gas,
        @max_priority_fee_per_gas, @sent_at, @mined) ON CONFLICT (hash) DO NOTHING`),
      markMined: db.prepare("UPDATE relay_transactions SET mined = 1 WHERE hash = ? AND relay_id = ?"),
      submitted: db.prepare(`UPDATE relays SET status = CASE WHEN status = 'accepted' THEN 'submitted' ELSE status END,
        signer = @signer, signer_nonce = @nonce, updated_at = @at WHERE id = @id`),
      update: db.prepare(`UPDATE relays SET status = COALESCE(@status, status), reason = COALESCE(@reason, reason),
        error = COALESCE(@error, error), cancelling = COALESCE(@cancelling, cancelling),
        signer = CASE WHEN @release = 1 THEN NULL ELSE signer END,
        signer_nonce = CASE WHEN @release = 1 THEN NULL ELSE signer_nonce END, updated_at = @at WHERE id = @id`),
      chainRun: db.prepare("SELECT value FROM relayer_meta WHERE key = 'chain_run'"),
      setChainRun: db.prepare("INSERT INTO relayer_meta (key, value) VALUES ('chain_run', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"),
      deleteTransactions: db.prepare("DELETE FROM relay_transactions"),
      deleteRelays: db.prepare("DELETE FROM relays"),
      highestNonce: db.prepare("SELECT MAX(nonce) AS nonce FROM relay_transactions WHERE signer = ? AND raw IS NOT NULL"),
    };
  }

  matchRelay(query: RelayMatchQuery): RelayCreation | undefined {
    // The same idempotency key answers with its relay, whatever else the retry changed, unless it
    // names another quote.
    if (query.idempotencyKey !== undefined) {
      const byKey = this.#statements.byIdempotencyKey.get(query.integratorId, query.idempotencyKey) as RelayRow | undefined;
      if (byKey !== undefined) {
        const sameQuote = byKey.chain_id === query.chainId && byKey.quote_id === query.quoteId;
        return { outcome: sameQuote ? "existing" : "idempotency_conflict", relay: this.#record(byKey) };
      }
    }
    const byQuote = this.#statements.byQuote.get(query.chainId, query.quoteId) as RelayRow | undefined;
    if (byQuote === undefined) return undefined;
    const sameSignature = byQuote.signature === query.signature.toLowerCase();
    return { outcome: sameSignature ? "existing" : "quote_conflict", relay: this.#record(byQuote) };
  }

  createRelay(relay: NewRelay): RelayCreation {
    return this.#db
      .transaction((): RelayCreation => {
        const existing = this.matchRelay(relay);
        if (existing !== undefined) return existing;
        this.#statements.insert.run({
          id: relay.id,
          chain_id: relay.chainId,
          quote_id: relay.quoteId,
          onchain_quote_id: relay.onchainQuoteId.toLowerCase(),
          integrator_id: relay.integratorId,
          api_key_id: relay.apiKeyId,
          idempotency_key: relay.idempotencyKey ?? null,
          taker: relay.taker.toLowerCase(),
          router: relay.router.toLowerCase(),
          data: relay.data.toLowerCase(),
          signature: relay.signature.toLowerCase(),
          permit2_nonce: relay.permit2Nonce.toString(),
          deadline: Number(relay.deadline),
          estimated_gas: relay.estimatedGas,
          accepted_block: Number(relay.acceptedBlock),
          created_at: relay.createdAt.getTime(),
        });
        return { outcome: "created", relay: this.#record(this.#statements.byId.get(relay.id) as RelayRow) };
      })
      .immediate();
  }

  getRelay(id: string): RelayRecord | undefined {
    const row = this.#statements.byId.get(id) as RelayRow | undefined;
    return row === undefined ? undefined : this.#record(row);
  }

  listOpenRelays(): RelayRecord[] {
    return (this.#statements.open.all() as RelayRow[]).map((row) => this.#record(row));
  }

  recordBroadcast(relayId: string, transaction: NewRelayTransaction): void {
    this.#db
      .transaction(() => {
        this.#statements.insertTransaction.run(transactionRow(relayId, { ...transaction, mined: false }));
        this.#statements.submitted.run({ id: relayId, signer: transaction.signer.toLowerCase(), nonce: transaction.nonce, at: transaction.sentAt.getTime() });
      })
      .immediate();
  }

  updateRelay(relayId: string, update: RelayUpdate): void {
    this.#db
      .transaction(() => {
        const current = this.#statements.byId.get(relayId) as RelayRow | undefined;
        if (current === undefined) throw new Error(`relay ${relayId} does not exist`);
        if (update.status !== undefined && update.status !== current.status && !canMoveRelay(current.status, update.status)) {
          throw new Error(`relay ${relayId} cannot move from ${current.status} to ${update.status}`);
        }
        const { mined } = update;
        if (mined?.foreign !== undefined) {
          this.#statements.insertTransaction.run(
            transactionRow(relayId, {
              hash: mined.hash,
              kind: "swap",
              signer: mined.foreign.from,
              nonce: mined.foreign.nonce,
              raw: undefined,
              maxFeePerGas: 0n,
              maxPriorityFeePerGas: 0n,
              sentAt: update.at,
              mined: true,
            }),
          );
        } else if (mined !== undefined) {
          this.#statements.markMined.run(mined.hash.toLowerCase(), relayId);
        }
        this.#statements.update.run({
          id: relayId,
          status: update.status ?? null,
          reason: update.reason ?? null,
          error: update.error ?? null,
          cancelling: update.cancelling === undefined ? null : Number(update.cancelling),
          release: update.releaseSigner === true ? 1 : 0,
          at: update.at.getTime(),
        });
      })
      .immediate();
  }

  chainRun(): Hex | undefined {
    const row = this.#statements.chainRun.get() as { value: string } | undefined;
    return row?.value as Hex | undefined;
  }

  setChainRun(deployBlockHash: Hex, options: { forgetRelays: boolean }): number {
    return this.#db
      .transaction(() => {
        let forgotten = 0;
        if (options.forgetRelays) {
          this.#statements.deleteTransactions.run();
          forgotten = this.#statements.deleteRelays.run().changes;
        }
        this.#statements.setChainRun.run(deployBlockHash.toLowerCase());
        return forgotten;
      })
      .immediate();
  }

  highestNonce(signer: Address): number | undefined {
    const row = this.#statements.highestNonce.get(signer.toLowerCase()) as { nonce: number | null };
    return row.nonce ?? undefined;
  }

  close(): void {
    this.#db.close();
  }

  #record(row: RelayRow): RelayRecord {
    const transactions = (this.#statements.transactions.all(row.id) as TransactionRow[]).map(transactionFromRow);
    return {
      id: row.id,
      chainId: row.chain_id,
      quoteId: row.quote_id,
      onchainQuoteId: row.onchain_quote_id as Hex,
      integratorId: row.integrator_id,
      apiKeyId: row.api_key_id,
      idempotencyKey: row.idempotency_key ?? undefined,
      taker: getAddress(row.taker),
      router: getAddress(row.router),
      data: row.data as Hex,
      signature: row.signature as Hex,
      permit2Nonce: BigInt(row.permit2_nonce),
      deadline: BigInt(row.deadline),
      estimatedGas: row.estimated_gas,
      acceptedBlock: BigInt(row.accepted_block),
      createdAt: new Date(row.created_at),
      status: row.status,
      reason: (row.reason ?? undefined) as RelayReason | undefined,
      error: row.error ?? undefined,
      signer: row.signer === null ? undefined : getAddress(row.signer),
      signerNonce: row.signer_nonce ?? undefined,
      cancelling: row.cancelling === 1,
      transactions,
      updatedAt: new Date(row.updated_at),
    };
  }
}

function transactionRow(relayId: string, transaction: RelayTransaction) {
  return {
    hash: transaction.hash.toLowerCase(),
    relay_id: relayId,
    kind: transaction.kind,
    signer: transaction.signer.toLowerCase(),
    nonce: transaction.nonce,
    raw: transaction.raw ?? null,
    max_fee_per_gas: transaction.maxFeePerGas.toString(),
    max_priority_fee_per_gas: transaction.maxPriorityFeePerGas.toString(),
    sent_at: transaction.sentAt.getTime(),
    mined: Number(transaction.mined),
  };
}

function transactionFromRow(row: TransactionRow): RelayTransaction {
  return {
    hash: row.hash as Hex,
    kind: row.kind,
    signer: getAddress(row.signer),
    nonce: row.nonce,
    raw: (row.raw ?? undefined) as Hex | undefined,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    sentAt: new Date(row.sent_at),
    mined: row.mined === 1,
  };
}
