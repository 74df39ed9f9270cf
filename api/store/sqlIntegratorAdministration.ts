import { step, type SqlDatabase, type TransactionBody } from "../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "./apiSchema";
import { integratorMoves, vouchesForProfile, type IntegratorMove } from "./integratorLifecycle";
import type {
  AuditEntry,
  IntegratorAdministration,
  KeyLimitsResult,
  LimitChanges,
  OperatorAction,
  OperatorRevokeResult,
  ProfileLimitsResult,
  StatusChangeResult,
} from "./integratorAdministration";
import { AUDIT_COLUMNS, auditFromRow, auditParams } from "./rows/auditRows";
import { KEY_LIMITS_COLUMNS, limitChangeDetail, nextKeyLimits, nextProfileLimits, PROFILE_LIMITS_COLUMNS, type KeyLimitsRow, type ProfileLimitsRow } from "./rows/limitRows";
import type { IntegratorStatus } from "./store";

/** PostgreSQL's INTEGER; beyond it no key exists, and PostgreSQL would fail the query where SQLite finds no row. */
const MAX_INTEGER = 2_147_483_647;

/**
 * The operator's writes on either engine, each in one transaction. Where the engine has row locks,
 * each change locks the row it reads (FOR UPDATE), as SQLite's immediate transaction locks the file:
 * a concurrent change, or the API creating a key under its lock on the profile, waits for it, so the
 * audit's old values are the ones replaced. `close` ends the connection the change was opened on.
 */
export class SqlIntegratorAdministration implements IntegratorAdministration {
  readonly #db: SqlDatabase<ApiSchema>;
  readonly #close: () => Promise<void>;

  constructor(db: SqlDatabase<ApiSchema>, close: () => Promise<void>) {
    this.#db = db;
    this.#close = close;
  }

  async changeStatus(slug: string, move: IntegratorMove, by: OperatorAction): Promise<StatusChangeResult> {
    const db = this.#db;
    return db.transaction(function* (): TransactionBody<StatusChangeResult> {
      const profile = yield* profileBySlug(db, slug);
      if (profile === undefined) return { outcome: "not_found" };
      const from = profile.status as IntegratorStatus;
      const { from: allowed, to } = integratorMoves[move];
      if (!(allowed as readonly IntegratorStatus[]).includes(from)) return { outcome: "refused", status: from };
      if (move === "confirm" && profile.operator_approved_at !== null) return { outcome: "refused", status: from };
      const approvedAt = move === "approve" ? by.at.getTime() : null;
      const operatorApprovedAt = vouchesForProfile(move) ? by.at.getTime() : null;
      yield* step.changes(
        db.build
          .updateTable("integrators")
          .set((eb) => ({
            status: to,
            approved_at: eb.fn.coalesce(eb.val(approvedAt), eb.ref("approved_at")),
            operator_approved_at: eb.fn.coalesce(eb.val(operatorApprovedAt), eb.ref("operator_approved_at")),
          }))
          .where("id", "=", profile.id),
      );
      yield* audit(db, profile.id, undefined, move, { from, to }, by);
      return { outcome: "changed", from, to };
    });
  }

  async changeProfileLimits(slug: string, changes: LimitChanges, by: OperatorAction): Promise<ProfileLimitsResult> {
    const db = this.#db;
    return db.transaction(function* (): TransactionBody<ProfileLimitsResult> {
      const profile = yield* profileBySlug(db, slug);
      if (profile === undefined) return { outcome: "not_found" };
      const next = nextProfileLimits(profile, changes);
      yield* step.changes(
        db.build
          .updateTable("integrators")
          .set({ max_fee_bps: next.max_fee_bps, quote_rate_limit_per_minute: next.quote, swap_rate_limit_per_minute: next.swap })
          .where("id", "=", profile.id),
      );
      // The casts tell PostgreSQL a NULL parameter's type; SQLite keeps the value as it is.
      const quote = changes.quoteRateLimitPerMinute ?? null;
      const swap = changes.swapRateLimitPerMinute ?? null;
      const keysUpdated = yield* step.changes(
        db.build
          .updateTable("api_keys")
          .set((eb) => ({
            quote_rate_limit_per_minute: eb.fn.coalesce(eb.cast<number | null>(eb.val(quote), "integer"), eb.ref("quote_rate_limit_per_minute")),
            swap_rate_limit_per_minute: eb.fn.coalesce(eb.cast<number | null>(eb.val(swap), "integer"), eb.ref("swap_rate_limit_per_minute")),
          }))
          .where("integrator_id", "=", profile.id)
          .where("revoked_at", "is", null),
      );
      yield* audit(db, profile.id, undefined, "change_limits", { ...limitChangeDetail(profile, changes), live_keys_updated: keysUpdated }, by);
      return { outcome: "changed", keysUpdated };
    });
  }

  async changeKeyLimits(keyId: number, changes: LimitChanges, by: OperatorAction): Promise<KeyLimitsResult> {
    const db = this.#db;
    return db.transaction(function* (): TransactionBody<KeyLimitsResult> {
      const key = yield* keyById(db, keyId);
      if (key === undefined) return { outcome: "not_found" };
      const next = nextKeyLimits(key, changes);
      yield* step.changes(
        db.build
          .updateTable("api_keys")
          .set({ quote_rate_limit_per_minute: next.quote, swap_rate_limit_per_minute: next.swap, max_fee_bps: next.max_fee_bps })
          .where("id", "=", key.id),
      );
      yield* audit(db, key.integrator_id, key.id, "change_key_limits", limitChangeDetail(key, changes), by);
      return { outcome: "changed", integratorId: key.integrator_id };
    });
  }

  async revokeKey(keyId: number, by: OperatorAction): Promise<OperatorRevokeResult> {
    const db = this.#db;
    return db.transaction(function* (): TransactionBody<OperatorRevokeResult> {
      const key = yield* keyById(db, keyId);
      if (key === undefined) return { outcome: "not_found" };
      const revoked = yield* step.changes(db.build.updateTable("api_keys").set({ revoked_at: by.at.getTime() }).where("id", "=", keyId).where("revoked_at", "is", null));
      if (revoked === 0) return { outcome: "already_revoked" };
      yield* audit(db, key.integrator_id, key.id, "revoke_key", {}, by);
      return { outcome: "revoked", integratorId: key.integrator_id };
    });
  }

  async listAudit(integratorId: number): Promise<AuditEntry[]> {
    const rows = await this.#db.rows(this.#db.build.selectFrom("integrator_audit").select(AUDIT_COLUMNS).where("integrator_id", "=", integratorId).orderBy("id"));
    return rows.map(auditFromRow);
  }

  async close(): Promise<void> {
    await this.#close();
  }
}

function* profileBySlug(db: SqlDatabase<ApiSchema>, slug: string): TransactionBody<ProfileLimitsRow | undefined> {
  const select = db.build.selectFrom("integrators").select(PROFILE_LIMITS_COLUMNS).where("slug", "=", slug);
  return yield* step.first(db.lockRows(select));
}

function* keyById(db: SqlDatabase<ApiSchema>, keyId: number): TransactionBody<KeyLimitsRow | undefined> {
  if (!Number.isSafeInteger(keyId) || keyId > MAX_INTEGER) return undefined;
  const select = db.build.selectFrom("api_keys").select(KEY_LIMITS_COLUMNS).where("id", "=", keyId);
  return yield* step.first(db.lockRows(select));
}

function* audit(db: SqlDatabase<ApiSchema>, integratorId: number, keyId: number | undefined, action: string, detail: Record<string, unknown>, by: OperatorAction): TransactionBody<void> {
  yield* step.changes(db.build.insertInto("integrator_audit").values(auditParams(integratorId, keyId, action, detail, by)));
}
