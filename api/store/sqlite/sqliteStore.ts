import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { getAddress, type Address, type Hex } from "viem";
import { applySqliteMigrations, onboardingActions, type ManifestPool, type OnboardingAction, type SwapOrder } from "../../../sdk";
import { apiKeyScopes, type ApiKeyScope } from "../../apiKeyScopes";
import type {
  ApiKeyCredential,
  ApiKeyRecord,
  ApproveIntegratorResult,
  ChallengeRecord,
  ChallengeUse,
  ChallengeUseOutcome,
  CreateApiKeyResult,
  CreateIntegratorResult,
  IntegratorRecord,
  IntegratorStatus,
  NewApiKey,
  NewChallenge,
  NewIntegrator,
  NewTokenOverride,
  NonceRejected,
  QuoteRecord,
  GaslessTerms,
  RevokeApiKeyResult,
  Store,
  TokenDemandObservation,
  TokenDemandQuery,
  TokenDemandSummary,
  TokenOverride,
  TokenStatus,
  TokenStatusSource,
} from "../store";
import { migrations } from "./migrations";

/** Spent challenges are kept this long past their expiry, so a late replay still reads "used"/"expired", not "unknown". */
const CHALLENGE_RETENTION_MS = 24 * 60 * 60 * 1000;

type ChallengeRow = {
  nonce: string;
  wallet: string;
  action: string;
  chain_id: number;
  payload_hash: string | null;
  message: string;
  issued_at: number;
  expires_at: number;
  used_at: number | null;
};

type IntegratorRow = {
  id: number;
  slug: string;
  owner_wallet: string;
  display_name: string;
  contact_email: string | null;
  telegram_handle: string | null;
  app_url: string | null;
  fee_recipient: string;
  max_fee_bps: number;
  chain_id: number | null;
  status: string;
  created_at: number;
  approved_at: number | null;
  quote_rate_limit_per_minute: number | null;
  swap_rate_limit_per_minute: number | null;
};

type ApiKeyRow = {
  id: number;
  integrator_id: number;
  label: string;
  prefix: string;
  last_four: string;
  scopes: string;
  quote_rate_limit_per_minute: number;
  swap_rate_limit_per_minute: number;
  created_at: number;
  revoked_at: number | null;
  max_fee_bps: number | null;
};

type TokenDemandSummaryRow = { chain_id: number; token: string; integrators: number; first_seen: number; last_seen: number };

type TokenOverrideRow = {
  chain_id: number;
  token: string;
  status: string;
  source: string;
  symbol: string | null;
  decimals: number | null;
  pool_address: string | null;
  pool_token0: string | null;
  pool_token1: string | null;
  pool_fee_bps: number | null;
  reason: string | null;
  chain_run: string | null;
  created_at: number;
  updated_at: number;
};

const INTEGRATOR_COLUMNS = `id, slug, owner_wallet, display_name, contact_email, telegram_handle, app_url, fee_recipient,
  max_fee_bps, chain_id, status, created_at, approved_at, quote_rate_limit_per_minute, swap_rate_limit_per_minute`;
const API_KEY_COLUMNS = `id, integrator_id, label, prefix, last_four, scopes, quote_rate_limit_per_minute,
  swap_rate_limit_per_minute, created_at, revoked_at, max_fee_bps`;

/**
 * Opens (creating if needed) the SQLite database at `path`, in WAL mode so the operator CLI and the
 * API can use one file at once, and brings its schema up to date.
 */
/** Told when buffered quote records could not be written (they are kept and retried, up to a bound). */
export type WriteErrorListener = (error: unknown, state: { pending: number; dropped: number }) => void;

export type SqliteStoreOptions = { onWriteError?: WriteErrorListener };

export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  return new SqliteStore(openSqliteDatabase(path), options.onWriteError ?? (() => undefined));
}

/** One connection to the store's database, migrated; the store and the operator's writes each open one. */
export function openSqliteDatabase(path: string): Database.Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    applySqliteMigrations(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Every statement the store runs, prepared once per connection. */
function prepareStatements(db: Database.Database) {
  return {
    insertChallenge: db.prepare(`INSERT INTO challenges
      (nonce, wallet, action, chain_id, payload_hash, message, issued_at, expires_at)
      VALUES (@nonce, @wallet, @action, @chain_id, @payload_hash, @message, @issued_at, @expires_at)`),
    pruneChallenges: db.prepare("DELETE FROM challenges WHERE expires_at < ?"),
    findChallenge: db.prepare("SELECT * FROM challenges WHERE nonce = ?"),
    // The single conditional write that makes a nonce single-use.
    spendChallenge: db.prepare("UPDATE challenges SET used_at = @at WHERE nonce = @nonce AND used_at IS NULL AND expires_at > @at"),
    insertIntegrator: db.prepare(`INSERT INTO integrators
      (slug, owner_wallet, display_name, contact_email, telegram_handle, app_url, fee_recipient, max_fee_bps,
       chain_id, status, created_at, approved_at)
      VALUES (@slug, @owner_wallet, @display_name, @contact_email, @telegram_handle, @app_url, @fee_recipient,
       @max_fee_bps, @chain_id, @status, @created_at, @approved_at)`),
    findIntegrator: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE id = ?`),
    findIntegratorBySlug: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE slug = ?`),
    listIntegrators: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators ORDER BY id`),
    listIntegratorsByOwner: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE owner_wallet = ? ORDER BY id`),
    approveIntegrator: db.prepare("UPDATE integrators SET status = 'active', approved_at = ? WHERE slug = ? AND status = 'pending'"),
    insertApiKey: db.prepare(`INSERT INTO api_keys
      (integrator_id, label, prefix, last_four, secret_hash, scopes, quote_rate_limit_per_minute,
       swap_rate_limit_per_minute, created_at)
      VALUES (@integrator_id, @label, @prefix, @last_four, @secret_hash, @scopes, @quote_rate_limit_per_minute,
       @swap_rate_limit_per_minute, @created_at)`),
    findApiKey: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`),
    listApiKeys: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys
      WHERE integrator_id IN (SELECT value FROM json_each(?)) ORDER BY id`),
    revokeApiKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    findCredentialsByPrefix: db.prepare(`SELECT secret_hash, ${API_KEY_COLUMNS} FROM api_keys WHERE prefix = ?`),
    upsertTokenDemand: db.prepare(`INSERT INTO token_demand (chain_id, token, integrator_id, first_seen, last_seen)
      VALUES (@chain_id, @token, @integrator_id, @first_seen, @last_seen)
      ON CONFLICT (chain_id, token, integrator_id) DO UPDATE SET
        first_seen = MIN(first_seen, excluded.first_seen), last_seen = MAX(last_seen, excluded.last_seen)`),
    pruneTokenDemand: db.prepare("DELETE FROM token_demand WHERE last_seen < ?"),
    listTokenDemand: db.prepare(`SELECT d.chain_id, d.token, COUNT(*) AS integrators, MIN(d.first_seen) AS first_seen,
        MAX(d.last_seen) AS last_seen
      FROM token_demand d
      WHERE d.last_seen >= @since AND (@chain_id IS NULL OR d.chain_id = @chain_id)
        AND (@without_override = 0 OR NOT EXISTS
          (SELECT 1 FROM token_overrides o WHERE o.chain_id = d.chain_id AND o.token = d.token
             AND (@chain_run IS NULL OR o.chain_run = @chain_run)))
      GROUP BY d.chain_id, d.token
      HAVING COUNT(*) >= @min_integrators
      ORDER BY integrators DESC, last_seen DESC, d.chain_id, d.token
      LIMIT @limit`),
    listTokenOverrides: db.prepare(`SELECT * FROM token_overrides
      WHERE (@chain_id IS NULL OR chain_id = @chain_id) ORDER BY created_at, chain_id, token`),
    // Keeps created_at of an earlier decision; `if_absent` inserts use OR IGNORE instead.
    replaceTokenOverride: db.prepare(`INSERT INTO token_overrides
      (chain_id, token, status, source, symbol, decimals, pool_address, pool_token0, pool_token1, pool_fee_bps, reason,
       chain_run, created_at, updated_at)
      VALUES (@chain_id, @token, @status, @source, @symbol, @decimals, @pool_address, @pool_token0, @pool_token1,
       @pool_fee_bps, @reason, @chain_run, @at, @at)
      ON CONFLICT (chain_id, token) DO UPDATE SET status = excluded.status, source = excluded.source,
        symbol = excluded.symbol, decimals = excluded.decimals, pool_address = excluded.pool_address,
        pool_token0 = excluded.pool_token0, pool_token1 = excluded.pool_token1, pool_fee_bps = excluded.pool_fee_bps,
        reason = excluded.reason, chain_run = excluded.chain_run, updated_at = excluded.updated_at`),
    // "Absent" includes a decision of another chain run, which this one replaces whole.
    insertTokenOverrideIfAbsent: db.prepare(`INSERT INTO token_overrides
      (chain_id, token, status, source, symbol, decimals, pool_address, pool_token0, pool_token1, pool_fee_bps, reason,
       chain_run, created_at, updated_at)
      VALUES (@chain_id, @token, @status, @source, @symbol, @decimals, @pool_address, @pool_token0, @pool_token1,
       @pool_fee_bps, @reason, @chain_run, @at, @at)
      ON CONFLICT (chain_id, token) DO UPDATE SET status = excluded.status, source = excluded.source,
        symbol = excluded.symbol, decimals = excluded.decimals, pool_address = excluded.pool_address,
        pool_token0 = excluded.pool_token0, pool_token1 = excluded.pool_token1, pool_fee_bps = excluded.pool_fee_bps,
        reason = excluded.reason, chain_run = excluded.chain_run, created_at = excluded.created_at,
        updated_at = excluded.updated_at
      WHERE token_overrides.chain_run IS NOT excluded.chain_run`),
    removeTokenOverride: db.prepare("DELETE FROM token_overrides WHERE chain_id = ? AND token = ?"),
    insertQuote: db.prepare(`INSERT INTO quotes (quote_id, chain_id, onchain_id, api_key_id, integrator_id, taker, recipient,
       sell_token, buy_token, sell_amount, buy_amount, min_buy_amount, fee_amount, settlement, router, block_number,
       expires_at, created_at, gasless)
      VALUES (@quote_id, @chain_id, @onchain_id, @api_key_id, @integrator_id, @taker, @recipient, @sell_token, @buy_token,
       @sell_amount, @buy_amount, @min_buy_amount, @fee_amount, @settlement, @router, @block_number, @expires_at, @created_at,
       @gasless)`),
    findQuoteByOnchainId: db.prepare("SELECT * FROM quotes WHERE chain_id = ? AND onchain_id = ?"),
    findQuote: db.prepare("SELECT * FROM quotes WHERE quote_id = ?"),
  };
}

class SqliteStore implements Store {
  readonly #db: Database.Database;
  readonly #statements: ReturnType<typeof prepareStatements>;
  readonly #pendingQuotes: QuoteRecord[] = [];
  #quoteTimer: NodeJS.Timeout | undefined;
  readonly #onWriteError: WriteErrorListener;

  constructor(db: Database.Database, onWriteError: WriteErrorListener) {
    this.#db = db;
    this.#statements = prepareStatements(db);
    this.#onWriteError = onWriteError;
  }

  async saveChallenge(challenge: NewChallenge): Promise<void> {
    this.#db
      .transaction(() => {
        this.#statements.pruneChallenges.run(challenge.issuedAt.getTime() - CHALLENGE_RETENTION_MS);
        this.#statements.insertChallenge.run({
          nonce: challenge.nonce,
          wallet: challenge.wallet.toLowerCase(),
          action: challenge.action,
          chain_id: challenge.chainId,
          payload_hash: challenge.payloadHash ?? null,
          message: challenge.message,
          issued_at: challenge.issuedAt.getTime(),
          expires_at: challenge.expiresAt.getTime(),
        });
      })
      .immediate();
  }

  async findChallenge(nonce: string): Promise<ChallengeRecord | undefined> {
    const row = this.#statements.findChallenge.get(nonce) as ChallengeRow | undefined;
    return row && challengeFromRow(row);
  }

  async consumeChallenge(use: ChallengeUse): Promise<ChallengeUseOutcome> {
    return this.#spend(use);
  }

  async createIntegrator(integrator: NewIntegrator, use: ChallengeUse): Promise<CreateIntegratorResult> {
    return this.#spendAndWrite(use, (): Written<CreateIntegratorResult> => {
      if (this.#statements.findIntegratorBySlug.get(integrator.slug)) return { commit: false, result: { outcome: "slug_taken" } };
      const { lastInsertRowid } = this.#statements.insertIntegrator.run({
        slug: integrator.slug,
        owner_wallet: integrator.ownerWallet.toLowerCase(),
        display_name: integrator.displayName,
        contact_email: integrator.contactEmail ?? null,
        telegram_handle: integrator.telegramHandle ?? null,
        app_url: integrator.appUrl ?? null,
        fee_recipient: integrator.feeRecipient.toLowerCase(),
        max_fee_bps: integrator.maxFeeBps,
        chain_id: integrator.chainId ?? null,
        status: integrator.status,
        created_at: integrator.createdAt.getTime(),
        approved_at: integrator.status === "active" ? integrator.createdAt.getTime() : null,
      });
      return { commit: true, result: { outcome: "created", integrator: this.#integrator(Number(lastInsertRowid)) } };
    });
  }

  async findIntegrator(id: number): Promise<IntegratorRecord | undefined> {
    const row = this.#statements.findIntegrator.get(id) as IntegratorRow | undefined;
    return row && integratorFromRow(row);
  }

  async listIntegrators(filter: { ownerWallet?: Address } = {}): Promise<IntegratorRecord[]> {
    const rows = (
      filter.ownerWallet === undefined
        ? this.#statements.listIntegrators.all()
        : this.#statements.listIntegratorsByOwner.all(filter.ownerWallet.toLowerCase())
    ) as IntegratorRow[];
    return rows.map(integratorFromRow);
  }

  async approveIntegrator(slug: string, approvedAt: Date): Promise<ApproveIntegratorResult> {
    return this.#db
      .transaction((): ApproveIntegratorResult => {
        const { changes } = this.#statements.approveIntegrator.run(approvedAt.getTime(), slug);
        const row = this.#statements.findIntegratorBySlug.get(slug) as IntegratorRow | undefined;
        if (row === undefined) return { outcome: "not_found" };
        return { outcome: changes === 1 ? "approved" : "already_active", integrator: integratorFromRow(row) };
      })
      .immediate();
  }

  async createApiKey(key: NewApiKey, use: ChallengeUse): Promise<CreateApiKeyResult> {
    return this.#spendAndWrite(use, (): Written<CreateApiKeyResult> => {
      const integrator = this.#statements.findIntegrator.get(key.integratorId) as IntegratorRow | undefined;
      if (integrator === undefined) return { commit: false, result: { outcome: "integrator_not_found" } };
      if (integrator.status !== "active") return { commit: false, result: { outcome: "integrator_not_active" } };
      const { lastInsertRowid } = this.#statements.insertApiKey.run({
        integrator_id: key.integratorId,
        label: key.label,
        prefix: key.prefix,
        last_four: key.lastFour,
        secret_hash: key.secretHash,
        scopes: JSON.stringify(key.scopes),
        quote_rate_limit_per_minute: key.quoteRateLimitPerMinute,
        swap_rate_limit_per_minute: key.swapRateLimitPerMinute,
        created_at: key.createdAt.getTime(),
      });
      return { commit: true, result: { outcome: "created", key: this.#apiKey(Number(lastInsertRowid)) } };
    });
  }

  async findApiKey(id: number): Promise<ApiKeyRecord | undefined> {
    const row = this.#statements.findApiKey.get(id) as ApiKeyRow | undefined;
    return row && apiKeyFromRow(row);
  }

  async listApiKeys(integratorIds: readonly number[]): Promise<ApiKeyRecord[]> {
    if (integratorIds.length === 0) return [];
    return (this.#statements.listApiKeys.all(JSON.stringify(integratorIds)) as ApiKeyRow[]).map(apiKeyFromRow);
  }

  async revokeApiKey(keyId: number, revokedAt: Date, use: ChallengeUse): Promise<RevokeApiKeyResult> {
    return this.#spendAndWrite(use, (): Written<RevokeApiKeyResult> => {
      const row = this.#statements.findApiKey.get(keyId) as ApiKeyRow | undefined;
      if (row === undefined) return { commit: false, result: { outcome: "not_found" } };
      if (row.revoked_at !== null) return { commit: false, result: { outcome: "already_revoked", key: apiKeyFromRow(row) } };
      this.#statements.revokeApiKey.run(revokedAt.getTime(), keyId);
      return { commit: true, result: { outcome: "revoked", key: this.#apiKey(keyId) } };
    });
  }

  async findCredentialsByPrefix(prefix: string): Promise<ApiKeyCredential[]> {
    const rows = this.#statements.findCredentialsByPrefix.all(prefix) as (ApiKeyRow & { secret_hash: string })[];
    return rows.map((row) => {
      const integrator = this.#statements.findIntegrator.get(row.integrator_id) as IntegratorRow;
      return { key: apiKeyFromRow(row), secretHash: row.secret_hash, integrator: integratorFromRow(integrator) };
    });
  }

  async recordTokenDemand(observations: readonly TokenDemandObservation[]): Promise<void> {
    if (observations.length === 0) return;
    this.#db
      .transaction(() => {
        for (const observation of observations) {
          this.#statements.upsertTokenDemand.run({
            chain_id: observation.chainId,
            token: observation.token.toLowerCase(),
            integrator_id: observation.integratorId,
            first_seen: observation.firstSeen.getTime(),
            last_seen: observation.lastSeen.getTime(),
          });
        }
      })
      .immediate();
  }

  async pruneTokenDemand(before: Date): Promise<number> {
    return this.#statements.pruneTokenDemand.run(before.getTime()).changes;
  }

  async listTokenDemand(query: TokenDemandQuery): Promise<TokenDemandSummary[]> {
    const rows = this.#statements.listTokenDemand.all({
      since: query.since.getTime(),
      chain_id: query.chainId ?? null,
      without_override: query.withoutOverride ? 1 : 0,
      chain_run: query.chainRun?.toLowerCase() ?? null,
      min_integrators: query.minIntegrators ?? 1,
      limit: query.limit ?? 1000,
    }) as TokenDemandSummaryRow[];
    return rows.map((row) => ({
      chainId: row.chain_id,
      token: row.token as Address,
      integrators: row.integrators,
      firstSeen: date(row.first_seen),
      lastSeen: date(row.last_seen),
    }));
  }

  async listTokenOverrides(chainId?: number): Promise<TokenOverride[]> {
    return (this.#statements.listTokenOverrides.all({ chain_id: chainId ?? null }) as TokenOverrideRow[]).map(tokenOverrideFromRow);
  }

  async saveTokenOverride(override: NewTokenOverride, mode: "replace" | "if_absent"): Promise<boolean> {
    const row = {
      chain_id: override.chainId,
      token: override.token.toLowerCase(),
      status: override.status,
      source: override.source,
      symbol: override.symbol ?? null,
      decimals: override.decimals ?? null,
      pool_address: override.pool?.address.toLowerCase() ?? null,
      pool_token0: override.pool?.token0.toLowerCase() ?? null,
      pool_token1: override.pool?.token1.toLowerCase() ?? null,
      pool_fee_bps: override.pool?.feeBps ?? null,
      reason: override.reason ?? null,
      chain_run: override.chainRun?.toLowerCase() ?? null,
      at: override.at.getTime(),
    };
    const statement = mode === "replace" ? this.#statements.replaceTokenOverride : this.#statements.insertTokenOverrideIfAbsent;
    return statement.run(row).changes === 1;
  }

  async removeTokenOverride(chainId: number, token: Address): Promise<boolean> {
    return this.#statements.removeTokenOverride.run(chainId, token.toLowerCase()).changes === 1;
  }

  /**
   * Quotes are the API's hottest write: one commit each would cost more than building the quote.
   * They are buffered and written together, one transaction per batch: when QUOTE_BATCH_SIZE are
   * waiting, or QUOTE_FLUSH_MS after the first one, and always before a quote is read or the store
   * closes. A crash can lose at most that window of quote records, never a partial one.
   */
  async saveQuote(quote: QuoteRecord): Promise<void> {
    this.#pendingQuotes.push(quote);
    if (this.#pendingQuotes.length >= QUOTE_BATCH_SIZE) this.#flushQuotes();
    else this.#quoteTimer ??= setTimeout(() => this.#flushQuotes(), QUOTE_FLUSH_MS).unref();
  }

  /**
   * Never throws. When the batch's transaction fails, each record is tried alone: one that breaks a
   * constraint (a duplicate id) is dropped and reported, and the rest are kept for a retry when the
   * database itself refused (busy, full, I/O), up to a bound.
   */
  #flushQuotes(): void {
    if (this.#quoteTimer !== undefined) clearTimeout(this.#quoteTimer);
    this.#quoteTimer = undefined;
    const batch = this.#pendingQuotes.splice(0);
    if (batch.length === 0 || !this.#db.open) return;
    try {
      this.#db.transaction(() => {
        for (const quote of batch) this.#statements.insertQuote.run(quoteRow(quote));
      })();
      return;
    } catch {
      // Fall through to one record at a time, to tell bad records from a refusing database.
    }
    const retry: QuoteRecord[] = [];
    let rejected = 0;
    let lastError: unknown;
    for (const quote of batch) {
      try {
        this.#statements.insertQuote.run(quoteRow(quote));
      } catch (error) {
        lastError = error;
        if (isConstraintError(error)) rejected += 1;
        else retry.push(quote);
      }
    }
    this.#pendingQuotes.unshift(...retry);
    const dropped = Math.max(0, this.#pendingQuotes.length - MAX_PENDING_QUOTES);
    if (dropped > 0) this.#pendingQuotes.splice(0, dropped);
    this.#onWriteError(lastError, { pending: this.#pendingQuotes.length, dropped: dropped + rejected });
    if (this.#pendingQuotes.length > 0) this.#quoteTimer = setTimeout(() => this.#flushQuotes(), QUOTE_RETRY_MS).unref();
  }

  async findQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    this.#flushQuotes();
    const row = this.#statements.findQuote.get(quoteId) as QuoteRow | undefined;
    return row === undefined ? undefined : quoteFromRow(row);
  }

  async findQuoteByOnchainId(chainId: number, onchainId: Hex): Promise<QuoteRecord | undefined> {
    this.#flushQuotes();
    const row = this.#statements.findQuoteByOnchainId.get(chainId, onchainId.toLowerCase()) as QuoteRow | undefined;
    return row === undefined ? undefined : quoteFromRow(row);
  }

  async close(): Promise<void> {
    this.#flushQuotes();
    if (this.#db.open) this.#db.close();
  }

  /**
   * Spends the nonce first, then runs the write, in one immediate transaction. Spending first means a
   * replay is always told "nonce used", never a conflict caused by its own earlier success; a write
   * that declines to commit rolls the spend back, so the nonce stays usable.
   */
  #spendAndWrite<Result>(use: ChallengeUse, write: () => Written<Result>): Result | NonceRejected {
    try {
      return this.#db
        .transaction((): Result | NonceRejected => {
          const spent = this.#spend(use);
          if (spent !== "consumed") return nonceRejected(spent);
          const written = write();
          if (!written.commit) throw new Rollback(written.result);
          return written.result;
        })
        .immediate();
    } catch (error) {
      if (error instanceof Rollback) return error.result as Result;
      throw error;
    }
  }

  #spend(use: ChallengeUse): ChallengeUseOutcome {
    const { changes } = this.#statements.spendChallenge.run({ nonce: use.nonce, at: use.at.getTime() });
    if (changes === 1) return "consumed";
    const row = this.#statements.findChallenge.get(use.nonce) as ChallengeRow | undefined;
    return row?.used_at != null ? "used" : "expired";
  }

  #integrator(id: number): IntegratorRecord {
    return integratorFromRow(this.#statements.findIntegrator.get(id) as IntegratorRow);
  }

  #apiKey(id: number): ApiKeyRecord {
    return apiKeyFromRow(this.#statements.findApiKey.get(id) as ApiKeyRow);
  }
}

/** What a write inside `#spendAndWrite` decided: commit its result, or roll back and report it. */
type Written<Result> = { commit: boolean; result: Result };

/** Thrown inside a transaction to roll it back while still returning a result. */
class Rollback {
  constructor(readonly result: unknown) {}
}

function nonceRejected(outcome: "used" | "expired"): NonceRejected {
  return { outcome: outcome === "used" ? "nonce_used" : "nonce_expired" };
}

function date(ms: number): Date;
function date(ms: number | null): Date | undefined;
function date(ms: number | null): Date | undefined {
  return ms === null ? undefined : new Date(ms);
}

function challengeFromRow(row: ChallengeRow): ChallengeRecord {
  return {
    nonce: row.nonce,
    wallet: getAddress(row.wallet),
    action: knownAction(row.action),
    chainId: row.chain_id,
    payloadHash: (row.payload_hash ?? undefined) as Hex | undefined,
    message: row.message,
    issuedAt: date(row.issued_at),
    expiresAt: date(row.expires_at),
    usedAt: date(row.used_at),
  };
}

function integratorFromRow(row: IntegratorRow): IntegratorRecord {
  return {
    id: row.id,
    slug: row.slug,
    ownerWallet: getAddress(row.owner_wallet),
    displayName: row.display_name,
    contactEmail: row.contact_email ?? undefined,
    telegramHandle: row.telegram_handle ?? undefined,
    appUrl: row.app_url ?? undefined,
    feeRecipient: getAddress(row.fee_recipient),
    maxFeeBps: row.max_fee_bps,
    chainId: row.chain_id ?? undefined,
    status: row.status as IntegratorStatus,
    createdAt: date(row.created_at),
    approvedAt: date(row.approved_at),
    quoteRateLimitPerMinute: row.quote_rate_limit_per_minute ?? undefined,
    swapRateLimitPerMinute: row.swap_rate_limit_per_minute ?? undefined,
  };
}

function apiKeyFromRow(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    integratorId: row.integrator_id,
    label: row.label,
    prefix: row.prefix,
    lastFour: row.last_four,
    scopes: knownScopes(row.scopes),
    quoteRateLimitPerMinute: row.quote_rate_limit_per_minute,
    swapRateLimitPerMinute: row.swap_rate_limit_per_minute,
    createdAt: date(row.created_at),
    revokedAt: date(row.revoked_at),
    maxFeeBps: row.max_fee_bps ?? undefined,
  };
}

function tokenOverrideFromRow(row: TokenOverrideRow): TokenOverride {
  const pool: ManifestPool | undefined =
    row.pool_address !== null && row.pool_token0 !== null && row.pool_token1 !== null && row.pool_fee_bps !== null
      ? {
          address: getAddress(row.pool_address),
          token0: getAddress(row.pool_token0),
          token1: getAddress(row.pool_token1),
          source: "uniswap-v2",
          feeBps: row.pool_fee_bps,
        }
      : undefined;
  return {
    chainId: row.chain_id,
    token: row.token as Address,
    status: row.status as TokenStatus,
    source: row.source as TokenStatusSource,
    symbol: row.symbol ?? undefined,
    decimals: row.decimals ?? undefined,
    pool,
    reason: row.reason ?? undefined,
    chainRun: (row.chain_run ?? undefined) as Hex | undefined,
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

function knownAction(value: string): OnboardingAction {
  const action = onboardingActions.find((candidate) => candidate === value);
  if (action === undefined) throw new Error(`challenges.action holds unknown action ${value}`);
  return action;
}

// A scope this build does not know grants nothing, rather than failing every request of the key.
function knownScopes(json: string): ApiKeyScope[] {
  const stored = JSON.parse(json) as unknown;
  if (!Array.isArray(stored)) throw new Error("api_keys.scopes is not a JSON array");
  return apiKeyScopes.filter((scope) => stored.includes(scope));
}

function isConstraintError(error: unknown): boolean {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT");
}

const QUOTE_BATCH_SIZE = 256;
const QUOTE_FLUSH_MS = 25;
const QUOTE_RETRY_MS = 1000;
/** Quote records held while the database refuses writes; older ones are dropped past this. */
const MAX_PENDING_QUOTES = 10_000;

function quoteRow(quote: QuoteRecord) {
  return {
    quote_id: quote.quoteId,
    chain_id: quote.chainId,
    onchain_id: quote.onchainId.toLowerCase(),
    api_key_id: quote.apiKeyId,
    integrator_id: quote.integratorId,
    taker: quote.taker.toLowerCase(),
    recipient: quote.recipient.toLowerCase(),
    sell_token: quote.sellToken.toLowerCase(),
    buy_token: quote.buyToken.toLowerCase(),
    sell_amount: quote.sellAmount.toString(),
    buy_amount: quote.buyAmount.toString(),
    min_buy_amount: quote.minBuyAmount.toString(),
    fee_amount: quote.feeAmount.toString(),
    settlement: quote.settlement,
    router: quote.router.toLowerCase(),
    block_number: quote.blockNumber,
    expires_at: quote.expiresAt.getTime(),
    created_at: quote.createdAt.getTime(),
    gasless: quote.gasless === undefined ? null : JSON.stringify(quote.gasless, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)),
  };
}

type GaslessTermsJson = {
  order: Record<keyof SwapOrder, string>;
  permit2Nonce: string;
  relayerFee: string;
  relayerFeeRecipient: string;
  data: string;
  signatureOffset: number;
  estimatedGas: number;
};

function gaslessFromJson(text: string): GaslessTerms {
  const json = JSON.parse(text) as GaslessTermsJson;
  const { order } = json;
  return {
    order: {
      sellToken: getAddress(order.sellToken),
      sellAmount: BigInt(order.sellAmount),
      buyToken: getAddress(order.buyToken),
      minBuyAmount: BigInt(order.minBuyAmount),
      recipient: getAddress(order.recipient),
      deadline: BigInt(order.deadline),
      quoteId: order.quoteId as Hex,
      actions: order.actions as Hex,
    },
    permit2Nonce: BigInt(json.permit2Nonce),
    relayerFee: BigInt(json.relayerFee),
    relayerFeeRecipient: getAddress(json.relayerFeeRecipient),
    data: json.data as Hex,
    signatureOffset: json.signatureOffset,
    estimatedGas: json.estimatedGas,
  };
}

type QuoteRow = {
  quote_id: string;
  chain_id: number;
  onchain_id: string;
  api_key_id: number;
  integrator_id: number;
  taker: string;
  recipient: string;
  sell_token: string;
  buy_token: string;
  sell_amount: string;
  buy_amount: string;
  min_buy_amount: string;
  fee_amount: string;
  settlement: "permit2" | "allowance";
  router: string;
  block_number: number;
  expires_at: number;
  created_at: number;
  gasless: string | null;
};

/** Token addresses stay lowercase, as the quote response writes them; wallets come back checksummed. */
function quoteFromRow(row: QuoteRow): QuoteRecord {
  return {
    quoteId: row.quote_id,
    chainId: row.chain_id,
    onchainId: row.onchain_id as Hex,
    apiKeyId: row.api_key_id,
    integratorId: row.integrator_id,
    taker: getAddress(row.taker),
    recipient: getAddress(row.recipient),
    sellToken: row.sell_token as Address,
    buyToken: row.buy_token as Address,
    sellAmount: BigInt(row.sell_amount),
    buyAmount: BigInt(row.buy_amount),
    minBuyAmount: BigInt(row.min_buy_amount),
    feeAmount: BigInt(row.fee_amount),
    settlement: row.settlement,
    router: getAddress(row.router),
    blockNumber: BigInt(row.block_number),
    expiresAt: new Date(row.expires_at),
    createdAt: new Date(row.created_at),
    ...(row.gasless === null ? {} : { gasless: gaslessFromJson(row.gasless) }),
  };
}
