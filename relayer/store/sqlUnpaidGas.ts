import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { getAddress, type Address } from "viem";
import type { SqlDatabase } from "../../sdk/storage/sqlDatabase";
import {
  INTEGRATOR_BUDGET_CAUSES,
  TAKER_BUDGET_CAUSES,
  type UnpaidGasCharged,
  type UnpaidGasEntry,
  type UnpaidGasSubject,
  type UnpaidGasTally,
  type UnpaidGasTotal,
} from "../ledger/unpaidGas";
import type { RelaySchema } from "./relaySchema";

type Ledger = ExpressionBuilder<RelaySchema, "unpaid_gas">;

/**
 * The unpaid-gas ledger, written once for SQLite and PostgreSQL. Gas is an integer column (a sum of
 * gas fits 64 bits) summed exactly and read as decimal text; the price is decimal text (gas × price
 * may not fit), so wei is summed exactly where the engine has decimals and as a float where not.
 */
export class SqlUnpaidGas {
  readonly #db: SqlDatabase<RelaySchema>;

  constructor(db: SqlDatabase<RelaySchema>) {
    this.#db = db;
  }

  /** Idempotent on (tx_hash, relay_id, kind): true when this call wrote the entry. */
  async recordUnpaidGas(entry: UnpaidGasEntry): Promise<boolean> {
    const insert = this.#db.build
      .insertInto("unpaid_gas")
      .values({
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
      })
      .onConflict((conflict) => conflict.columns(["tx_hash", "relay_id", "kind"]).doNothing());
    return (await this.#db.changes(insert)) === 1;
  }

  /** Gas charged to one taker's and one integrator's budgets since a time. */
  async unpaidGasCharged(query: { taker: Address; integratorId: number; since: Date }): Promise<UnpaidGasCharged> {
    const since = query.since.getTime();
    const charged = (eb: ExpressionBuilder<RelaySchema, never>, subject: UnpaidGasSubject) =>
      eb.selectFrom("unpaid_gas").select(gasText).where((ledger) => chargedTo(ledger, subject)).where("charged_at", ">=", since);
    const row = await this.#db.first(
      this.#db.build.selectNoFrom((eb) => [
        charged(eb, { kind: "taker", taker: query.taker }).as("taker"),
        charged(eb, { kind: "integrator", integratorId: query.integratorId }).as("integrator"),
      ]),
    );
    return { taker: BigInt(row?.taker ?? 0), integrator: BigInt(row?.integrator ?? 0) };
  }

  /**
   * The time of the charge whose leaving the window brings the subject's charged gas down to `keep`
   * or less (oldest charges leave first); undefined when it is there already. The budget frees up one
   * window after that time. (charged_at, seq) is unique, so the running sum's default frame ends at
   * the current row.
   */
  async unpaidGasReleaseAt(subject: UnpaidGasSubject, query: { since: Date; keep: bigint }): Promise<Date | undefined> {
    const charged = this.#db.build
      .selectFrom("unpaid_gas")
      .where((eb) => chargedTo(eb, subject))
      .select((eb) => [
        "charged_at",
        eb.fn.sum("gas_used").over((over) => over.orderBy("charged_at").orderBy("seq")).as("gone"),
        eb.fn.sum("gas_used").over().as("total"),
      ])
      .where("charged_at", ">=", query.since.getTime());
    const row = await this.#db.first(
      this.#db.build
        .selectFrom(charged.as("charged"))
        .select("charged_at")
        .where("total", ">", query.keep)
        .where((eb) => eb(eb("total", "-", eb.ref("gone")), "<=", query.keep))
        .orderBy("charged_at")
        .limit(1),
    );
    return row === undefined ? undefined : new Date(Number(row.charged_at));
  }

  /** The ledger by cause and kind since a time (all time without it), of one integrator or of all; cleared charges included. */
  async unpaidGasTotals(query: { since?: Date; integratorId?: number }): Promise<UnpaidGasTotal[]> {
    const { exactDecimals } = this.#db.capabilities;
    const weiPaid = exactDecimals
      ? sql<number>`COALESCE(SUM(gas_used::numeric * gas_price::numeric), 0)::float8`
      : sql<number>`TOTAL(gas_used * CAST(gas_price AS REAL))`;
    let select = this.#db.build
      .selectFrom("unpaid_gas")
      .select((eb) => ["cause", "kind", eb.fn.countAll<number>().as("entries"), gasText(eb), weiPaid.as("wei_paid")])
      .where("charged_at", ">=", query.since?.getTime() ?? 0);
    if (query.integratorId !== undefined) select = select.where("integrator_id", "=", query.integratorId);
    const rows = await this.#db.rows(select.groupBy(["cause", "kind"]).orderBy("cause").orderBy("kind"));
    return rows.map((row) => ({ cause: row.cause, kind: row.kind, entries: Number(row.entries), gasUsed: BigInt(row.gas_used), weiPaid: Number(row.wei_paid) }));
  }

  /** Takers and integrators with gas charged to their budgets since `since` (not cleared), most gas first. */
  async listUnpaidGasTallies(since: Date): Promise<UnpaidGasTally[]> {
    const { build } = this.#db;
    const tally = (eb: Ledger) => [gasText(eb), eb.fn.sum("gas_used").as("sort_gas"), eb.fn.countAll<number>().as("entries"), eb.fn.max("charged_at").as("last_at")] as const;
    const takers = build
      .selectFrom("unpaid_gas")
      .select((eb) => [sql.lit<"taker" | "integrator">("taker").as("kind"), eb.ref("taker").as("subject"), ...tally(eb)])
      .where("cause", "in", TAKER_BUDGET_CAUSES)
      .where("cleared_taker", "=", 0)
      .where("charged_at", ">=", since.getTime())
      .groupBy("taker");
    const integrators = build
      .selectFrom("unpaid_gas")
      .select((eb) => [sql.lit<"taker" | "integrator">("integrator").as("kind"), eb.cast<string>("integrator_id", "text").as("subject"), ...tally(eb)])
      .where("cause", "in", INTEGRATOR_BUDGET_CAUSES)
      .where("cleared_integrator", "=", 0)
      .where("charged_at", ">=", since.getTime())
      .groupBy("integrator_id");
    const rows = await this.#db.rows(
      build
        .selectFrom(takers.unionAll(integrators).as("tallies"))
        .select(["kind", "subject", "gas_used", "entries", "last_at"])
        .orderBy("sort_gas", "desc")
        .orderBy("kind")
        .orderBy("subject"),
    );
    return rows.map((row) => ({
      kind: row.kind,
      subject: row.kind === "taker" ? getAddress(row.subject) : row.subject,
      gasUsed: BigInt(row.gas_used),
      entries: Number(row.entries),
      lastAt: new Date(Number(row.last_at)),
    }));
  }

  /** Clears a subject's charges, the entries its budget counts (kept on record, no longer counted); returns how many. */
  async clearUnpaidGas(subject: UnpaidGasSubject): Promise<number> {
    const cleared = subject.kind === "taker" ? { cleared_taker: 1 } : { cleared_integrator: 1 };
    return this.#db.changes(this.#db.build.updateTable("unpaid_gas").set(cleared).where((eb) => chargedTo(eb, subject)));
  }
}

/** What counts against a subject's budget: its causes, not cleared by an operator. */
function chargedTo(eb: Ledger, subject: UnpaidGasSubject): Expression<SqlBool> {
  return subject.kind === "taker"
    ? eb.and([eb("taker", "=", subject.taker.toLowerCase()), eb("cause", "in", TAKER_BUDGET_CAUSES), eb("cleared_taker", "=", 0)])
    : eb.and([eb("integrator_id", "=", subject.integratorId), eb("cause", "in", INTEGRATOR_BUDGET_CAUSES), eb("cleared_integrator", "=", 0)]);
}

/** Gas summed exactly, as decimal text (0 when there is none), as `gas_used`. */
function gasText(eb: Ledger) {
  return eb.cast<string>(eb.fn.coalesce(eb.fn.sum("gas_used"), sql.lit(0)), "text").as("gas_used");
}
