/**
 * The PostgreSQL side of the servers' storage: a connection pool, transactions, and versioned
 * migrations, shared by the API's and the relayer's stores. It imports `pg`, so it is deliberately
 * not exported from `sdk/index.ts`: integrators who import the SDK never load a database client.
 *
 * BIGINT columns (times in milliseconds, block numbers, counts) are read back as JS numbers, so a
 * row read from PostgreSQL looks like the same row read from SQLite and one mapper serves both.
 */
import pg from "pg";
import { engineMigrations, type SchemaMigration } from "./schemaMigrations";

export type PostgresPool = pg.Pool;
export type PostgresClient = pg.PoolClient;

const INT8_OID = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
};

/**
 * How long a query waits for a connection (a free one in the pool, or a new one to the server) before
 * it fails: without a bound, a server that stops answering (a dropped network, not a refusal) would
 * hold every request open. The failure is one `isPostgresUnavailableError` recognises.
 */
const CONNECTION_TIMEOUT_MS = 10_000;

/** A pool on `DATABASE_URL`; `max` connections at most. */
export function openPostgresPool(url: string, options: { max?: number; applicationName?: string; connectionTimeoutMs?: number } = {}): PostgresPool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? CONNECTION_TIMEOUT_MS,
    types,
  });
  // An idle client losing its connection (a restarted server) must not crash the process; the pool replaces it.
  pool.on("error", () => undefined);
  // Nor a checked-out one (pg-pool listens only on idle clients): its pending query fails with the
  // error, a later one is refused, and release() drops it. Found by `npm run soak` (a PostgreSQL restart).
  pool.on("connect", (client) => client.on("error", () => undefined));
  return pool;
}

/** Runs `work` in one transaction on one connection: committed if it returns, rolled back if it throws. */
export async function withTransaction<T>(pool: PostgresPool, work: (client: PostgresClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * Applies each PostgreSQL step of a service's list (schemaMigrations.ts) once, in order, in its own
 * transaction, recorded in `table` (one per service, so the API and the relayer can share one database). An advisory lock makes
 * instances starting together apply them one at a time; a database newer than the build is refused.
 */
export async function applyPostgresMigrations(pool: PostgresPool, table: string, list: readonly SchemaMigration[]): Promise<void> {
  const migrations = engineMigrations(list, "postgres");
  const client = await pool.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext($1))", [table]);
    await client.query(`CREATE TABLE IF NOT EXISTS ${table} (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
    const { rows } = await client.query<{ version: number | null }>(`SELECT MAX(version) AS version FROM ${table}`);
    const current = rows[0]?.version ?? 0;
    const latest = migrations.at(-1)?.version ?? 0;
    if (current > latest) throw new Error(`database schema version ${current} (${table}) is newer than this build knows (${latest}); refusing to use it`);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      await client.query("BEGIN");
      try {
        await client.query(migration.sql);
        await client.query(`INSERT INTO ${table} (version, name, applied_at) VALUES ($1, $2, $3)`, [migration.version, migration.name, Date.now()]);
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    }
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext($1))", [table]).catch(() => undefined);
    client.release();
  }
}

/** True for a unique, foreign-key or check violation (class 23), which retrying cannot fix. */
export function isPostgresConstraintError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && code.startsWith("23");
}
