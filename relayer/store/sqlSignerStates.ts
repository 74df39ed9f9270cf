import type { Selectable } from "kysely";
import { getAddress, type Address } from "viem";
import { step, type SqlDatabase } from "../../sdk/storage/sqlDatabase";
import type { RelaySchema, SignerStatesTable } from "./relaySchema";
import type { AddedSignerKey, SignerReport, SignerState, SignerStateRecord } from "./relayStore";

/**
 * The signer registry (relayer_signer_states), written once for SQLite and PostgreSQL: the
 * operator's drain/resume/retire decision per signer address, the keys an operator added to running
 * relayers, and what the relayer holding each last reported (backend, balance, pending nonces, daily spend).
 */
export class SqlSignerStates {
  readonly #db: SqlDatabase<RelaySchema>;

  constructor(db: SqlDatabase<RelaySchema>) {
    this.#db = db;
  }

  async setSignerState(signer: Address, state: SignerState, at: Date): Promise<void> {
    await this.#db.changes(
      this.#db.build
        .insertInto("relayer_signer_states")
        .values({ signer: signer.toLowerCase(), state: state === "retired" ? "drained" : state, retired: state === "retired" ? 1 : 0, state_changed_at: at.getTime() })
        .onConflict((conflict) =>
          conflict.column("signer").doUpdateSet((eb) => ({ state: eb.ref("excluded.state"), retired: eb.ref("excluded.retired"), state_changed_at: eb.ref("excluded.state_changed_at") })),
        ),
    );
  }

  async addSignerKey(signer: Address, key: AddedSignerKey, at: Date): Promise<void> {
    await this.#db.changes(
      this.#db.build
        .insertInto("relayer_signer_states")
        .values({ signer: signer.toLowerCase(), state: "active", retired: 0, state_changed_at: at.getTime(), key_entry: key.entry, key_relayer_id: key.relayerId ?? null })
        .onConflict((conflict) =>
          conflict.column("signer").doUpdateSet((eb) => ({
            state: eb.ref("excluded.state"),
            retired: eb.ref("excluded.retired"),
            state_changed_at: eb.ref("excluded.state_changed_at"),
            key_entry: eb.ref("excluded.key_entry"),
            key_relayer_id: eb.ref("excluded.key_relayer_id"),
          })),
        ),
    );
  }

  async signerStates(): Promise<SignerStateRecord[]> {
    return (await this.#db.rows(this.#db.build.selectFrom("relayer_signer_states").selectAll().orderBy("signer"))).map(signerStateFromRow);
  }

  /** Upserts each report without touching the operator's decision. */
  async reportSigners(relayerId: string, reports: readonly SignerReport[], at: Date): Promise<void> {
    const upserts = reports.map((report) =>
      this.#db.build
        .insertInto("relayer_signer_states")
        .values({
          signer: report.signer.toLowerCase(),
          relayer_id: relayerId,
          backend: report.backend,
          balance_wei: report.balanceWei?.toString() ?? null,
          pending: report.pending,
          daily_spend_wei: report.dailySpendWei.toString(),
          reported_at: at.getTime(),
        })
        .onConflict((conflict) =>
          conflict.column("signer").doUpdateSet((eb) => ({
            relayer_id: eb.ref("excluded.relayer_id"),
            backend: eb.ref("excluded.backend"),
            balance_wei: eb.ref("excluded.balance_wei"),
            pending: eb.ref("excluded.pending"),
            daily_spend_wei: eb.ref("excluded.daily_spend_wei"),
            reported_at: eb.ref("excluded.reported_at"),
          })),
        ),
    );
    await this.#db.transaction(function* () {
      for (const upsert of upserts) yield* step.changes(upsert);
    });
  }
}


function signerStateFromRow(row: Selectable<SignerStatesTable>): SignerStateRecord {
  return {
    signer: getAddress(row.signer),
    state: row.state !== "drained" ? "active" : Number(row.retired) === 1 ? "retired" : "drained",
    stateChangedAt: row.state_changed_at === null ? undefined : new Date(Number(row.state_changed_at)),
    added: row.key_entry === null ? undefined : { entry: row.key_entry, relayerId: row.key_relayer_id ?? undefined },
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
