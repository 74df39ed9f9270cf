import type { Address, Hex } from "viem";
import type { OnboardingAction } from "../../sdk";
import type { ApiKeyScope } from "../apiKeyScopes";

/**
 * Everything the API keeps, behind one small interface so a PostgreSQL backend can replace SQLite
 * without touching the handlers. Methods are async for that reason even where SQLite is not.
 *
 * Writes that spend a nonce take a `ChallengeUse` and spend it in the same transaction as the write:
 * of two requests with one nonce exactly one succeeds, and a failed write leaves the nonce unspent.
 * Addresses come back checksummed; times are Dates.
 */
export interface Store {
  saveChallenge(challenge: NewChallenge): Promise<void>;
  findChallenge(nonce: string): Promise<ChallengeRecord | undefined>;
  /** Spends a nonce that guards no other write (viewing the profile). */
  consumeChallenge(use: ChallengeUse): Promise<ChallengeUseOutcome>;

  createIntegrator(integrator: NewIntegrator, use: ChallengeUse): Promise<CreateIntegratorResult>;
  findIntegrator(id: number): Promise<IntegratorRecord | undefined>;
  /** Every profile, or those of one owner wallet, oldest first. */
  listIntegrators(filter?: { ownerWallet?: Address }): Promise<IntegratorRecord[]>;
  approveIntegrator(slug: string, approvedAt: Date): Promise<ApproveIntegratorResult>;

  createApiKey(key: NewApiKey, use: ChallengeUse): Promise<CreateApiKeyResult>;
  findApiKey(id: number): Promise<ApiKeyRecord | undefined>;
  /** Keys of these profiles, oldest first; metadata only, never the secret hash. */
  listApiKeys(integratorIds: readonly number[]): Promise<ApiKeyRecord[]>;
  revokeApiKey(keyId: number, revokedAt: Date, use: ChallengeUse): Promise<RevokeApiKeyResult>;
  /** Keys whose public prefix matches, with their hash and profile, for authentication. */
  findCredentialsByPrefix(prefix: string): Promise<ApiKeyCredential[]>;

  close(): Promise<void>;
}

export type ChallengeUse = { nonce: string; at: Date };

/** Spent now, or why not: already spent, or expired in the meantime. */
export type ChallengeUseOutcome = "consumed" | "used" | "expired";

export type NewChallenge = {
  nonce: string;
  wallet: Address;
  action: OnboardingAction;
  chainId: number;
  payloadHash: Hex | undefined;
  message: string;
  issuedAt: Date;
  expiresAt: Date;
};

export type ChallengeRecord = NewChallenge & { usedAt: Date | undefined };

export type IntegratorStatus = "pending" | "active";

export type NewIntegrator = {
  slug: string;
  ownerWallet: Address;
  displayName: string;
  contactEmail: string | undefined;
  telegramHandle: string | undefined;
  appUrl: string | undefined;
  feeRecipient: Address;
  maxFeeBps: number;
  chainId: number | undefined;
  status: IntegratorStatus;
  createdAt: Date;
};

export type IntegratorRecord = NewIntegrator & { id: number; approvedAt: Date | undefined };

export type NewApiKey = {
  integratorId: number;
  label: string;
  prefix: string;
  lastFour: string;
  /** sha256 of the whole secret, lowercase hex. */
  secretHash: string;
  scopes: readonly ApiKeyScope[];
  quoteRateLimitPerMinute: number;
  swapRateLimitPerMinute: number;
  createdAt: Date;
};

export type ApiKeyRecord = Omit<NewApiKey, "secretHash"> & { id: number; revokedAt: Date | undefined };

export type ApiKeyCredential = { key: ApiKeyRecord; secretHash: string; integrator: IntegratorRecord };

/** The store refused to spend the nonce: a concurrent request spent it first, or it expired meanwhile. */
export type NonceRejected = { outcome: "nonce_used" | "nonce_expired" };

export type CreateIntegratorResult = { outcome: "created"; integrator: IntegratorRecord } | { outcome: "slug_taken" } | NonceRejected;

export type CreateApiKeyResult =
  | { outcome: "created"; key: ApiKeyRecord }
  | { outcome: "integrator_not_found" }
  | { outcome: "integrator_not_active" }
  | NonceRejected;

export type RevokeApiKeyResult =
  | { outcome: "revoked"; key: ApiKeyRecord }
  | { outcome: "not_found" }
  | { outcome: "already_revoked"; key: ApiKeyRecord }
  | NonceRejected;

export type ApproveIntegratorResult =
  | { outcome: "approved"; integrator: IntegratorRecord }
  | { outcome: "already_active"; integrator: IntegratorRecord }
  | { outcome: "not_found" };
