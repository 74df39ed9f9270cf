import type { Address } from "viem";
import { step, type SqlDatabase } from "../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "./apiSchema";
import { demandFromRow, demandParams, tokenOverrideFromRow, tokenOverrideParams } from "./rows/tokenRows";
import type { NewTokenOverride, TokenDemandObservation, TokenDemandQuery, TokenDemandStore, TokenDemandSummary, TokenDemotion, TokenOverride } from "./store";

/** Unsupported-token demand and token decisions, written once for SQLite and PostgreSQL. */
export class SqlTokenDemand implements TokenDemandStore {
  readonly #db: SqlDatabase<ApiSchema>;

  constructor(db: SqlDatabase<ApiSchema>) {
    this.#db = db;
  }

  async recordTokenDemand(observations: readonly TokenDemandObservation[]): Promise<void> {
    if (observations.length === 0) return;
    const { build, fn } = this.#db;
    // A stable order, so two instances flushing overlapping demand lock rows in the same order.
    const rows = observations.map(demandParams).sort((a, b) => a.chain_id - b.chain_id || a.token.localeCompare(b.token) || a.integrator_id - b.integrator_id);
    const upserts = rows.map((row) =>
      build
        .insertInto("token_demand")
        .values(row)
        .onConflict((conflict) =>
          conflict.columns(["chain_id", "token", "integrator_id"]).doUpdateSet((eb) => ({
            first_seen: fn.least(eb.ref("token_demand.first_seen"), eb.ref("excluded.first_seen")),
            last_seen: fn.greatest(eb.ref("token_demand.last_seen"), eb.ref("excluded.last_seen")),
          })),
        ),
    );
    await this.#db.transaction(function* () {
      for (const upsert of upserts) yield* step.changes(upsert);
    });
  }

  async pruneTokenDemand(before: Date): Promise<number> {
    return this.#db.changes(this.#db.build.deleteFrom("token_demand").where("last_seen", "<", before.getTime()));
  }

  async listTokenDemand(query: TokenDemandQuery): Promise<TokenDemandSummary[]> {
    let select = this.#db.build
      .selectFrom("token_demand as d")
      .select((eb) => [
        "d.chain_id",
        "d.token",
        eb.fn.countAll<number>().as("integrators"),
        eb.fn.min("d.first_seen").as("first_seen"),
        eb.fn.max("d.last_seen").as("last_seen"),
      ])
      .where("d.last_seen", ">=", query.since.getTime());
    if (query.chainId !== undefined) select = select.where("d.chain_id", "=", query.chainId);
    if (query.operatorApprovedOnly === true) {
      select = select.where(({ exists, selectFrom }) =>
        exists(
          selectFrom("integrators as i")
            .select("i.id")
            .whereRef("i.id", "=", "d.integrator_id")
            .where("i.status", "=", "active")
            .where("i.operator_approved_at", "is not", null),
        ),
      );
    }
    if (query.withoutOverride === true) {
      const chainRun = query.chainRun?.toLowerCase();
      select = select.where(({ not, exists, selectFrom }) => {
        let decision = selectFrom("token_overrides as o").select("o.token").whereRef("o.chain_id", "=", "d.chain_id").whereRef("o.token", "=", "d.token");
        if (chainRun !== undefined) decision = decision.where("o.chain_run", "=", chainRun);
        return not(exists(decision));
      });
    }
    const rows = await this.#db.rows(
      select
        .groupBy(["d.chain_id", "d.token"])
        .having((eb) => eb.fn.countAll(), ">=", query.minIntegrators ?? 1)
        .orderBy("integrators", "desc")
        .orderBy("last_seen", "desc")
        .orderBy("d.chain_id")
        .orderBy("d.token")
        .limit(query.limit ?? 1000),
    );
    return rows.map(demandFromRow);
  }

  async listTokenOverrides(chainId?: number): Promise<TokenOverride[]> {
    let select = this.#db.build.selectFrom("token_overrides").selectAll();
    if (chainId !== undefined) select = select.where("chain_id", "=", chainId);
    return (await this.#db.rows(select.orderBy("created_at").orderBy("chain_id").orderBy("token"))).map(tokenOverrideFromRow);
  }

  /** `replace` keeps the earlier decision's created_at; `if_absent` replaces only a decision of another chain run (whole). */
  async saveTokenOverride(override: NewTokenOverride, mode: "replace" | "if_absent"): Promise<boolean> {
    const { at, ...row } = tokenOverrideParams(override);
    const upsert = this.#db.build
      .insertInto("token_overrides")
      .values({ ...row, created_at: at, updated_at: at })
      .onConflict((conflict) => {
        const update = conflict.columns(["chain_id", "token"]).doUpdateSet((eb) => ({
          status: eb.ref("excluded.status"),
          source: eb.ref("excluded.source"),
          symbol: eb.ref("excluded.symbol"),
          decimals: eb.ref("excluded.decimals"),
          pool_address: eb.ref("excluded.pool_address"),
          pool_token0: eb.ref("excluded.pool_token0"),
          pool_token1: eb.ref("excluded.pool_token1"),
          pool_fee_bps: eb.ref("excluded.pool_fee_bps"),
          reason: eb.ref("excluded.reason"),
          chain_run: eb.ref("excluded.chain_run"),
          updated_at: eb.ref("excluded.updated_at"),
          buy_tax_bps: eb.ref("excluded.buy_tax_bps"),
          sell_tax_bps: eb.ref("excluded.sell_tax_bps"),
          transfer_tax_bps: eb.ref("excluded.transfer_tax_bps"),
          ...(mode === "if_absent" ? { created_at: eb.ref("excluded.created_at") } : {}),
        }));
        return mode === "replace" ? update : update.whereRef("token_overrides.chain_run", "is distinct from", "excluded.chain_run");
      });
    return (await this.#db.changes(upsert)) === 1;
  }

  async demoteToken(demotion: TokenDemotion): Promise<boolean> {
    const { chainId, token, chainRun, reason, at } = demotion;
    const update = this.#db.build
      .updateTable("token_overrides")
      .set({ status: "disabled", reason, updated_at: at.getTime() })
      .where("chain_id", "=", chainId)
      .where("token", "=", token.toLowerCase())
      .where("status", "=", "promoted")
      .where("source", "=", "demand")
      .where("chain_run", "=", chainRun.toLowerCase());
    return (await this.#db.changes(update)) === 1;
  }

  async removeTokenOverride(chainId: number, token: Address): Promise<boolean> {
    return (await this.#db.changes(this.#db.build.deleteFrom("token_overrides").where("chain_id", "=", chainId).where("token", "=", token.toLowerCase()))) === 1;
  }
}
