import type { LimitChanges } from "../integratorAdministration";

/** The columns an operator's changes read on a profile and on a key, as both engines return them. */
export type ProfileLimitsRow = {
  id: number;
  status: string;
  max_fee_bps: number;
  quote_rate_limit_per_minute: number | null;
  swap_rate_limit_per_minute: number | null;
  operator_approved_at: number | null;
};
export type KeyLimitsRow = { id: number; integrator_id: number; revoked_at: number | null; quote_rate_limit_per_minute: number; swap_rate_limit_per_minute: number; max_fee_bps: number | null };

export const PROFILE_LIMITS_COLUMNS = ["id", "status", "max_fee_bps", "quote_rate_limit_per_minute", "swap_rate_limit_per_minute", "operator_approved_at"] as const satisfies readonly (keyof ProfileLimitsRow)[];
export const KEY_LIMITS_COLUMNS = ["id", "integrator_id", "revoked_at", "quote_rate_limit_per_minute", "swap_rate_limit_per_minute", "max_fee_bps"] as const satisfies readonly (keyof KeyLimitsRow)[];

type LimitColumns = Pick<ProfileLimitsRow | KeyLimitsRow, "max_fee_bps" | "quote_rate_limit_per_minute" | "swap_rate_limit_per_minute">;

/** A profile's limits after `changes`; an absent change keeps the stored value. */
export function nextProfileLimits(profile: ProfileLimitsRow, changes: LimitChanges) {
  return {
    max_fee_bps: changes.maxFeeBps ?? profile.max_fee_bps,
    quote: changes.quoteRateLimitPerMinute ?? profile.quote_rate_limit_per_minute,
    swap: changes.swapRateLimitPerMinute ?? profile.swap_rate_limit_per_minute,
  };
}

/** A key's limits after `changes`; an absent change keeps the stored value. */
export function nextKeyLimits(key: KeyLimitsRow, changes: LimitChanges) {
  return {
    quote: changes.quoteRateLimitPerMinute ?? key.quote_rate_limit_per_minute,
    swap: changes.swapRateLimitPerMinute ?? key.swap_rate_limit_per_minute,
    max_fee_bps: changes.maxFeeBps ?? key.max_fee_bps,
  };
}

/** The audit detail of a limit change: `{ field: [old, new] }` for each limit the change names. */
export function limitChangeDetail(before: LimitColumns, changes: LimitChanges): Record<string, [number | null, number]> {
  const detail: Record<string, [number | null, number]> = {};
  if (changes.maxFeeBps !== undefined) detail.max_fee_bps = [before.max_fee_bps, changes.maxFeeBps];
  if (changes.quoteRateLimitPerMinute !== undefined) detail.quote_rate_limit_per_minute = [before.quote_rate_limit_per_minute, changes.quoteRateLimitPerMinute];
  if (changes.swapRateLimitPerMinute !== undefined) detail.swap_rate_limit_per_minute = [before.swap_rate_limit_per_minute, changes.swapRateLimitPerMinute];
  return detail;
}
