import type { Logger } from "pino";
import { RateLimiterPostgres } from "rate-limiter-flexible";
import { openPostgresPool, type PostgresPool } from "../../sdk/storage/postgresPool";
import { isPostgresUnavailableError } from "../../sdk/storage/postgresUnavailable";
import { withPerInstanceFallback } from "./perInstanceFallback";
import type { RateLimiterFactory } from "./rateLimiterFactory";

/** rate-limiter-flexible's own table layout; created here once so no limiter races to create it. */
const TABLE = "rate_limits";

/**
 * Rate limits in PostgreSQL (rate-limiter-flexible's RateLimiterPostgres): every API instance on
 * `DATABASE_URL` consumes from the same rows. A small pool of its own keeps a burst of limited
 * requests from starving the store's connections. While PostgreSQL cannot be reached, each instance
 * counts in its own memory instead (`perInstanceFallback.ts`), logged once per outage.
 */
export async function openPostgresRateLimiters(url: string, logger: Logger): Promise<{ factory: RateLimiterFactory; close(): Promise<void> }> {
  const pool: PostgresPool = openPostgresPool(url, { max: 5, applicationName: "api-rate-limits" });
  try {
    await pool.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const shared: RateLimiterFactory = (options) =>
    new RateLimiterPostgres({ ...options, storeClient: pool, storeType: "pool", tableName: TABLE, tableCreated: true, clearExpiredByTimeout: true });
  return {
    factory: withPerInstanceFallback(shared, { isUnavailable: isPostgresUnavailableError, logger }),
    close: () => pool.end(),
  };
}
