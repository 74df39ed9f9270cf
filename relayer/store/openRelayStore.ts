import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { applyPostgresMigrations } from "../../sdk/storage/postgresPool";
import { openServicePool, type ServicePool } from "../../sdk/storage/servicePools";
import { applySqliteMigrations } from "../../sdk/storage/sqliteMigrations";
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
 * Opens (creating if needed) the relayer's SQLite database. `synchronous = FULL`: a broadcast follows
 * every write of a signed transaction, so the write must survive a power cut, not only a crash.
 * One relayer process per file; several relayers share a PostgreSQL database instead.
 */
export function openSqliteRelayStore(path: string): RelayStore {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    applySqliteMigrations(db, relayMigrations);
  } catch (error) {
    db.close();
    throw error;
  }
  const sql = sqliteDatabase<RelaySchema>(db);
  return composeRelayStore(sql, {
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
