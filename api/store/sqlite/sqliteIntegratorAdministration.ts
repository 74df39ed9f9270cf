import type Database from "better-sqlite3";
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
import { openSqliteDatabase } from "./sqliteStore";

/** Opens the operator's writes on the API's database (its own connection, migrated like the store's). */
export function openSqliteIntegratorAdministration(path: string): IntegratorAdministration {
  return new SqliteIntegratorAdministration(openSqliteDatabase(path));
}

function prepareStatements(db: Database.Database) {
  return {
    profileBySlug: db.prepare(`SELECT ${PROFILE_LIMITS_COLUMNS} FROM integrators WHERE slug = ?`),
    key: db.prepare(`SELECT ${KEY_LIMITS_COLUMNS} FROM api_keys WHERE id = ?`),
    setStatus: db.prepare(`UPDATE integrators SET status = @status, approved_at = COALESCE(@approved_at, approved_at),
      operator_approved_at = COALESCE(@operator_approved_at, operator_approved_at) WHERE id = @id`),
    setProfileLimits: db.prepare(`UPDATE integrators SET max_fee_bps = @max_fee_bps, quote_rate_limit_per_minute = @quote,
      swap_rate_limit_per_minute = @swap WHERE id = @id`),
    setLiveKeysLimits: db.prepare(`UPDATE api_keys SET quote_rate_limit_per_minute = COALESCE(@quote, quote_rate_limit_per_minute),
      swap_rate_limit_per_minute = COALESCE(@swap, swap_rate_limit_per_minute) WHERE integrator_id = @id AND revoked_at IS NULL`),
    setKeyLimits: db.prepare(`UPDATE api_keys SET quote_rate_limit_per_minute = @quote, swap_rate_limit_per_minute = @swap,
      max_fee_bps = @max_fee_bps WHERE id = @id`),
    revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    insertAudit: db.prepare(`INSERT INTO integrator_audit (integrator_id, key_id, action, detail, actor, at)
      VALUES (@integrator_id, @key_id, @action, @detail, @actor, @at)`),
    listAudit: db.prepare(`SELECT ${AUDIT_COLUMNS} FROM integrator_audit WHERE integrator_id = ? ORDER BY id`),
  };
}

class SqliteIntegratorAdministration implements IntegratorAdministration {
  readonly #db: Database.Database;
  readonly #statements: ReturnType<typeof prepareStatements>;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#statements = prepareStatements(db);
  }

  async changeStatus(slug: string, move: IntegratorMove, by: OperatorAction): Promise<StatusChangeResult> {
    return this.#db
      .transaction((): StatusChangeResult => {
        const profile = this.#statements.profileBySlug.get(slug) as ProfileLimitsRow | undefined;
        if (profile === undefined) return { outcome: "not_found" };
        const from = profile.status as IntegratorStatus;
        const { from: allowed, to } = integratorMoves[move];
        if (!(allowed as readonly IntegratorStatus[]).includes(from)) return { outcome: "refused", status: from };
        if (move === "confirm" && profile.operator_approved_at !== null) return { outcome: "refused", status: from };
        this.#statements.setStatus.run({
          id: profile.id,
          status: to,
          approved_at: move === "approve" ? by.at.getTime() : null,
          operator_approved_at: vouchesForProfile(move) ? by.at.getTime() : null,
        });
        this.#audit(profile.id, undefined, move, { from, to }, by);
        return { outcome: "changed", from, to };
      })
      .immediate();
  }

  async changeProfileLimits(slug: string, changes: LimitChanges, by: OperatorAction): Promise<ProfileLimitsResult> {
    return this.#db
      .transaction((): ProfileLimitsResult => {
        const profile = this.#statements.profileBySlug.get(slug) as ProfileLimitsRow | undefined;
        if (profile === undefined) return { outcome: "not_found" };
        this.#statements.setProfileLimits.run({ id: profile.id, ...nextProfileLimits(profile, changes) });
        const { changes: keysUpdated } = this.#statements.setLiveKeysLimits.run({
          id: profile.id,
          quote: changes.quoteRateLimitPerMinute ?? null,
          swap: changes.swapRateLimitPerMinute ?? null,
        });
        this.#audit(profile.id, undefined, "change_limits", { ...limitChangeDetail(profile, changes), live_keys_updated: keysUpdated }, by);
        return { outcome: "changed", keysUpdated };
      })
      .immediate();
  }

  async changeKeyLimits(keyId: number, changes: LimitChanges, by: OperatorAction): Promise<KeyLimitsResult> {
    return this.#db
      .transaction((): KeyLimitsResult => {
        const key = this.#statements.key.get(keyId) as KeyLimitsRow | undefined;
        if (key === undefined) return { outcome: "not_found" };
        this.#statements.setKeyLimits.run({ id: key.id, ...nextKeyLimits(key, changes) });
        this.#audit(key.integrator_id, key.id, "change_key_limits", limitChangeDetail(key, changes), by);
        return { outcome: "changed", integratorId: key.integrator_id };
      })
      .immediate();
  }

  async revokeKey(keyId: number, by: OperatorAction): Promise<OperatorRevokeResult> {
    return this.#db
      .transaction((): OperatorRevokeResult => {
        const key = this.#statements.key.get(keyId) as KeyLimitsRow | undefined;
        if (key === undefined) return { outcome: "not_found" };
        if (this.#statements.revokeKey.run(by.at.getTime(), keyId).changes === 0) return { outcome: "already_revoked" };
        this.#audit(key.integrator_id, key.id, "revoke_key", {}, by);
        return { outcome: "revoked", integratorId: key.integrator_id };
      })
      .immediate();
  }

  async listAudit(integratorId: number): Promise<AuditEntry[]> {
    return (this.#statements.listAudit.all(integratorId) as AuditRow[]).map(auditFromRow);
  }

  async close(): Promise<void> {
    if (this.#db.open) this.#db.close();
  }

  #audit(integratorId: number, keyId: number | undefined, action: string, detail: Record<string, unknown>, by: OperatorAction): void {
    this.#statements.insertAudit.run(auditParams(integratorId, keyId, action, detail, by));
  }
}
