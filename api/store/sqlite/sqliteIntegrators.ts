import type Database from "better-sqlite3";
import type { Address } from "viem";
import type { Written } from "../challengeSpending";
import { API_KEY_COLUMNS, apiKeyFromRow, CREDENTIAL_COLUMNS, credentialFromRow, type CredentialRow, apiKeyParams, INTEGRATOR_COLUMNS, integratorFromRow, integratorParams, type ApiKeyRow, type IntegratorRow } from "../rows/integratorRows";
import type {
  ApiKeyCredential,
  ApiKeyRecord,
  ApproveIntegratorResult,
  ChallengeUse,
  CreateApiKeyResult,
  CreateIntegratorResult,
  IntegratorRecord,
  IntegratorStore,
  NewApiKey,
  NewIntegrator,
  RevokeApiKeyResult,
} from "../store";
import { SqliteChangeMark } from "./sqliteChangeMark";
import type { SqliteChallenges } from "./sqliteChallenges";

/** Prefixes whose credentials are remembered at once; a flood of made-up prefixes starts the memo over, never grows it. */
const MAX_REMEMBERED_PREFIXES = 1024;

/** Integrator profiles and API keys on SQLite; writes that spend a nonce run in the challenges' transaction. */
export class SqliteIntegrators implements IntegratorStore {
  readonly #db: Database.Database;
  readonly #challenges: SqliteChallenges;
  readonly #statements;
  readonly #changes: SqliteChangeMark;
  /** Credentials by key prefix as last read; emptied whenever the database changed (see `findCredentialsByPrefix`). */
  readonly #credentials = new Map<string, readonly ApiKeyCredential[]>();

  constructor(db: Database.Database, challenges: SqliteChallenges) {
    this.#db = db;
    this.#challenges = challenges;
    this.#changes = new SqliteChangeMark(db);
    this.#statements = {
      insertIntegrator: db.prepare(`INSERT INTO integrators
        (slug, owner_wallet, display_name, contact_email, telegram_handle, app_url, fee_recipient, max_fee_bps,
         chain_id, status, created_at, approved_at)
        VALUES (@slug, @owner_wallet, @display_name, @contact_email, @telegram_handle, @app_url, @fee_recipient,
         @max_fee_bps, @chain_id, @status, @created_at, @approved_at)`),
      findIntegrator: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE id = ?`),
      findIntegratorBySlug: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE slug = ?`),
      listIntegrators: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators ORDER BY id`),
      listIntegratorsByOwner: db.prepare(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE owner_wallet = ? ORDER BY id`),
      approveIntegrator: db.prepare("UPDATE integrators SET status = 'active', approved_at = @at, operator_approved_at = @at WHERE slug = @slug AND status = 'pending'"),
      insertApiKey: db.prepare(`INSERT INTO api_keys
        (integrator_id, label, prefix, last_four, secret_hash, scopes, quote_rate_limit_per_minute,
         swap_rate_limit_per_minute, created_at)
        VALUES (@integrator_id, @label, @prefix, @last_four, @secret_hash, @scopes, @quote_rate_limit_per_minute,
         @swap_rate_limit_per_minute, @created_at)`),
      findApiKey: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`),
      countActiveApiKeys: db.prepare("SELECT COUNT(*) AS active FROM api_keys WHERE integrator_id = ? AND revoked_at IS NULL"),
      listApiKeys: db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys
        WHERE integrator_id IN (SELECT value FROM json_each(?)) ORDER BY id`),
      revokeApiKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
      findCredentialsByPrefix: db.prepare(`SELECT ${CREDENTIAL_COLUMNS} FROM api_keys k JOIN integrators i ON i.id = k.integrator_id WHERE k.prefix = ?`),
    };
  }

  async createIntegrator(integrator: NewIntegrator, use: ChallengeUse): Promise<CreateIntegratorResult> {
    return this.#challenges.spendAndWrite(use, (): Written<CreateIntegratorResult> => {
      if (this.#statements.findIntegratorBySlug.get(integrator.slug)) return { commit: false, result: { outcome: "slug_taken" } };
      const { lastInsertRowid } = this.#statements.insertIntegrator.run(integratorParams(integrator));
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
        const { changes } = this.#statements.approveIntegrator.run({ at: approvedAt.getTime(), slug });
        const row = this.#statements.findIntegratorBySlug.get(slug) as IntegratorRow | undefined;
        if (row === undefined) return { outcome: "not_found" };
        return { outcome: changes === 1 ? "approved" : "already_active", integrator: integratorFromRow(row) };
      })
      .immediate();
  }

  async createApiKey(key: NewApiKey, use: ChallengeUse, maxActiveKeys: number): Promise<CreateApiKeyResult> {
    return this.#challenges.spendAndWrite(use, (): Written<CreateApiKeyResult> => {
      const integrator = this.#statements.findIntegrator.get(key.integratorId) as IntegratorRow | undefined;
      if (integrator === undefined) return { commit: false, result: { outcome: "integrator_not_found" } };
      if (integrator.status !== "active") return { commit: false, result: { outcome: "integrator_not_active" } };
      // Counted in the write's own (immediate) transaction: two creations cannot both take the last place.
      const { active } = this.#statements.countActiveApiKeys.get(key.integratorId) as { active: number };
      if (active >= maxActiveKeys) return { commit: false, result: { outcome: "key_limit_reached", active } };
      const { lastInsertRowid } = this.#statements.insertApiKey.run(apiKeyParams(key));
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
    return this.#challenges.spendAndWrite(use, (): Written<RevokeApiKeyResult> => {
      const row = this.#statements.findApiKey.get(keyId) as ApiKeyRow | undefined;
      if (row === undefined) return { commit: false, result: { outcome: "not_found" } };
      if (row.revoked_at !== null) return { commit: false, result: { outcome: "already_revoked", key: apiKeyFromRow(row) } };
      this.#statements.revokeApiKey.run(revokedAt.getTime(), keyId);
      return { commit: true, result: { outcome: "revoked", key: this.#apiKey(keyId) } };
    });
  }

  /**
   * Every trading request authenticates here, so the joined lookup is remembered; but only while the
   * database has not changed at all, by this connection or any other, so a revocation, a suspension or
   * a new key holds from the next request exactly as without the memo.
   */
  async findCredentialsByPrefix(prefix: string): Promise<ApiKeyCredential[]> {
    if (this.#changes.moved()) this.#credentials.clear();
    let credentials = this.#credentials.get(prefix);
    if (credentials === undefined) {
      credentials = (this.#statements.findCredentialsByPrefix.all(prefix) as CredentialRow[]).map((row) => frozen(credentialFromRow(row)));
      if (this.#credentials.size >= MAX_REMEMBERED_PREFIXES) this.#credentials.clear();
      this.#credentials.set(prefix, credentials);
    }
    return [...credentials];
  }

  #integrator(id: number): IntegratorRecord {
    return integratorFromRow(this.#statements.findIntegrator.get(id) as IntegratorRow);
  }

  #apiKey(id: number): ApiKeyRecord {
    return apiKeyFromRow(this.#statements.findApiKey.get(id) as ApiKeyRow);
  }
}

/** Remembered credentials are handed to many requests: none of them may change one for the others. */
function frozen(credential: ApiKeyCredential): ApiKeyCredential {
  Object.freeze(credential.key.scopes);
  Object.freeze(credential.key);
  Object.freeze(credential.integrator);
  return Object.freeze(credential);
}
