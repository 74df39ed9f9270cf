import type { NonceRejected, VerificationStart } from "./store";

/**
 * How both engines spend an onboarding nonce together with the write it guards: the nonce is spent
 * first, in the write's transaction, and a write that declines to commit rolls the spend back.
 */

/** Spent challenges are kept this long past their expiry, so a late replay still reads "used"/"expired", not "unknown". */
export const CHALLENGE_RETENTION_MS = 24 * 60 * 60 * 1000;

/** What a write that spends a nonce decided: commit its result, or roll back and report it. */
export type Written<Result> = { commit: boolean; result: Result };

/** Thrown inside a transaction to roll it back while still returning a result. */
export class Rollback {
  constructor(readonly result: unknown) {}
}

export function nonceRejected(outcome: "used" | "expired"): NonceRejected {
  return { outcome: outcome === "used" ? "nonce_used" : "nonce_expired" };
}

/** Why a counted signature check may not start, from the challenge row as it is now. */
export function verificationRefusal(row: { used_at: number | string | null; failed_verifications: number } | undefined, limit: number): VerificationStart {
  if (row === undefined) return "expired";
  if (Number(row.failed_verifications) >= limit) return "used_up";
  return row.used_at != null ? "used" : "expired";
}
