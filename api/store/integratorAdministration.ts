import type { IntegratorMove } from "./integratorLifecycle";
import type { IntegratorStatus } from "./store";

/** Who acts and when, recorded with every change; `reason` is free text for the trail. */
export type OperatorAction = Readonly<{ actor: string; at: Date; reason: string | undefined }>;

/** Limits an operator may change; an absent field stays as it is. */
export type LimitChanges = Readonly<{ quoteRateLimitPerMinute?: number; swapRateLimitPerMinute?: number; maxFeeBps?: number }>;

/** One line of a profile's audit trail. `detail` holds what changed (old and new values). */
export type AuditEntry = Readonly<{
  id: number;
  integratorId: number;
  keyId: number | undefined;
  action: string;
  detail: Readonly<Record<string, unknown>>;
  actor: string;
  at: Date;
}>;

export type StatusChangeResult =
  | { outcome: "changed"; from: IntegratorStatus; to: IntegratorStatus }
  | { outcome: "refused"; status: IntegratorStatus }
  | { outcome: "not_found" };

export type ProfileLimitsResult = { outcome: "changed"; keysUpdated: number } | { outcome: "not_found" };
export type KeyLimitsResult = { outcome: "changed"; integratorId: number } | { outcome: "not_found" };
export type OperatorRevokeResult = { outcome: "revoked"; integratorId: number } | { outcome: "already_revoked" } | { outcome: "not_found" };

/**
 * The operator's writes on profiles and keys (the CLI's, not the API's): each change and its audit
 * line are one transaction, so the trail never misses a change. Reads go through `Store`.
 */
export interface IntegratorAdministration {
  /** Applies a lifecycle move (integratorLifecycle.ts) if the profile's status allows it. */
  changeStatus(slug: string, move: IntegratorMove, by: OperatorAction): Promise<StatusChangeResult>;
  /** The profile's fee cap, and rate limits for its live keys and those created later. */
  changeProfileLimits(slug: string, changes: LimitChanges, by: OperatorAction): Promise<ProfileLimitsResult>;
  /** One key's rate limits, and its own fee cap (effective: the lower of it and the profile's). */
  changeKeyLimits(keyId: number, changes: LimitChanges, by: OperatorAction): Promise<KeyLimitsResult>;
  revokeKey(keyId: number, by: OperatorAction): Promise<OperatorRevokeResult>;
  /** The profile's trail, oldest first. */
  listAudit(integratorId: number): Promise<AuditEntry[]>;
  close(): Promise<void>;
}
