import type { AuditEntry, OperatorAction } from "../integratorAdministration";
import { date } from "./msDate";

/** An `integrator_audit` row, as both engines return it (`detail` is JSON text). */
export type AuditRow = { id: number; integrator_id: number; key_id: number | null; action: string; detail: string; actor: string; at: number };

export const AUDIT_COLUMNS = ["id", "integrator_id", "key_id", "action", "detail", "actor", "at"] as const satisfies readonly (keyof AuditRow)[];

/** The row's values for an insert; the operator's reason, if any, goes into `detail`. */
export function auditParams(integratorId: number, keyId: number | undefined, action: string, detail: Record<string, unknown>, by: OperatorAction) {
  return {
    integrator_id: integratorId,
    key_id: keyId ?? null,
    action,
    detail: JSON.stringify(by.reason === undefined ? detail : { ...detail, reason: by.reason }),
    actor: by.actor,
    at: by.at.getTime(),
  };
}

export function auditFromRow(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    integratorId: row.integrator_id,
    keyId: row.key_id ?? undefined,
    action: row.action,
    detail: JSON.parse(row.detail) as Record<string, unknown>,
    actor: row.actor,
    at: date(row.at),
  };
}
