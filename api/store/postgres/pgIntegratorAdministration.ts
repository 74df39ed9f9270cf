import { applyPostgresMigrations, withTransaction, type PostgresClient, type PostgresPool } from "../../../sdk/storage/postgresPool";
import { openServicePool } from "../../../sdk/storage/servicePools";
import { integratorMoves, vouchesForProfile, type IntegratorMove } from "../integratorLifecycle";
import type {
  AuditEntry,
  IntegratorAdministration,
  KeyLimitsResult,
  LimitChanges,
  OperatorAction,
  OperatorRevokeResult,
  ProfileLimitsResult,
  StatusChangeResult,
} from "../integratorAdministration";
import { AUDIT_COLUMNS, auditFromRow, auditParams, type AuditRow } from "../rows/auditRows";
import {
  KEY_LIMITS_COLUMNS,
  limitChangeDetail,
  nextKeyLimits,
  nextProfileLimits,
  PROFILE_LIMITS_COLUMNS,
  type KeyLimitsRow,
  type ProfileLimitsRow,
} from "../rows/limitRows";
import type { IntegratorStatus } from "../store";
import { postgresMigrations } from "./postgresMigrations";
import { API_MIGRATIONS_TABLE } from "./postgresStore";

const MAX_INTEGER = 2_147_483_647;

/** Opens the operator's writes on the API's PostgreSQL database (`DATABASE_URL`), migrated like the store's. */
export async function openPgIntegratorAdministration(url: string): Promise<IntegratorAdministration> {
  // One command at a time: a second connection would never be used.
  const pool = openServicePool(url, "integratorsCli");
  try {
    await applyPostgresMigrations(pool, API_MIGRATIONS_TABLE, postgresMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return new PgIntegratorAdministration(pool);
}

/**
 * The SQLite version's behaviour on PostgreSQL. Each change locks the row it reads (FOR UPDATE), as
 * SQLite's immediate transaction locks the file: a concurrent change, or the API creating a key under
 * its share lock on the profile, waits for it, so the audit's old values are the ones replaced.
 */
class PgIntegratorAdministration implements IntegratorAdministration {
  readonly #pool: PostgresPool;

  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  async changeStatus(slug: string, move: IntegratorMove, by: OperatorAction): Promise<StatusChangeResult> {
    return withTransaction(this.#pool, async (client): Promise<StatusChangeResult> => {
      const profile = await profileBySlug(client, slug);
      if (profile === undefined) return { outcome: "not_found" };
      const from = profile.status as IntegratorStatus;
      const { from: allowed, to } = integratorMoves[move];
      if (!(allowed as readonly IntegratorStatus[]).includes(from)) return { outcome: "refused", status: from };
      if (move === "confirm" && profile.operator_approved_at !== null) return { outcome: "refused", status: from };
      await client.query(
        "UPDATE integrators SET status = $1, approved_at = COALESCE($2, approved_at), operator_approved_at = COALESCE($3, operator_approved_at) WHERE id = $4",
        [to, move === "approve" ? by.at.getTime() : null, vouchesForProfile(move) ? by.at.getTime() : null, profile.id],
      );
      await audit(client, profile.id, undefined, move, { from, to }, by);
      return { outcome: "changed", from, to };
    });
  }

  async changeProfileLimits(slug: string, changes: LimitChanges, by: OperatorAction): Promise<ProfileLimitsResult> {
    return withTransaction(this.#pool, async (client): Promise<ProfileLimitsResult> => {
      const profile = await profileBySlug(client, slug);
      if (profile === undefined) return { outcome: "not_found" };
      const next = nextProfileLimits(profile, changes);
      await client.query("UPDATE integrators SET max_fee_bps = $1, quote_rate_limit_per_minute = $2, swap_rate_limit_per_minute = $3 WHERE id = $4", [
        next.max_fee_bps,
        next.quote,
        next.swap,
        profile.id,
      ]);
      const { rowCount } = await client.query(
        `UPDATE api_keys SET quote_rate_limit_per_minute = COALESCE($1::int, quote_rate_limit_per_minute),
           swap_rate_limit_per_minute = COALESCE($2::int, swap_rate_limit_per_minute) WHERE integrator_id = $3 AND revoked_at IS NULL`,
        [changes.quoteRateLimitPerMinute ?? null, changes.swapRateLimitPerMinute ?? null, profile.id],
      );
      const keysUpdated = rowCount ?? 0;
      await audit(client, profile.id, undefined, "change_limits", { ...limitChangeDetail(profile, changes), live_keys_updated: keysUpdated }, by);
      return { outcome: "changed", keysUpdated };
    });
  }

  async changeKeyLimits(keyId: number, changes: LimitChanges, by: OperatorAction): Promise<KeyLimitsResult> {
    return withTransaction(this.#pool, async (client): Promise<KeyLimitsResult> => {
      const key = await keyById(client, keyId);
      if (key === undefined) return { outcome: "not_found" };
      const next = nextKeyLimits(key, changes);
      await client.query("UPDATE api_keys SET quote_rate_limit_per_minute = $1, swap_rate_limit_per_minute = $2, max_fee_bps = $3 WHERE id = $4", [
        next.quote,
        next.swap,
        next.max_fee_bps,
        key.id,
      ]);
      await audit(client, key.integrator_id, key.id, "change_key_limits", limitChangeDetail(key, changes), by);
      return { outcome: "changed", integratorId: key.integrator_id };
    });
  }

  async revokeKey(keyId: number, by: OperatorAction): Promise<OperatorRevokeResult> {
    return withTransaction(this.#pool, async (client): Promise<OperatorRevokeResult> => {
      const key = await keyById(client, keyId);
      if (key === undefined) return { outcome: "not_found" };
      if (key.revoked_at !== null) return { outcome: "already_revoked" };
      await client.query("UPDATE api_keys SET revoked_at = $1 WHERE id = $2", [by.at.getTime(), keyId]);
      await audit(client, key.integrator_id, key.id, "revoke_key", {}, by);
      return { outcome: "revoked", integratorId: key.integrator_id };
    });
  }

  async listAudit(integratorId: number): Promise<AuditEntry[]> {
    const { rows } = await this.#pool.query<AuditRow>(`SELECT ${AUDIT_COLUMNS} FROM integrator_audit WHERE integrator_id = $1 ORDER BY id`, [integratorId]);
    return rows.map(auditFromRow);
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}

async function profileBySlug(client: PostgresClient, slug: string): Promise<ProfileLimitsRow | undefined> {
  const { rows } = await client.query<ProfileLimitsRow>(`SELECT ${PROFILE_LIMITS_COLUMNS} FROM integrators WHERE slug = $1 FOR UPDATE`, [slug]);
  return rows[0];
}

async function keyById(client: PostgresClient, keyId: number): Promise<KeyLimitsRow | undefined> {
  // Beyond INTEGER no key exists; PostgreSQL would fail the query where SQLite finds no row.
  if (!Number.isSafeInteger(keyId) || keyId > MAX_INTEGER) return undefined;
  const { rows } = await client.query<KeyLimitsRow>(`SELECT ${KEY_LIMITS_COLUMNS} FROM api_keys WHERE id = $1 FOR UPDATE`, [keyId]);
  return rows[0];
}

async function audit(client: PostgresClient, integratorId: number, keyId: number | undefined, action: string, detail: Record<string, unknown>, by: OperatorAction): Promise<void> {
  const row = auditParams(integratorId, keyId, action, detail, by);
  await client.query("INSERT INTO integrator_audit (integrator_id, key_id, action, detail, actor, at) VALUES ($1, $2, $3, $4, $5, $6)", [
    row.integrator_id,
    row.key_id,
    row.action,
    row.detail,
    row.actor,
    row.at,
  ]);
}
