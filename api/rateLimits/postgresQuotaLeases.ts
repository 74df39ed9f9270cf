import type { PostgresPool } from "../../sdk/storage/postgresPool";
import type { QuotaLeaseSource } from "./quotaLeases";

const TABLE = "rate_limit_leases";
/** Leases between two sweeps of past windows' rows. */
const SWEEP_EVERY = 1_000;
/** Rows of windows that started this long ago are swept (the longest window is a minute). */
const KEEP_MS = 10 * 60_000;

export async function createQuotaLeaseTable(pool: PostgresPool): Promise<void> {
  await pool.query(
    `CREATE TABLE IF NOT EXISTS ${TABLE} (key TEXT NOT NULL, window_start BIGINT NOT NULL, granted INTEGER NOT NULL, last_grant INTEGER NOT NULL, PRIMARY KEY (key, window_start))`,
  );
}

/**
 * Leases in PostgreSQL: one row per key and window counts the points granted to every instance. A
 * lease is one prepared statement; in the UPDATE both assignments read the row as it was, so
 * `last_grant` is what this lease got and `granted` never passes the limit. Concurrent leases of one
 * key serialise on the row lock.
 */
export function postgresQuotaLeases(pool: PostgresPool): QuotaLeaseSource {
  let leases = 0;
  return {
    async lease(key, windowStart, want, limit) {
      if (++leases % SWEEP_EVERY === 0) void pool.query(`DELETE FROM ${TABLE} WHERE window_start < $1`, [windowStart - KEEP_MS]).catch(() => undefined);
      const { rows } = await pool.query<{ granted: number; last_grant: number }>({
        name: "rate-limit-lease",
        text: `INSERT INTO ${TABLE} (key, window_start, granted, last_grant) VALUES ($1, $2, LEAST($3::int, $4::int), LEAST($3::int, $4::int))
               ON CONFLICT (key, window_start) DO UPDATE SET
                 last_grant = LEAST($3::int, GREATEST($4::int - ${TABLE}.granted, 0)),
                 granted = ${TABLE}.granted + LEAST($3::int, GREATEST($4::int - ${TABLE}.granted, 0))
               RETURNING granted, last_grant`,
        values: [key, windowStart, want, limit],
      });
      return { granted: rows[0]!.last_grant, total: rows[0]!.granted };
    },
  };
}
