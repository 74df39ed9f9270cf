import { applyPostgresMigrations } from "../../sdk/storage/postgresPool";
import { openServicePool, type ServicePool } from "../../sdk/storage/servicePools";
import { openSqliteFile } from "../../sdk/storage/sqliteFile";
import { postgresDatabase, sqliteDatabase } from "../../sdk/storage/sqlDatabase";
import type { RelayerConfig } from "../config";
import { relayMigrations } from "./relayMigrations";
import type { RelaySchema } from "./relaySchema";
import type { RelayStore } from "./relayStore";
import { composeRelayStore } from "./sqlRelayStore";

/**
 * The store `DATABASE_URL` selects: PostgreSQL (shared by every relayer) when set, else the SQLite file
 * at `RELAYER_DB_PATH`. `use` names the PostgreSQL pool (SERVICE_POOLS): the relayer's own by default.
 */
export async function openRelayStore(config: Pick<RelayerConfig, "dbPath" | "databaseUrl">, use: ServicePool = "relayer"): Promise<RelayStore> {
  return config.databaseUrl === undefined ? openSqliteRelayStore(config.dbPath) : openPostgresRelayStore(config.databaseUrl, use);
}

/**
 * Opens (creating if needed) the relayer's SQLite database, durable against a power cut (`FULL`): a
 * broadcast follows every write of a signed transaction.
 * One relayer process per file; several relayers share a PostgreSQL database instead.
 */
export function openSqliteRelayStore(path: string): RelayStore {
  const db = openSqliteFile(path, relayMigrations, "FULL");
  return composeRelayStore(sqliteDatabase<RelaySchema>(db), {
    ping: async () => void db.prepare("SELECT 1").get(),
    close: async () => {
      if (db.open) db.close();
    },
  });
}

/** Opens the relayer's tables on a PostgreSQL database that several relayers (and the API's event feed) share. */
export async function openPostgresRelayStore(url: string, use: ServicePool = "relayer"): Promise<RelayStore> {
  const pool = openServicePool(url, use);
  try {
    await applyPostgresMigrations(pool, "relayer_schema_migrations", relayMigrations);
  } catch (error) {
    await pool.end();
    throw error;
  }
  return composeRelayStore(postgresDatabase<RelaySchema>(pool), {
    url,
    ping: async () => void (await pool.query("SELECT 1")),
    close: () => pool.end(),
  });
}
