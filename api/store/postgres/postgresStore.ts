import { applyPostgresMigrations, type PostgresPool } from "../../../sdk/storage/postgresPool";
import { openServicePool, type ServicePool } from "../../../sdk/storage/servicePools";
import { postgresDatabase } from "../../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "../apiSchema";
import { composeStore } from "../composeStore";
import type { IntegratorAdministration } from "../integratorAdministration";
import type { WriteErrorListener } from "../quoteWriteBuffer";
import { SqlIntegratorAdministration } from "../sqlIntegratorAdministration";
import type { Store } from "../store";
import { PgCredentialCache } from "./pgCredentialCache";
import { apiMigrations } from "../apiMigrations";

/** The API's migrations are recorded apart from the relayer's, so both can share one database. */
export const API_MIGRATIONS_TABLE = "api_schema_migrations";

/**
 * Connects to PostgreSQL at `url` (`DATABASE_URL`) and brings the schema up to date. Any number of
 * API instances can share the database: every write that must be atomic is one transaction there.
 */
export async function openPostgresStore(url: string, options: { onWriteError?: WriteErrorListener; poolSize?: number } = {}): Promise<Store> {
  const pool = await openMigratedPool(url, "api", options.poolSize);
  // Credentials are cached per instance while it listens for their changes (NOTIFY api_credentials).
  const credentials = new PgCredentialCache(url);
  await credentials.start();
  return composeStore(postgresDatabase<ApiSchema>(pool), {
    credentials,
    onWriteError: options.onWriteError,
    ping: async () => void (await pool.query("SELECT 1")),
    close: async () => {
      await credentials.close();
      await pool.end();
    },
  });
}

/** Opens the operator's writes on the API's PostgreSQL database (`DATABASE_URL`), migrated like the store's. */
export async function openPgIntegratorAdministration(url: string): Promise<IntegratorAdministration> {
  // One command at a time: a second connection would never be used.
  const pool = await openMigratedPool(url, "integratorsCli");
  return new SqlIntegratorAdministration(postgresDatabase<ApiSchema>(pool), () => pool.end());
}

async function openMigratedPool(url: string, name: ServicePool, size?: number): Promise<PostgresPool> {
  const pool = openServicePool(url, name, size);
  try {
    await applyPostgresMigrations(pool, API_MIGRATIONS_TABLE, apiMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return pool;
}
