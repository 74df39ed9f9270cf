import type { ColumnType, Generated } from "kysely";

/**
 * The API's tables as both engines hold them at their latest migration (apiMigrations.ts, which
 * stays the source of the schema): times in milliseconds since the epoch, addresses lowercase hex,
 * amounts decimal text. PostgreSQL's BIGINT reads back as a
 * number (postgresPool.ts), so one row type serves both. Tables join this as their queries are
 * written once with Kysely (sdk/storage/sqlDatabase.ts).
 */
export interface ApiSchema {
  challenges: ChallengesTable;
  integrators: IntegratorsTable;
  api_keys: ApiKeysTable;
  integrator_audit: IntegratorAuditTable;
  token_demand: TokenDemandTable;
  token_overrides: TokenOverridesTable;
  quotes: QuotesTable;
}

export interface ChallengesTable {
  nonce: string;
  wallet: string;
  action: string;
  chain_id: number;
  payload_hash: string | null;
  message: string;
  issued_at: number;
  expires_at: number;
  used_at: number | null;
  /** Contract-wallet verifications that failed or are running (SQLite version 7, PostgreSQL version 2). */
  failed_verifications: Generated<number>;
}

export interface ApiKeysTable {
  id: Generated<number>;
  integrator_id: number;
  label: string;
  prefix: string;
  last_four: string;
  secret_hash: string;
  /** JSON array of scope names. */
  scopes: string;
  quote_rate_limit_per_minute: number;
  swap_rate_limit_per_minute: number;
  created_at: number;
  revoked_at: number | null;
  max_fee_bps: number | null;
}

export interface IntegratorAuditTable {
  id: Generated<number>;
  integrator_id: number;
  key_id: number | null;
  action: string;
  /** JSON object. */
  detail: string;
  actor: string;
  at: number;
}

export interface IntegratorsTable {
  id: Generated<number>;
  slug: string;
  owner_wallet: string;
  display_name: string;
  contact_email: string | null;
  telegram_handle: string | null;
  app_url: string | null;
  fee_recipient: string;
  max_fee_bps: number;
  chain_id: number | null;
  status: "pending" | "active" | "rejected" | "suspended";
  created_at: number;
  approved_at: number | null;
  quote_rate_limit_per_minute: number | null;
  swap_rate_limit_per_minute: number | null;
  operator_approved_at: number | null;
}

export interface TokenDemandTable {
  chain_id: number;
  token: string;
  integrator_id: number;
  first_seen: number;
  last_seen: number;
}

export interface TokenOverridesTable {
  chain_id: number;
  token: string;
  status: "enabled" | "promoted" | "disabled";
  source: "operator" | "demand";
  symbol: string | null;
  decimals: number | null;
  pool_address: string | null;
  pool_token0: string | null;
  pool_token1: string | null;
  pool_fee_bps: number | null;
  reason: string | null;
  created_at: number;
  updated_at: number;
  chain_run: string | null;
  buy_tax_bps: number | null;
  sell_tax_bps: number | null;
  transfer_tax_bps: number | null;
}

export interface QuotesTable {
  id: Generated<number>;
  chain_id: number;
  onchain_id: string;
  quote_id: string;
  api_key_id: number;
  integrator_id: number;
  taker: string;
  recipient: string;
  sell_token: string;
  buy_token: string;
  sell_amount: string;
  buy_amount: string;
  min_buy_amount: string;
  fee_amount: string;
  settlement: "permit2" | "allowance";
  router: string;
  /** Written as a bigint; read back as a number. */
  block_number: ColumnType<number, bigint, bigint>;
  expires_at: number;
  created_at: number;
  gasless: string | null;
}
