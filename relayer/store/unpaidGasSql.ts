import { getAddress } from "viem";
import {
  INTEGRATOR_BUDGET_CAUSES,
  TAKER_BUDGET_CAUSES,
  type UnpaidGasCause,
  type UnpaidGasEntry,
  type UnpaidGasKind,
  type UnpaidGasSubject,
  type UnpaidGasTally,
  type UnpaidGasTotal,
} from "../ledger/unpaidGas";

/**
 * The unpaid-gas ledger's queries, written once for both engines: only the placeholders (`@name` on
 * SQLite, `$n` on PostgreSQL) and the exact-sum casts differ. Gas is an integer column (a sum of gas
 * fits 64 bits); the price is decimal text (gas × price may not), so wei is summed as a float.
 */
export type LedgerDialect = "sqlite" | "postgres";

const INSERT_COLUMNS = ["tx_hash", "relay_id", "kind", "cause", "taker", "integrator_id", "gas_used", "gas_price", "charged_at", "detail"] as const;

export function unpaidGasInsertSql(placeholders: readonly string[]): string {
  return `INSERT INTO unpaid_gas (${INSERT_COLUMNS.join(", ")}) VALUES (${placeholders.join(", ")}) ON CONFLICT (tx_hash, relay_id, kind) DO NOTHING`;
}

/** The insert's values, in INSERT_COLUMNS order (SQLite binds them by name too). */
export function unpaidGasParams(entry: UnpaidGasEntry): Record<(typeof INSERT_COLUMNS)[number], string | number | bigint> {
  return {
    tx_hash: entry.txHash.toLowerCase(),
    relay_id: entry.relayId,
    kind: entry.kind,
    cause: entry.cause,
    taker: entry.taker.toLowerCase(),
    integrator_id: entry.integratorId,
    gas_used: entry.gasUsed,
    gas_price: entry.gasPrice.toString(),
    charged_at: entry.at.getTime(),
    detail: entry.detail,
  };
}
export const UNPAID_GAS_INSERT_COLUMNS = INSERT_COLUMNS;

const causeList = (causes: readonly UnpaidGasCause[]) => causes.map((cause) => `'${cause}'`).join(", ");

/** What counts against a subject's budget: its causes, not cleared by an operator. `who` is the subject's placeholder. */
export function chargedFilter(kind: UnpaidGasSubject["kind"], who: string): string {
  return kind === "taker"
    ? `taker = ${who} AND cause IN (${causeList(TAKER_BUDGET_CAUSES)}) AND cleared_taker = 0`
    : `integrator_id = ${who} AND cause IN (${causeList(INTEGRATOR_BUDGET_CAUSES)}) AND cleared_integrator = 0`;
}

const sumText = (dialect: LedgerDialect, expression: string) => (dialect === "sqlite" ? `CAST(COALESCE(SUM(${expression}), 0) AS TEXT)` : `COALESCE(SUM(${expression}), 0)::text`);
const weiSum = (dialect: LedgerDialect) => (dialect === "sqlite" ? "TOTAL(gas_used * CAST(gas_price AS REAL))" : "COALESCE(SUM(gas_used::numeric * gas_price::numeric), 0)::float8");

/** Gas charged to one taker's and one integrator's budgets since a time. */
export function chargedSql(dialect: LedgerDialect, p: { taker: string; integrator: string; since: string }): string {
  return `SELECT (SELECT ${sumText(dialect, "gas_used")} FROM unpaid_gas WHERE ${chargedFilter("taker", p.taker)} AND charged_at >= ${p.since}) AS taker,
                 (SELECT ${sumText(dialect, "gas_used")} FROM unpaid_gas WHERE ${chargedFilter("integrator", p.integrator)} AND charged_at >= ${p.since}) AS integrator`;
}

/**
 * The time of the charge whose leaving the window brings the subject's charged gas down to `keep`
 * or less (oldest charges leave first); no row when it is there already. The budget frees up one
 * window after that time.
 */
export function releaseAtSql(dialect: LedgerDialect, kind: UnpaidGasSubject["kind"], p: { who: string; since: string; keep: string }): string {
  const keep = dialect === "sqlite" ? p.keep : `${p.keep}::numeric`;
  return `SELECT charged_at FROM (
      SELECT charged_at, SUM(gas_used) OVER (ORDER BY charged_at, seq ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS gone, SUM(gas_used) OVER () AS total
      FROM unpaid_gas WHERE ${chargedFilter(kind, p.who)} AND charged_at >= ${p.since}) charged
    WHERE total > ${keep} AND total - gone <= ${keep} ORDER BY charged_at LIMIT 1`;
}

/** The ledger by cause and kind since a time, of one integrator or of all (`integrator` bound to NULL). */
export function totalsSql(dialect: LedgerDialect, p: { since: string; integrator: string }): string {
  const integrator = dialect === "sqlite" ? p.integrator : `${p.integrator}::integer`;
  return `SELECT cause, kind, COUNT(*) AS entries, ${sumText(dialect, "gas_used")} AS gas_used, ${weiSum(dialect)} AS wei_paid FROM unpaid_gas
    WHERE charged_at >= ${p.since} AND (${integrator} IS NULL OR integrator_id = ${integrator}) GROUP BY cause, kind ORDER BY cause, kind`;
}

export type UnpaidGasTotalRow = { cause: UnpaidGasCause; kind: UnpaidGasKind; entries: number | string; gas_used: string; wei_paid: number | string };

export function unpaidGasTotalFromRow(row: UnpaidGasTotalRow): UnpaidGasTotal {
  return { cause: row.cause, kind: row.kind, entries: Number(row.entries), gasUsed: BigInt(row.gas_used), weiPaid: Number(row.wei_paid) };
}

/** Takers and integrators with gas charged to their budgets since `since`, most gas first. */
export function talliesSql(dialect: LedgerDialect, since: string): string {
  const gas = sumText(dialect, "gas_used");
  const order = "SUM(gas_used)";
  return `SELECT kind, subject, gas_used, entries, last_at FROM (
      SELECT 'taker' AS kind, taker AS subject, ${gas} AS gas_used, ${order} AS sort_gas, COUNT(*) AS entries, MAX(charged_at) AS last_at FROM unpaid_gas
        WHERE cause IN (${causeList(TAKER_BUDGET_CAUSES)}) AND cleared_taker = 0 AND charged_at >= ${since} GROUP BY taker
      UNION ALL
      SELECT 'integrator' AS kind, CAST(integrator_id AS TEXT) AS subject, ${gas} AS gas_used, ${order} AS sort_gas, COUNT(*) AS entries, MAX(charged_at) AS last_at FROM unpaid_gas
        WHERE cause IN (${causeList(INTEGRATOR_BUDGET_CAUSES)}) AND cleared_integrator = 0 AND charged_at >= ${since} GROUP BY integrator_id) tallies
    ORDER BY sort_gas DESC, kind, subject`;
}

export type UnpaidGasTallyRow = { kind: "taker" | "integrator"; subject: string; gas_used: string; entries: number | string; last_at: number | string };

export function unpaidGasTallyFromRow(row: UnpaidGasTallyRow): UnpaidGasTally {
  return {
    kind: row.kind,
    subject: row.kind === "taker" ? getAddress(row.subject) : row.subject,
    gasUsed: BigInt(row.gas_used),
    entries: Number(row.entries),
    lastAt: new Date(Number(row.last_at)),
  };
}

/** Clears a subject's charges, the entries its budget counts (kept on record, no longer counted). */
export function clearSql(kind: UnpaidGasSubject["kind"], who: string): string {
  return kind === "taker"
    ? `UPDATE unpaid_gas SET cleared_taker = 1 WHERE ${chargedFilter("taker", who)}`
    : `UPDATE unpaid_gas SET cleared_integrator = 1 WHERE ${chargedFilter("integrator", who)}`;
}

/** The subject's placeholder value. */
export function subjectValue(subject: UnpaidGasSubject): string | number {
  return subject.kind === "taker" ? subject.taker.toLowerCase() : subject.integratorId;
}
