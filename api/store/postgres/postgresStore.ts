import { applyPostgresMigrations } from "../../../sdk/storage/postgresPool";
import { openServicePool } from "../../../sdk/storage/servicePools";
import { composeStore } from "../composeStore";
import type { WriteErrorListener } from "../quoteWriteBuffer";
import type { Store } from "../store";
import { PgChallenges } from "./pgChallenges";
import { PgCredentialCache } from "./pgCredentialCache";
import { PgIntegrators } from "./pgIntegrators";
import { PgQuotes } from "./pgQuotes";
import { PgTokenDemand } from "./pgTokenDemand";
import { postgresMigrations } from "./postgresMigrations";

/** The API's migrations are recorded apart from the relayer's, so both can share one database. */
export const API_MIGRATIONS_TABLE = "api_schema_migrations";

/**
 * Connects to PostgreSQL at `url` (`DATABASE_URL`) and brings the schema up to date. Any number of
 * API instances can share the database: every write that must be atomic is one transaction there.
 */
export async function openPostgresStore(url: string, options: { onWriteError?: WriteErrorListener; poolSize?: number } = {}): Promise<Store> {
  const pool = openServicePool(url, "api", options.poolSize);
  try {
    await applyPostgresMigrations(pool, API_MIGRATIONS_TABLE, postgresMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  // Credentials are cached per instance while it listens for their changes (NOTIFY api_credentials).
  const credentials = new PgCredentialCache(url);
  await credentials.start();
  const challenges = new PgChallenges(pool);
  const quotes = new PgQuotes(pool, options.onWriteError ?? (() => undefined));
  return composeStore(
    { challenges, integrators: new PgIntegrators(pool, challenges, credentials), tokens: new PgTokenDemand(pool), quotes },
    {
      ping: async () => void (await pool.query("SELECT 1")),
      close: async () => {
        await quotes.flush();
        await credentials.close();
        await pool.end();
      },
    },
  );
}
