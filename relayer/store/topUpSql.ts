import { getAddress, type Hex } from "viem";
import type { TopUpRecord, TopUpStatus } from "./relayStore";

/**
 * The treasury's top-up ledger both engines share (relayer_topups). `p` gives a dialect's
 * placeholders ("@a" on SQLite, "$1" on PostgreSQL).
 */
export const TOP_UP_COLUMNS = ["signer", "treasury", "amount_wei", "nonce", "raw_tx", "tx_hash", "status", "created_at", "updated_at"] as const;

export function insertTopUpSql(placeholders: readonly string[]): string {
  return `INSERT INTO relayer_topups (${TOP_UP_COLUMNS.join(", ")}) VALUES (${placeholders.join(", ")}) RETURNING id`;
}

export function setTopUpStatusSql(p: readonly [string, string, string]): string {
  return `UPDATE relayer_topups SET status = ${p[1]}, updated_at = ${p[2]} WHERE id = ${p[0]}`;
}

/** Newest first; those created at or after `p[0]` (0 for all), at most `p[1]`. */
export function listTopUpsSql(p: readonly [string, string]): string {
  return `SELECT id, ${TOP_UP_COLUMNS.join(", ")} FROM relayer_topups WHERE created_at >= ${p[0]} ORDER BY id DESC LIMIT ${p[1]}`;
}

export const UNFINISHED_TOP_UPS_SQL = `SELECT id, ${TOP_UP_COLUMNS.join(", ")} FROM relayer_topups WHERE status IN ('intent', 'sent') ORDER BY id`;

export type TopUpRow = {
  id: number | string;
  signer: string;
  treasury: string;
  amount_wei: string;
  nonce: number | string;
  raw_tx: string;
  tx_hash: string;
  status: string;
  created_at: number | string;
  updated_at: number | string;
};

export function topUpFromRow(row: TopUpRow): TopUpRecord {
  return {
    id: Number(row.id),
    signer: getAddress(row.signer),
    treasury: getAddress(row.treasury),
    amountWei: BigInt(row.amount_wei),
    nonce: Number(row.nonce),
    rawTx: row.raw_tx as Hex,
    txHash: row.tx_hash as Hex,
    status: row.status as TopUpStatus,
    createdAt: new Date(Number(row.created_at)),
    updatedAt: new Date(Number(row.updated_at)),
  };
}
