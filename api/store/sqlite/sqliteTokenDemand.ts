import type Database from "better-sqlite3";
import type { Address } from "viem";
import { demandFromRow, demandParams, tokenOverrideFromRow, tokenOverrideParams, type TokenDemandSummaryRow, type TokenOverrideRow } from "../rows/tokenRows";
import type { NewTokenOverride, TokenDemandObservation, TokenDemandQuery, TokenDemandStore, TokenDemandSummary, TokenDemotion, TokenOverride } from "../store";

const OVERRIDE_UPSERT = `INSERT INTO token_overrides
  (chain_id, token, status, source, symbol, decimals, pool_address, pool_token0, pool_token1, pool_fee_bps, reason,
   chain_run, created_at, updated_at, buy_tax_bps, sell_tax_bps, transfer_tax_bps)
  VALUES (@chain_id, @token, @status, @source, @symbol, @decimals, @pool_address, @pool_token0, @pool_token1,
   @pool_fee_bps, @reason, @chain_run, @at, @at, @buy_tax_bps, @sell_tax_bps, @transfer_tax_bps)
  ON CONFLICT (chain_id, token) DO UPDATE SET status = excluded.status, source = excluded.source,
    symbol = excluded.symbol, decimals = excluded.decimals, pool_address = excluded.pool_address,
    pool_token0 = excluded.pool_token0, pool_token1 = excluded.pool_token1, pool_fee_bps = excluded.pool_fee_bps,
    reason = excluded.reason, chain_run = excluded.chain_run, updated_at = excluded.updated_at,
    buy_tax_bps = excluded.buy_tax_bps, sell_tax_bps = excluded.sell_tax_bps, transfer_tax_bps = excluded.transfer_tax_bps`;

/** Unsupported-token demand and token decisions on SQLite. */
export class SqliteTokenDemand implements TokenDemandStore {
  readonly #db: Database.Database;
  readonly #statements;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#statements = {
      upsertTokenDemand: db.prepare(`INSERT INTO token_demand (chain_id, token, integrator_id, first_seen, last_seen)
        VALUES (@chain_id, @token, @integrator_id, @first_seen, @last_seen)
        ON CONFLICT (chain_id, token, integrator_id) DO UPDATE SET
          first_seen = MIN(first_seen, excluded.first_seen), last_seen = MAX(last_seen, excluded.last_seen)`),
      pruneTokenDemand: db.prepare("DELETE FROM token_demand WHERE last_seen < ?"),
      listTokenDemand: db.prepare(`SELECT d.chain_id, d.token, COUNT(*) AS integrators, MIN(d.first_seen) AS first_seen,
          MAX(d.last_seen) AS last_seen
        FROM token_demand d
        WHERE d.last_seen >= @since AND (@chain_id IS NULL OR d.chain_id = @chain_id)
          AND (@operator_approved_only = 0 OR EXISTS
            (SELECT 1 FROM integrators i WHERE i.id = d.integrator_id AND i.status = 'active' AND i.operator_approved_at IS NOT NULL))
          AND (@without_override = 0 OR NOT EXISTS
            (SELECT 1 FROM token_overrides o WHERE o.chain_id = d.chain_id AND o.token = d.token
               AND (@chain_run IS NULL OR o.chain_run = @chain_run)))
        GROUP BY d.chain_id, d.token
        HAVING COUNT(*) >= @min_integrators
        ORDER BY integrators DESC, last_seen DESC, d.chain_id, d.token
        LIMIT @limit`),
      listTokenOverrides: db.prepare(`SELECT * FROM token_overrides
        WHERE (@chain_id IS NULL OR chain_id = @chain_id) ORDER BY created_at, chain_id, token`),
      // Keeps created_at of an earlier decision.
      replaceTokenOverride: db.prepare(OVERRIDE_UPSERT),
      // "Absent" includes a decision of another chain run, which this one replaces whole.
      insertTokenOverrideIfAbsent: db.prepare(`${OVERRIDE_UPSERT}, created_at = excluded.created_at WHERE token_overrides.chain_run IS NOT excluded.chain_run`),
      removeTokenOverride: db.prepare("DELETE FROM token_overrides WHERE chain_id = ? AND token = ?"),
      demoteToken: db.prepare(`UPDATE token_overrides SET status = 'disabled', reason = @reason, updated_at = @at
        WHERE chain_id = @chain_id AND token = @token AND status = 'promoted' AND source = 'demand' AND chain_run = @chain_run`),
    };
  }

  async recordTokenDemand(observations: readonly TokenDemandObservation[]): Promise<void> {
    if (observations.length === 0) return;
    this.#db
      .transaction(() => {
        for (const observation of observations) this.#statements.upsertTokenDemand.run(demandParams(observation));
      })
      .immediate();
  }

  async pruneTokenDemand(before: Date): Promise<number> {
    return this.#statements.pruneTokenDemand.run(before.getTime()).changes;
  }

  async listTokenDemand(query: TokenDemandQuery): Promise<TokenDemandSummary[]> {
    const rows = this.#statements.listTokenDemand.all({
      since: query.since.getTime(),
      chain_id: query.chainId ?? null,
      without_override: query.withoutOverride ? 1 : 0,
      operator_approved_only: query.operatorApprovedOnly ? 1 : 0,
      chain_run: query.chainRun?.toLowerCase() ?? null,
      min_integrators: query.minIntegrators ?? 1,
      limit: query.limit ?? 1000,
    }) as TokenDemandSummaryRow[];
    return rows.map(demandFromRow);
  }

  async listTokenOverrides(chainId?: number): Promise<TokenOverride[]> {
    return (this.#statements.listTokenOverrides.all({ chain_id: chainId ?? null }) as TokenOverrideRow[]).map(tokenOverrideFromRow);
  }

  async saveTokenOverride(override: NewTokenOverride, mode: "replace" | "if_absent"): Promise<boolean> {
    const statement = mode === "replace" ? this.#statements.replaceTokenOverride : this.#statements.insertTokenOverrideIfAbsent;
    return statement.run(tokenOverrideParams(override)).changes === 1;
  }

  async demoteToken(demotion: TokenDemotion): Promise<boolean> {
    const { chainId, token, chainRun, reason, at } = demotion;
    return this.#statements.demoteToken.run({ chain_id: chainId, token: token.toLowerCase(), chain_run: chainRun.toLowerCase(), reason, at: at.getTime() }).changes === 1;
  }

  async removeTokenOverride(chainId: number, token: Address): Promise<boolean> {
    return this.#statements.removeTokenOverride.run(chainId, token.toLowerCase()).changes === 1;
  }
}
