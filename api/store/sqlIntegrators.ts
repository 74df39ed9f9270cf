import type { Address } from "viem";
import { step, type SqlDatabase, type TransactionBody } from "../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "./apiSchema";
import type { Written } from "./challengeSpending";
import { API_KEY_COLUMNS, apiKeyFromRow, apiKeyParams, CREDENTIAL_COLUMNS, credentialFromRow, type CredentialRow, INTEGRATOR_COLUMNS, integratorFromRow, integratorParams } from "./rows/integratorRows";
import type { SqlChallenges } from "./sqlChallenges";
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
} from "./store";

/**
 * Where authentication's joined lookup is remembered, the one part of this family the engines do
 * differently: SQLite remembers while its change mark stands still (sqlite/sqliteCredentialMemo.ts),
 * PostgreSQL while it listens for `NOTIFY api_credentials` (postgres/pgCredentialCache.ts). Either
 * way the store's own writes drop it at once.
 */
export interface CredentialCache {
  /** The remembered credentials of `prefix`, or those `read` returns (remembered when the cache can). */
  get(prefix: string, read: () => Promise<ApiKeyCredential[]>): Promise<ApiKeyCredential[]>;
  /** Forgets everything: this instance's own write holds from its next request. */
  invalidate(): void;
}

/**
 * Integrator profiles and API keys on either engine; writes that spend a nonce run in the
 * challenges' transaction. A key is created with its profile locked where the engine has locks
 * (`FOR UPDATE`), so an operator's concurrent suspension waits for it (and sees the key) or comes
 * first (and the key is refused); on SQLite the immediate transaction orders them already. A slug is
 * claimed with ON CONFLICT DO NOTHING.
 */
export class SqlIntegrators implements IntegratorStore {
  readonly #db: SqlDatabase<ApiSchema>;
  readonly #challenges: SqlChallenges;
  readonly #credentials: CredentialCache | undefined;

  constructor(db: SqlDatabase<ApiSchema>, challenges: SqlChallenges, credentials?: CredentialCache) {
    this.#db = db;
    this.#challenges = challenges;
    this.#credentials = credentials;
  }

  async createIntegrator(integrator: NewIntegrator, use: ChallengeUse): Promise<CreateIntegratorResult> {
    const { build } = this.#db;
    const find = (id: number) => this.#findIntegrator(id);
    return this.#challenges.spendAndWrite(use, function* (): TransactionBody<Written<CreateIntegratorResult>> {
      const inserted = yield* step.first(
        build
          .insertInto("integrators")
          .values(integratorParams(integrator))
          .onConflict((conflict) => conflict.column("slug").doNothing())
          .returning("id"),
      );
      if (inserted === undefined) return { commit: false, result: { outcome: "slug_taken" } };
      return { commit: true, result: { outcome: "created", integrator: integratorFromRow((yield* step.first(find(inserted.id)))!) } };
    });
  }

  async findIntegrator(id: number): Promise<IntegratorRecord | undefined> {
    const row = await this.#db.first(this.#findIntegrator(id));
    return row && integratorFromRow(row);
  }

  async listIntegrators(filter: { ownerWallet?: Address } = {}): Promise<IntegratorRecord[]> {
    let select = this.#db.build.selectFrom("integrators").select(INTEGRATOR_COLUMNS).orderBy("id");
    if (filter.ownerWallet !== undefined) select = select.where("owner_wallet", "=", filter.ownerWallet.toLowerCase());
    return (await this.#db.rows(select)).map(integratorFromRow);
  }

  async approveIntegrator(slug: string, approvedAt: Date): Promise<ApproveIntegratorResult> {
    const { build } = this.#db;
    const at = approvedAt.getTime();
    try {
      return await this.#db.transaction(function* (): TransactionBody<ApproveIntegratorResult> {
        const approved = yield* step.changes(
          build.updateTable("integrators").set({ status: "active", approved_at: at, operator_approved_at: at }).where("slug", "=", slug).where("status", "=", "pending"),
        );
        const row = yield* step.first(build.selectFrom("integrators").select(INTEGRATOR_COLUMNS).where("slug", "=", slug));
        if (row === undefined) return { outcome: "not_found" };
        return { outcome: approved === 1 ? "approved" : "already_active", integrator: integratorFromRow(row) };
      });
    } finally {
      this.#credentials?.invalidate();
    }
  }

  async createApiKey(key: NewApiKey, use: ChallengeUse, maxActiveKeys: number): Promise<CreateApiKeyResult> {
    const { build, lockRows } = this.#db;
    const find = (id: number) => this.#findApiKey(id);
    return this.#challenges.spendAndWrite(use, function* (): TransactionBody<Written<CreateApiKeyResult>> {
      // FOR UPDATE, not FOR SHARE: creations for one profile queue here, so the count below holds until
      // this one commits and two instances cannot both take the last place (SQLite's immediate
      // transaction already holds the database).
      const profileQuery = build.selectFrom("integrators").select("status").where("id", "=", key.integratorId);
      const profile = yield* step.first(lockRows(profileQuery));
      if (profile === undefined) return { commit: false, result: { outcome: "integrator_not_found" } };
      if (profile.status !== "active") return { commit: false, result: { outcome: "integrator_not_active" } };
      const counted = yield* step.first(
        build
          .selectFrom("api_keys")
          .select((eb) => eb.fn.countAll().as("active"))
          .where("integrator_id", "=", key.integratorId)
          .where("revoked_at", "is", null),
      );
      const active = Number(counted!.active);
      if (active >= maxActiveKeys) return { commit: false, result: { outcome: "key_limit_reached", active } };
      const inserted = yield* step.first(build.insertInto("api_keys").values(apiKeyParams(key)).returning("id"));
      return { commit: true, result: { outcome: "created", key: apiKeyFromRow((yield* step.first(find(inserted!.id)))!) } };
    });
  }

  async findApiKey(id: number): Promise<ApiKeyRecord | undefined> {
    const row = await this.#db.first(this.#findApiKey(id));
    return row && apiKeyFromRow(row);
  }

  async listApiKeys(integratorIds: readonly number[]): Promise<ApiKeyRecord[]> {
    if (integratorIds.length === 0) return [];
    const select = this.#db.build.selectFrom("api_keys").select(API_KEY_COLUMNS).where("integrator_id", "in", integratorIds).orderBy("id");
    return (await this.#db.rows(select)).map(apiKeyFromRow);
  }

  async revokeApiKey(keyId: number, revokedAt: Date, use: ChallengeUse): Promise<RevokeApiKeyResult> {
    const { build, lockRows } = this.#db;
    const find = (id: number) => this.#findApiKey(id);
    return this.#challenges
      .spendAndWrite(use, function* (): TransactionBody<Written<RevokeApiKeyResult>> {
        const query = find(keyId);
        const row = yield* step.first(lockRows(query));
        if (row === undefined) return { commit: false, result: { outcome: "not_found" } };
        if (row.revoked_at !== null) return { commit: false, result: { outcome: "already_revoked", key: apiKeyFromRow(row) } };
        yield* step.changes(build.updateTable("api_keys").set({ revoked_at: revokedAt.getTime() }).where("id", "=", keyId).where("revoked_at", "is", null));
        return { commit: true, result: { outcome: "revoked", key: apiKeyFromRow((yield* step.first(find(keyId)))!) } };
      })
      .finally(() => this.#credentials?.invalidate());
  }

  async findCredentialsByPrefix(prefix: string): Promise<ApiKeyCredential[]> {
    return this.#credentials === undefined ? this.#readCredentials(prefix) : this.#credentials.get(prefix, () => this.#readCredentials(prefix));
  }

  async #readCredentials(prefix: string): Promise<ApiKeyCredential[]> {
    const select = this.#db.build
      .selectFrom("api_keys as k")
      .innerJoin("integrators as i", "i.id", "k.integrator_id")
      .select(CREDENTIAL_COLUMNS)
      .where("k.prefix", "=", prefix)
      // Kysely types each `i.column as i_column` as any of the profile's columns; the row is exactly this.
      .$castTo<CredentialRow>();
    return (await this.#db.rows(select)).map(credentialFromRow);
  }

  #findIntegrator(id: number) {
    return this.#db.build.selectFrom("integrators").select(INTEGRATOR_COLUMNS).where("id", "=", id);
  }

  #findApiKey(id: number) {
    return this.#db.build.selectFrom("api_keys").select(API_KEY_COLUMNS).where("id", "=", id);
  }
}
