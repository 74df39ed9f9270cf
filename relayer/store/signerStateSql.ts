import { getAddress } from "viem";
import type { SignerStateRecord } from "./relayStore";

/**
 * The signer registry both engines share (relayer_signer_states): the operator's drain/resume
 * decision per signer address, and what the relayer holding it last reported (backend, balance,
 * pending nonces, daily spend). `p` gives a dialect's placeholders ("@a" on SQLite, "$1" on PostgreSQL).
 */
export function setSignerStateSql(p: readonly [string, string, string]): string {
  return `INSERT INTO relayer_signer_states (signer, state, state_changed_at) VALUES (${p.join(", ")})
    ON CONFLICT (signer) DO UPDATE SET state = excluded.state, state_changed_at = excluded.state_changed_at`;
}

export const SIGNER_REPORT_COLUMNS = ["signer", "relayer_id", "backend", "balance_wei", "pending", "daily_spend_wei", "reported_at"] as const;

/** Upserts a relayer's report on one signer without touching the operator's decision. */
export function reportSignerSql(placeholders: readonly string[]): string {
  return `INSERT INTO relayer_signer_states (${SIGNER_REPORT_COLUMNS.join(", ")}) VALUES (${placeholders.join(", ")})
    ON CONFLICT (signer) DO UPDATE SET ${SIGNER_REPORT_COLUMNS.slice(1).map((column) => `${column} = excluded.${column}`).join(", ")}`;
}

export const LIST_SIGNER_STATES_SQL = `SELECT signer, state, state_changed_at, relayer_id, backend, balance_wei, pending, daily_spend_wei, reported_at
  FROM relayer_signer_states ORDER BY signer`;

export type SignerStateRow = {
  signer: string;
  state: string;
  state_changed_at: number | string | null;
  relayer_id: string | null;
  backend: string | null;
  balance_wei: string | null;
  pending: number | null;
  daily_spend_wei: string | null;
  reported_at: number | string | null;
};

export function signerStateFromRow(row: SignerStateRow): SignerStateRecord {
  return {
    signer: getAddress(row.signer),
    state: row.state === "drained" ? "drained" : "active",
    stateChangedAt: row.state_changed_at === null ? undefined : new Date(Number(row.state_changed_at)),
    report:
      row.reported_at === null || row.relayer_id === null
        ? undefined
        : {
            relayerId: row.relayer_id,
            backend: row.backend ?? "unknown",
            balanceWei: row.balance_wei === null ? undefined : BigInt(row.balance_wei),
            pending: row.pending ?? 0,
            dailySpendWei: BigInt(row.daily_spend_wei ?? "0"),
            at: new Date(Number(row.reported_at)),
          },
  };
}
