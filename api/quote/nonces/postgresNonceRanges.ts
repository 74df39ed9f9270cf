import { type PostgresPool } from "../../../sdk/storage/postgresPool";
import { openServicePool } from "../../../sdk/storage/servicePools";
import type { NonceRangeLeases } from "./nonceRanges";

const TABLE = "permit_nonce_ranges";
/** Claims between two sweeps of ended leases: the table stays about as large as the live ranges. */
const SWEEP_EVERY = 1_000;

/**
 * Permit2 nonce ranges leased in PostgreSQL, beside the API's store on `DATABASE_URL` (see
 * `nonceRanges.ts`). A claim is one prepared statement over the slices asked for: an insert that,
 * on conflict, takes a row over only when its lease ended or it is already the claimant's, under
 * the row's lock, so of two instances claiming one slice at once exactly one gets it.
 */
export async function openPostgresNonceRanges(url: string): Promise<NonceRangeLeases> {
  const pool: PostgresPool = openServicePool(url, "apiNonceRanges");
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (chain_id INTEGER NOT NULL, taker TEXT NOT NULL, word NUMERIC(78) NOT NULL, slice SMALLINT NOT NULL,
       holder TEXT NOT NULL, until_ms BIGINT NOT NULL, PRIMARY KEY (chain_id, taker, word, slice))`,
    );
    await pool.query(`CREATE INDEX IF NOT EXISTS ${TABLE}_until ON ${TABLE} (until_ms)`);
  } catch (error) {
    await pool.end();
    throw error;
  }
  let claims = 0;
  return {
    async claim(chainId, taker, word, slices, holder, untilMs, nowMs) {
      // The sweep runs beside the claim, not before it: no quote waits for it, and a failed one is retried later.
      if (++claims % SWEEP_EVERY === 0) void pool.query(`DELETE FROM ${TABLE} WHERE until_ms < $1`, [nowMs]).catch(() => undefined);
      const { rows } = await pool.query<{ slice: number }>({
        name: "permit-nonce-range-claim",
        text: `INSERT INTO ${TABLE} (chain_id, taker, word, slice, holder, until_ms)
          SELECT $1, $2, $3, slice, $4, $5 FROM unnest($6::smallint[]) AS slice
          ON CONFLICT (chain_id, taker, word, slice) DO UPDATE
            SET holder = EXCLUDED.holder,
                until_ms = CASE WHEN ${TABLE}.holder = EXCLUDED.holder THEN GREATEST(${TABLE}.until_ms, EXCLUDED.until_ms) ELSE EXCLUDED.until_ms END
            WHERE ${TABLE}.holder = EXCLUDED.holder OR ${TABLE}.until_ms < $7
          RETURNING slice`,
        values: [chainId, taker, word.toString(), holder, untilMs, slices, nowMs],
      });
      return rows.map((row) => Number(row.slice));
    },
    close: () => pool.end(),
  };
}
