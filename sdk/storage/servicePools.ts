import { openPostgresPool, type PostgresPool } from "./postgresPool";

/**
 * Every PostgreSQL pool the API, the relayer and their operator CLIs open, declared once: what it is
 * for, its `application_name` (what `pg_stat_activity` shows an operator), and its most connections.
 * The API's rate limits and Permit2 nonce ranges keep pools apart from its store so that a burst of
 * limited requests or quotes cannot take the connections the store's writes need. Add a pool here,
 * never with `openPostgresPool` at its call site, so the sum an operator provisions for stays in view:
 * per API instance 10 + 5 + 4, per relayer 10, plus one listening connection each (postgresListener).
 */
export const SERVICE_POOLS = {
  api: { applicationName: "api", max: 10 },
  apiRateLimits: { applicationName: "api-rate-limits", max: 5 },
  apiNonceRanges: { applicationName: "api-permit-nonce-ranges", max: 4 },
  integratorsCli: { applicationName: "integrators-cli", max: 1 },
  relayer: { applicationName: "relayer", max: 10 },
} as const satisfies Record<string, { applicationName: string; max: number }>;

export type ServicePool = keyof typeof SERVICE_POOLS;

/** The pool `use` on `DATABASE_URL`, sized as SERVICE_POOLS declares unless `max` overrides it (the API's store pool size option). */
export function openServicePool(url: string, use: ServicePool, max?: number): PostgresPool {
  const declared = SERVICE_POOLS[use];
  return openPostgresPool(url, { applicationName: declared.applicationName, max: max ?? declared.max });
}
