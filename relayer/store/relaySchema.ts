import type { ColumnType, Generated } from "kysely";
import type { UnpaidGasCause, UnpaidGasKind } from "../ledger/unpaidGas";
import type { SignerState, TopUpStatus } from "./relayStore";

/** The states the column holds (its CHECK since migration 10): `retired` is `drained` plus the `retired` flag. */
export type StoredSignerState = Exclude<SignerState, "retired">;

/**
 * The relayer's tables as both engines hold them at their latest migration (relayMigrations.ts and
 * postgresRelayMigrations.ts, which stay the source of the schema): times in milliseconds since the
 * epoch, addresses lowercase hex, wei as decimal text. PostgreSQL's BIGINT reads back as a number
 * (postgresPool.ts), so one row type serves both. Tables join this as their queries are written once
 * with Kysely (sdk/storage/sqlDatabase.ts).
 */
export interface RelaySchema {
  relays: RelaysTable;
  relayer_signers: SignersTable;
  relayer_signer_states: SignerStatesTable;
  relayer_topups: TopUpsTable;
  unpaid_gas: UnpaidGasTable;
}

/** The relays, as far as the queries written once read them (the engines' relay stores read the rest raw). */
export interface RelaysTable {
  id: string;
  status: string;
  signer: string | null;
  claimed_by: string | null;
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
