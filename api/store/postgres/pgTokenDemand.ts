import type { Address } from "viem";
import { withTransaction, type PostgresPool } from "../../../sdk/storage/postgresPool";
import { demandFromRow, demandParams, tokenOverrideFromRow, tokenOverrideParams, type TokenDemandSummaryRow, type TokenOverrideRow } from "../rows/tokenRows";
import type { NewTokenOverride, TokenDemandObservation, TokenDemandQuery, TokenDemandStore, TokenDemandSummary, TokenDemotion, TokenOverride } from "../store";

const OVERRIDE_COLUMNS = `chain_id, token, status, source, symbol, decimals, pool_address, pool_token0, pool_token1, pool_fee_bps,
  reason, chain_run, created_at, updated_at, buy_tax_bps, sell_tax_bps, transfer_tax_bps`;
const OVERRIDE_UPDATE = `status = excluded.status, source = excluded.source, symbol = excluded.symbol, decimals = excluded.decimals,
  pool_address = excluded.pool_address, pool_token0 = excluded.pool_token0, pool_token1 = excluded.pool_token1,
  pool_fee_bps = excluded.pool_fee_bps, reason = excluded.reason, chain_run = excluded.chain_run, updated_at = excluded.updated_at,
  buy_tax_bps = excluded.buy_tax_bps, sell_tax_bps = excluded.sell_tax_bps, transfer_tax_bps = excluded.transfer_tax_bps`;

/** Unsupported-token demand and token decisions on PostgreSQL, shared by every API instance. */
export class PgTokenDemand implements TokenDemandStore {
  readonly #pool: PostgresPool;

  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  async recordTokenDemand(observations: readonly TokenDemandObservation[]): Promise<void> {
    if (observations.length === 0) return;
    // A stable order, so two instances flushing overlapping demand lock rows in the same order.
    const rows = observations.map(demandParams).sort((a, b) => a.chain_id - b.chain_id || a.token.localeCompare(b.token) || a.integrator_id - b.integrator_id);
    await withTransaction(this.#pool, async (client) => {
      for (const row of rows) {
        await client.query(
          `INSERT INTO token_demand (chain_id, token, integrator_id, first_seen, last_seen) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (chain_id, token, integrator_id) DO UPDATE SET
             first_seen = LEAST(token_demand.first_seen, excluded.first_seen), last_seen = GREATEST(token_demand.last_seen, excluded.last_seen)`,
          [row.chain_id, row.token, row.integrator_id, row.first_seen, row.last_seen],
        );
      }
    });
  }

  async pruneTokenDemand(before: Date): Promise<number> {
    return (await this.#pool.query("DELETE FROM token_demand WHERE last_seen < $1", [before.getTime()])).rowCount ?? 0;
  }

  async listTokenDemand(query: TokenDemandQuery): Promise<TokenDemandSummary[]> {
    const { rows } = await this.#pool.query<TokenDemandSummaryRow>(
      `SELECT d.chain_id, d.token, COUNT(*)::int AS integrators, MIN(d.first_seen) AS first_seen, MAX(d.last_seen) AS last_seen
       FROM token_demand d
       WHERE d.last_seen >= $1 AND ($2::int IS NULL OR d.chain_id = $2)
         AND (NOT $7::boolean OR EXISTS
           (SELECT 1 FROM integrators i WHERE i.id = d.integrator_id AND i.status = 'active' AND i.operator_approved_at IS NOT NULL))
         AND (NOT $3::boolean OR NOT EXISTS
           (SELECT 1 FROM token_overrides o WHERE o.chain_id = d.chain_id AND o.token = d.token
              AND ($4::text IS NULL OR o.chain_run = $4)))
       GROUP BY d.chain_id, d.token
       HAVING COUNT(*) >= $5
       ORDER BY integrators DESC, last_seen DESC, d.chain_id, d.token
       LIMIT $6`,
      [query.since.getTime(), query.chainId ?? null, query.withoutOverride === true, query.chainRun?.toLowerCase() ?? null, query.minIntegrators ?? 1, query.limit ?? 1000,
        query.operatorApprovedOnly === true],
    );
    return rows.map(demandFromRow);
  }

  async listTokenOverrides(chainId?: number): Promise<TokenOverride[]> {
    const { rows } = await this.#pool.query<TokenOverrideRow>(
      `SELECT ${OVERRIDE_COLUMNS} FROM token_overrides WHERE ($1::int IS NULL OR chain_id = $1) ORDER BY created_at, chain_id, token`,
      [chainId ?? null],
    );
    return rows.map(tokenOverrideFromRow);
  }

  /** `replace` keeps the earlier decision's created_at; `if_absent` replaces only a decision of another chain run. */
  async saveTokenOverride(override: NewTokenOverride, mode: "replace" | "if_absent"): Promise<boolean> {
    const row = tokenOverrideParams(override);
    const conflict =
      mode === "replace"
        ? `DO UPDATE SET ${OVERRIDE_UPDATE}`
        : `DO UPDATE SET ${OVERRIDE_UPDATE}, created_at = excluded.created_at WHERE token_overrides.chain_run IS DISTINCT FROM excluded.chain_run`;
    const { rowCount } = await this.#pool.query(
      `INSERT INTO token_overrides (${OVERRIDE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $13, $14, $15, $16)
       ON CONFLICT (chain_id, token) ${conflict}`,
      [row.chain_id, row.token, row.status, row.source, row.symbol, row.decimals, row.pool_address, row.pool_token0, row.pool_token1,
        row.pool_fee_bps, row.reason, row.chain_run, row.at, row.buy_tax_bps, row.sell_tax_bps, row.transfer_tax_bps],
    );
    return rowCount === 1;
  }

  async demoteToken(demotion: TokenDemotion): Promise<boolean> {
    const { chainId, token, chainRun, reason, at } = demotion;
    const { rowCount } = await this.#pool.query(
      `UPDATE token_overrides SET status = 'disabled', reason = $1, updated_at = $2
       WHERE chain_id = $3 AND token = $4 AND status = 'promoted' AND source = 'demand' AND chain_run = $5`,
      [reason, at.getTime(), chainId, token.toLowerCase(), chainRun.toLowerCase()],
    );
    return rowCount === 1;
  }

  async removeTokenOverride(chainId: number, token: Address): Promise<boolean> {
    return (await this.#pool.query("DELETE FROM token_overrides WHERE chain_id = $1 AND token = $2", [chainId, token.toLowerCase()])).rowCount === 1;
  }
}
