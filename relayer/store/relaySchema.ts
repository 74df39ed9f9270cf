import type { ColumnType, Generated } from "kysely";
import type { UnpaidGasCause, UnpaidGasKind } from "../ledger/unpaidGas";
import type { RelayStatus } from "../../sdk";
import type { SignerState, TopUpStatus } from "./relayStore";

/** The states the column holds (its CHECK since migration 10): `retired` is `drained` plus the `retired` flag. */
export type StoredSignerState = Exclude<SignerState, "retired">;

/**
 * The relayer's tables as both engines hold them at their latest migration (relayMigrations.ts,
 * which stays the source of the schema): times in milliseconds since the
 * epoch, addresses lowercase hex, wei as decimal text. PostgreSQL's BIGINT reads back as a number
 * (postgresPool.ts), so one row type serves both. Tables join this as their queries are written once
 * with Kysely (sdk/storage/sqlDatabase.ts).
 */
export interface RelaySchema {
  relays: RelaysTable;
  relay_transactions: RelayTransactionsTable;
  relayer_meta: RelayerMetaTable;
  relayer_signers: SignersTable;
  relayer_signer_states: SignerStatesTable;
  relayer_topups: TopUpsTable;
  unpaid_gas: UnpaidGasTable;
}

/** A relay: what the taker signed, where it stands, and which relayer holds it until when (relayRows.ts maps it). */
export interface RelaysTable {
  id: string;
  chain_id: number;
  quote_id: string;
  onchain_quote_id: string;
  integrator_id: number;
  api_key_id: number;
  idempotency_key: string | null;
  taker: string;
  router: string;
  data: string;
  signature: string;
  permit2_nonce: string;
  deadline: number;
  estimated_gas: number;
  fee_wei: string | null;
  accepted_block: number;
  status: RelayStatus;
  reason: string | null;
  error: string | null;
  signer: string | null;
  signer_nonce: number | null;
  cancelling: ColumnType<number, number | undefined, number>;
  cancel_requested_at: number | null;
  claimed_by: string | null;
  lease_until: number | null;
  created_at: number;
  updated_at: number;
}

/** Every transaction broadcast for a relay; a batch's one transaction has a row on each relay it carries. */
export interface RelayTransactionsTable {
  /** PostgreSQL's identity, the order rows were recorded in; SQLite has none (its rowid serves: `fn.insertionOrder`). */
  seq: ColumnType<number | undefined, never, never>;
  hash: string;
  relay_id: string;
  kind: "swap" | "cancel";
  signer: string;
  nonce: number;
  /** The signed bytes; null for a fill by a transaction we did not sign. */
  raw: string | null;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  sent_at: number;
  mined: number;
  batch_position: number | null;
  batch_size: number | null;
}

/** Facts about the chain the relays belong to (`chain_run`: the deployment's block hash). */
export interface RelayerMetaTable {
  key: string;
  value: string;
}

/** Which relayer uses a signer address, and until when it counts as live unless it renews. */
export interface SignersTable {
  signer: string;
  relayer_id: string;
  live_until: number;
}

export interface SignerStatesTable {
  signer: string;
  /** A retired signer is stored `drained` with `retired` 1, as relayers from before retirement read it. */
  state: ColumnType<StoredSignerState, StoredSignerState | undefined, StoredSignerState>;
  retired: ColumnType<number, number | undefined, number>;
  state_changed_at: number | null;
  /** What the relayer holding the signer last reported; null until one did. */
  relayer_id: string | null;
  backend: string | null;
  balance_wei: string | null;
  pending: number | null;
  daily_spend_wei: string | null;
  reported_at: number | null;
  /** The key entry an operator added (`relayer-admin signers add`), and the relayer meant to open it (null: any). */
  key_entry: string | null;
  key_relayer_id: string | null;
}

export interface TopUpsTable {
  id: Generated<number>;
  signer: string;
  treasury: string;
  amount_wei: string;
  nonce: number;
  raw_tx: string;
  tx_hash: string;
  status: TopUpStatus;
  created_at: number;
  updated_at: number;
}

export interface UnpaidGasTable {
  seq: Generated<number>;
  tx_hash: string;
  relay_id: string;
  kind: UnpaidGasKind;
  cause: UnpaidGasCause;
  taker: string;
  integrator_id: number;
  /** Written as a bigint; read back as a number. */
  gas_used: ColumnType<number, bigint, bigint>;
  gas_price: string;
  charged_at: number;
  detail: string;
  cleared_taker: Generated<number>;
  cleared_integrator: Generated<number>;
}
