import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * API key secrets: `tsk_` followed by 64 lowercase hex digits (256 random bits). The first 16
 * characters are the public `prefix` (stored, shown, and used to find the key); the whole secret is
 * stored only as its sha256, which is enough for a random secret of this size (no password stretching
 * needed), and compared in constant time.
 */
export const API_KEY_SECRET_PREFIX = "tsk_";
const SECRET_PATTERN = /^tsk_[0-9a-f]{64}$/;
const PREFIX_LENGTH = API_KEY_SECRET_PREFIX.length + 12;

export type GeneratedApiKey = { apiKey: string; prefix: string; lastFour: string; secretHash: string };

export function generateApiKey(): GeneratedApiKey {
  const apiKey = `${API_KEY_SECRET_PREFIX}${randomBytes(32).toString("hex")}`;
  return { apiKey, prefix: apiKey.slice(0, PREFIX_LENGTH), lastFour: apiKey.slice(-4), secretHash: hashApiKey(apiKey) };
}

export function hashApiKey(apiKey: string): string {
  return createHash("sha256").update(apiKey, "utf8").digest("hex");
}

/** The public prefix of a well-formed secret, or undefined for anything that cannot be one of our keys. */
export function apiKeyPrefixOf(candidate: string): string | undefined {
  return SECRET_PATTERN.test(candidate) ? candidate.slice(0, PREFIX_LENGTH) : undefined;
}

/** What reads show instead of the secret: the prefix, a fixed run of stars, and the last four digits. */
export function maskApiKey(prefix: string, lastFour: string): string {
  return `${prefix}${"*".repeat(8)}${lastFour}`;
}

/** Constant-time equality of two hex sha256 digests. */
export function secretHashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
