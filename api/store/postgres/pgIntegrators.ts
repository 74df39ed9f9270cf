import type { Address } from "viem";
import type { PostgresClient, PostgresPool } from "../../../sdk/storage/postgresPool";
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
import type { PgChallenges } from "./pgChallenges";
import type { PgCredentialCache } from "./pgCredentialCache";

type Queryable = Pick<PostgresClient, "query">;

/**
 * Integrator profiles and API keys on PostgreSQL. A key is created under a share lock on its profile,
 * so an operator's concurrent suspension waits for it (and the key is seen by the suspension) or
 * comes first (and the key is refused); a slug is claimed with ON CONFLICT DO NOTHING.
 */
export class PgIntegrators implements IntegratorStore {
  readonly #pool: PostgresPool;
  readonly #challenges: PgChallenges;
  readonly #credentials: PgCredentialCache | undefined;

  constructor(pool: PostgresPool, challenges: PgChallenges, credentials?: PgCredentialCache) {
    this.#pool = pool;
    this.#challenges = challenges;
    this.#credentials = credentials;
  }

  async createIntegrator(integrator: NewIntegrator, use: ChallengeUse): Promise<CreateIntegratorResult> {
    const row = integratorParams(integrator);
    return this.#challenges.spendAndWrite(use, async (client): Promise<Written<CreateIntegratorResult>> => {
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO integrators (slug, owner_wallet, display_name, contact_email, telegram_handle, app_url, fee_recipient,
           max_fee_bps, chain_id, status, created_at, approved_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (slug) DO NOTHING RETURNING id`,
        [row.slug, row.owner_wallet, row.display_name, row.contact_email, row.telegram_handle, row.app_url, row.fee_recipient,
          row.max_fee_bps, row.chain_id, row.status, row.created_at, row.approved_at],
      );
      if (rows[0] === undefined) return { commit: false, result: { outcome: "slug_taken" } };
      return { commit: true, result: { outcome: "created", integrator: (await findIntegrator(client, rows[0].id))! } };
    });
  }

  async findIntegrator(id: number): Promise<IntegratorRecord | undefined> {
    return findIntegrator(this.#pool, id);
  }

  async listIntegrators(filter: { ownerWallet?: Address } = {}): Promise<IntegratorRecord[]> {
    const { rows } =
      filter.ownerWallet === undefined
        ? await this.#pool.query<IntegratorRow>(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators ORDER BY id`)
        : await this.#pool.query<IntegratorRow>(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE owner_wallet = $1 ORDER BY id`, [filter.ownerWallet.toLowerCase()]);
    return rows.map(integratorFromRow);
  }

  async approveIntegrator(slug: string, approvedAt: Date): Promise<ApproveIntegratorResult> {
    const { rowCount } = await this.#pool.query("UPDATE integrators SET status = 'active', approved_at = $1, operator_approved_at = $1 WHERE slug = $2 AND status = 'pending'", [approvedAt.getTime(), slug]);
    this.#credentials?.invalidate();
    const { rows } = await this.#pool.query<IntegratorRow>(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE slug = $1`, [slug]);
    if (rows[0] === undefined) return { outcome: "not_found" };
    return { outcome: rowCount === 1 ? "approved" : "already_active", integrator: integratorFromRow(rows[0]) };
  }

  async createApiKey(key: NewApiKey, use: ChallengeUse, maxActiveKeys: number): Promise<CreateApiKeyResult> {
    const row = apiKeyParams(key);
    return this.#challenges.spendAndWrite(use, async (client): Promise<Written<CreateApiKeyResult>> => {
      // FOR UPDATE, not FOR SHARE: creations for one profile queue here, so the count below holds
      // until this one commits and two instances cannot both take the last place.
      const { rows: profiles } = await client.query<{ status: string }>("SELECT status FROM integrators WHERE id = $1 FOR UPDATE", [key.integratorId]);
      if (profiles[0] === undefined) return { commit: false, result: { outcome: "integrator_not_found" } };
      if (profiles[0].status !== "active") return { commit: false, result: { outcome: "integrator_not_active" } };
      const { rows: counted } = await client.query<{ active: string }>("SELECT COUNT(*) AS active FROM api_keys WHERE integrator_id = $1 AND revoked_at IS NULL", [key.integratorId]);
      const active = Number(counted[0]!.active);
      if (active >= maxActiveKeys) return { commit: false, result: { outcome: "key_limit_reached", active } };
      const { rows } = await client.query<{ id: number }>(
        `INSERT INTO api_keys (integrator_id, label, prefix, last_four, secret_hash, scopes, quote_rate_limit_per_minute,
           swap_rate_limit_per_minute, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
        [row.integrator_id, row.label, row.prefix, row.last_four, row.secret_hash, row.scopes, row.quote_rate_limit_per_minute,
          row.swap_rate_limit_per_minute, row.created_at],
      );
      return { commit: true, result: { outcome: "created", key: (await findApiKey(client, rows[0]!.id))! } };
    });
  }

  async findApiKey(id: number): Promise<ApiKeyRecord | undefined> {
    return findApiKey(this.#pool, id);
  }

  async listApiKeys(integratorIds: readonly number[]): Promise<ApiKeyRecord[]> {
    if (integratorIds.length === 0) return [];
    const { rows } = await this.#pool.query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE integrator_id = ANY($1::int[]) ORDER BY id`, [integratorIds]);
    return rows.map(apiKeyFromRow);
  }

  async revokeApiKey(keyId: number, revokedAt: Date, use: ChallengeUse): Promise<RevokeApiKeyResult> {
    return this.#challenges.spendAndWrite(use, async (client): Promise<Written<RevokeApiKeyResult>> => {
      const { rows } = await client.query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [keyId]);
      const row = rows[0];
      if (row === undefined) return { commit: false, result: { outcome: "not_found" } };
      if (row.revoked_at !== null) return { commit: false, result: { outcome: "already_revoked", key: apiKeyFromRow(row) } };
      await client.query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2", [revokedAt.getTime(), keyId]);
      return { commit: true, result: { outcome: "revoked", key: (await findApiKey(client, keyId))! } };
    }).finally(() => this.#credentials?.invalidate());
  }

  async findCredentialsByPrefix(prefix: string): Promise<ApiKeyCredential[]> {
    return this.#credentials === undefined ? this.#readCredentials(prefix) : this.#credentials.get(prefix, () => this.#readCredentials(prefix));
  }

  async #readCredentials(prefix: string): Promise<ApiKeyCredential[]> {
    const { rows } = await this.#pool.query<CredentialRow>({
      name: "api-credentials-by-prefix",
      text: `SELECT ${CREDENTIAL_COLUMNS} FROM api_keys k JOIN integrators i ON i.id = k.integrator_id WHERE k.prefix = $1`,
      values: [prefix],
    });
    return rows.map(credentialFromRow);
  }
}

async function findIntegrator(db: Queryable, id: number): Promise<IntegratorRecord | undefined> {
  const { rows } = await db.query<IntegratorRow>(`SELECT ${INTEGRATOR_COLUMNS} FROM integrators WHERE id = $1`, [id]);
  return rows[0] && integratorFromRow(rows[0]);
}

async function findApiKey(db: Queryable, id: number): Promise<ApiKeyRecord | undefined> {
  const { rows } = await db.query<ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1`, [id]);
  return rows[0] && apiKeyFromRow(rows[0]);
}
