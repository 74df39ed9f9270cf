import type { Logger } from "pino";
import { type PostgresPool } from "../../sdk/storage/postgresPool";
import { openServicePool } from "../../sdk/storage/servicePools";
import { isPostgresUnavailableError } from "../../sdk/storage/postgresUnavailable";
import { withPerInstanceFallback } from "./perInstanceFallback";
import { createQuotaLeaseTable, postgresQuotaLeases } from "./postgresQuotaLeases";
import { leasedRateLimiters } from "./quotaLeases";
import type { RateLimiterFactory } from "./rateLimiterFactory";

/**
 * Rate limits in PostgreSQL, by quota leasing (`quotaLeases.ts`): every API instance on
 * `DATABASE_URL` leases shares of a key's budget from the same rows, one round trip per lease. A
 * small pool of its own keeps a burst of limited requests from starving the store's connections. While PostgreSQL cannot be reached, each instance
 * counts in its own memory instead (`perInstanceFallback.ts`), logged once per outage.
 */
export async function openPostgresRateLimiters(url: string, logger: Logger): Promise<{ factory: RateLimiterFactory; close(): Promise<void> }> {
  const pool: PostgresPool = openServicePool(url, "apiRateLimits");
  try {
    await createQuotaLeaseTable(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const shared: RateLimiterFactory = leasedRateLimiters(postgresQuotaLeases(pool));
  return {
    factory: withPerInstanceFallback(shared, { isUnavailable: isPostgresUnavailableError, logger }),
    close: () => pool.end(),
  };
}
