import type { TokenPermitOffer } from "../quote/response/tokenPermitOffer";
import type { Address, Hex } from "viem";
import type { ExactOutputOrder, ManifestPool, OnboardingAction, SwapOrder } from "../../sdk";
import type { ApiKeyScope } from "../apiKeyScopes";
import type { TransferTax } from "../tokens/transferTax";

/**
 * Everything the API keeps, behind one small interface so a PostgreSQL backend can replace SQLite
 * without touching the handlers. Methods are async for that reason even where SQLite is not.
 *
 * Writes that spend a nonce take a `ChallengeUse` and spend it in the same transaction as the write:
 * of two requests with one nonce exactly one succeeds, and a failed write leaves the nonce unspent.
 * Addresses come back checksummed; times are Dates.
 *
 * It is the sum of one interface per concern, each written once for both engines on a `SqlDatabase`
 * (`sql*.ts`); `composeStore` joins them, and each engine's store (`sqlite/`, `postgres/`) opens it.
 */
export interface Store extends ChallengeStore, IntegratorStore, TokenDemandStore, QuoteStore {
  /** A trivial round trip to the database, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** Onboarding challenges: one nonce per signed request. */
export interface ChallengeStore {
  saveChallenge(challenge: NewChallenge): Promise<void>;
  findChallenge(nonce: string): Promise<ChallengeRecord | undefined>;
  /** Spends a nonce that guards no other write (viewing the profile). */
  consumeChallenge(use: ChallengeUse): Promise<ChallengeUseOutcome>;
  /**
   * Counts a signature check that needs the chain (a contract wallet's, or one that did not recover
   * locally) against the nonce before it runs, as failed until `settleVerification` says otherwise;
   * refused once `limit` are counted, or when the nonce is spent or expired.
   */
  beginVerification(use: ChallengeUse, limit: number): Promise<VerificationStart>;
  /**
   * Ends a counted check: `valid` and `unavailable` give the count back (the signature was not
   * bad); `invalid` keeps it and, once `limit` are counted, spends the nonce.
   */
  settleVerification(use: ChallengeUse, outcome: "valid" | "unavailable" | "invalid", limit: number): Promise<void>;
}

/** Integrator profiles and their API keys; the writes spend the request's nonce in the same transaction. */
export interface IntegratorStore {
  createIntegrator(integrator: NewIntegrator, use: ChallengeUse): Promise<CreateIntegratorResult>;
  findIntegrator(id: number): Promise<IntegratorRecord | undefined>;
  /** Every profile, or those of one owner wallet, oldest first. */
  listIntegrators(filter?: { ownerWallet?: Address }): Promise<IntegratorRecord[]>;
  approveIntegrator(slug: string, approvedAt: Date): Promise<ApproveIntegratorResult>;

  /** Refused (`key_limit_reached`) when the profile already has `maxActiveKeys` keys that are not revoked. */
  createApiKey(key: NewApiKey, use: ChallengeUse, maxActiveKeys: number): Promise<CreateApiKeyResult>;
  findApiKey(id: number): Promise<ApiKeyRecord | undefined>;
  /** Keys of these profiles, oldest first; metadata only, never the secret hash. */
  listApiKeys(integratorIds: readonly number[]): Promise<ApiKeyRecord[]>;
  revokeApiKey(keyId: number, revokedAt: Date, use: ChallengeUse): Promise<RevokeApiKeyResult>;
  /** Keys whose public prefix matches, with their hash and profile, for authentication. */
  findCredentialsByPrefix(prefix: string): Promise<ApiKeyCredential[]>;
}

/** Demand for unsupported tokens, and the operator's and promotion's decisions on tokens. */
export interface TokenDemandStore {
  /** Adds buffered demand in one transaction; a known (chain, token, integrator) widens its first/last seen. */
  recordTokenDemand(observations: readonly TokenDemandObservation[]): Promise<void>;
  /** Forgets demand last seen before `before`; returns how many rows went. */
  pruneTokenDemand(before: Date): Promise<number>;
  /** Demand per (chain, token), counting integrators last seen at or after `since`; most integrators first. */
  listTokenDemand(query: TokenDemandQuery): Promise<TokenDemandSummary[]>;

  /** Operator and promotion decisions, oldest first; of one chain when given. */
  listTokenOverrides(chainId?: number): Promise<TokenOverride[]>;
  /**
   * Writes a decision. `replace` overwrites any earlier one (the operator's word is final);
   * `if_absent` writes only when the token has none of the same chain run (promotion never
   * overrides an operator, but a decision of an earlier run is stale).
   * Returns whether it was written.
   */
  saveTokenOverride(override: NewTokenOverride, mode: "replace" | "if_absent"): Promise<boolean>;
  /** Removes the decision on a token; returns whether there was one. */
  removeTokenOverride(chainId: number, token: Address): Promise<boolean>;
  /**
   * Turns a token `promoted` by demand on `chainRun` into `disabled` (source `demand`: demoted) with
   * the reason, keeping its symbol, decimals and pool for the operator; any other decision (the
   * operator's, made meanwhile) is left alone. Returns whether it was demoted.
   */
  demoteToken(demotion: TokenDemotion): Promise<boolean>;
}

/** Quotes served, found again by their UUID or by the bytes32 id of their fill. */
export interface QuoteStore {
  /**
   * Records a quote served (possibly batched with others; reads see it at once). Its on-chain id, the bytes32 in SwapSettled, is unique per chain.
   * A gasless quote's record is committed before this resolves (and it rejects if it cannot be): its submission, to any instance, needs it.
   */
  saveQuote(quote: QuoteRecord): Promise<void>;
  /** The quote a SwapSettled event's quote id belongs to. */
  findQuoteByOnchainId(chainId: number, onchainId: Hex): Promise<QuoteRecord | undefined>;
  /** A quote by its UUID (gasless submissions name it). */
  findQuote(quoteId: string): Promise<QuoteRecord | undefined>;
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

export type ChallengeRecord = NewChallenge & {
  usedAt: Date | undefined;
  /** Signature checks against the chain that failed or are running (see `beginVerification`). */
  failedVerifications: number;
};

/** Whether a counted signature check may run: yes, or why not (spent, too many failures, expired). */
export type VerificationStart = "started" | "used" | "used_up" | "expired";

/** See integratorLifecycle.ts for the operator's moves between them. */
export type IntegratorStatus = "pending" | "active" | "rejected" | "suspended";

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

export type IntegratorRecord = NewIntegrator & {
  id: number;
  approvedAt: Date | undefined;
  /** Rate limits the operator set for the profile's keys; undefined: the configured defaults. */
  quoteRateLimitPerMinute: number | undefined;
  swapRateLimitPerMinute: number | undefined;
  /**
   * When an operator approved the profile (`approve`) or confirmed an auto-approved one (`confirm`);
   * undefined for a profile no operator looked at. Only such profiles' demand counts toward promotion.
   */
  operatorApprovedAt: Date | undefined;
};

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

export type ApiKeyRecord = Omit<NewApiKey, "secretHash"> & {
  id: number;
  revokedAt: Date | undefined;
  /** The key's own fee cap set by the operator; the effective cap is the lower of it and the profile's. */
  maxFeeBps: number | undefined;
};

export type ApiKeyCredential = { key: ApiKeyRecord; secretHash: string; integrator: IntegratorRecord };

/** The store refused to spend the nonce: a concurrent request spent it first, or it expired meanwhile. */
export type NonceRejected = { outcome: "nonce_used" | "nonce_expired" };

export type CreateIntegratorResult = { outcome: "created"; integrator: IntegratorRecord } | { outcome: "slug_taken" } | NonceRejected;

export type CreateApiKeyResult =
  | { outcome: "created"; key: ApiKeyRecord }
  | { outcome: "integrator_not_found" }
  | { outcome: "integrator_not_active" }
  | { outcome: "key_limit_reached"; active: number }
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

/** One integrator's requests for an unsupported token, aggregated in memory between flushes. Token in lowercase. */
export type TokenDemandObservation = { chainId: number; token: Address; integratorId: number; firstSeen: Date; lastSeen: Date };

export type TokenDemandQuery = {
  chainId?: number;
  /** Integrators last seen before this do not count. */
  since: Date;
  /** Only tokens with at least this many counted integrators (default 1). */
  minIntegrators?: number;
  /** Count only integrators that are active and were approved or confirmed by an operator (promotion does). */
  operatorApprovedOnly?: boolean;
  /** Leave out tokens that already carry an operator or promotion decision (of `chainRun` when given). */
  withoutOverride?: boolean;
  chainRun?: Hex;
  /** At most this many rows (default 1000). */
  limit?: number;
};

export type TokenDemandSummary = { chainId: number; token: Address; integrators: number; firstSeen: Date; lastSeen: Date };

/**
 * How a token's support was changed by hand or by demand: `enabled` (operator) and `promoted`
 * (demand) add a token with the pool routing uses; `disabled` (operator) removes one.
 */
export type TokenStatus = "enabled" | "promoted" | "disabled";
export type TokenStatusSource = "operator" | "demand";

export type NewTokenOverride = {
  chainId: number;
  /** Lowercase. */
  token: Address;
  status: TokenStatus;
  source: TokenStatusSource;
  /** Read from the token at promotion or enabling; absent for `disabled`. */
  symbol: string | undefined;
  decimals: number | undefined;
  /** The pool recorded for routing; absent for `disabled`. */
  pool: ManifestPool | undefined;
  /**
   * The token's transfer taxes, measured through `pool` when it was promoted or enabled; absent for
   * `disabled` and on rows stored before taxes were measured (the API then measures it on start).
   */
  tax?: TransferTax | undefined;
  /** Free text for the operator (why it was disabled, which integrators asked). */
  reason: string | undefined;
  /**
   * The chain run the decision was made on: its manifest's deploy block hash. Decisions of another
   * run (a restarted devnet) do not apply; `undefined` only on rows stored before runs were recorded.
   */
  chainRun: Hex | undefined;
  at: Date;
};

export type TokenOverride = Omit<NewTokenOverride, "at"> & { createdAt: Date; updatedAt: Date };

/** A promoted token that failed its recheck. */
export type TokenDemotion = { chainId: number; token: Address; chainRun: Hex; reason: string; at: Date };

/** A quote as served: enough to attribute a fill to its integrator and compare it with the quote. */
export type QuoteRecord = {
  quoteId: string;
  chainId: number;
  /** The bytes32 quote id bound in the witness and emitted in SwapSettled. */
  onchainId: Hex;
  apiKeyId: number;
  integratorId: number;
  taker: Address;
  recipient: Address;
  sellToken: Address;
  buyToken: Address;
  sellAmount: bigint;
  buyAmount: bigint;
  minBuyAmount: bigint;
  feeAmount: bigint;
  settlement: "permit2" | "allowance";
  router: Address;
  blockNumber: bigint;
  expiresAt: Date;
  createdAt: Date;
  /** Gasless quotes: what `POST /gasless/submit` checks the signature against and hands to the relayer. */
  gasless?: GaslessTerms;
};

/** The signed terms of a gasless quote, kept so a submission is verified against exactly what was issued. */
export type GaslessTerms = {
  /** The signed order: exact-input, or exact-output (`maxSellAmount`, `buyAmount`: swapGaslessExactOutput). */
  order: SwapOrder | ExactOutputOrder;
  permit2Nonce: bigint;
  relayerFee: bigint;
  relayerFeeRecipient: Address;
  /** `tx.data` with the signature placeholder, and where the signature goes. */
  data: Hex;
  signatureOffset: number;
  estimatedGas: number;
  /**
   * What the relayer fee was worth in wei when quoted: the relayer's gas limit at the quoted gas price
   * with the margin (the relayer waits while the network asks more). Undefined when gas is sponsored.
   */
  feeWei?: bigint | undefined;
  /** `eip1271` when the taker has code and signs through its ERC-1271 check; absent for a plain key (65 bytes). */
  signatureKind?: "eip1271" | undefined;
  /** The EIP-2612 permit the quote offered as `approval`, which a submission's `approval_signature` signs. */
  tokenPermit?: TokenPermitOffer | undefined;
};
