import type Database from "better-sqlite3";
import { openSqliteFile } from "../../../sdk/storage/sqliteFile";
import { sqliteDatabase } from "../../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "../apiSchema";
import { composeStore } from "../composeStore";
import type { IntegratorAdministration } from "../integratorAdministration";
import type { WriteErrorListener } from "../quoteWriteBuffer";
import { SqlIntegratorAdministration } from "../sqlIntegratorAdministration";
import type { Store } from "../store";
import { apiMigrations } from "../apiMigrations";
import { SqliteCredentialMemo } from "./sqliteCredentialMemo";

export type { WriteErrorListener } from "../quoteWriteBuffer";

export type SqliteStoreOptions = { onWriteError?: WriteErrorListener };

/**
 * Opens (creating if needed) the SQLite database at `path`, in WAL mode so the operator CLI and the
 * API can use one file at once, and brings its schema up to date. The embedded default; see
 * `postgres/postgresStore.ts` for running several API instances on one database.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const db = openSqliteDatabase(path);
  return composeStore(sqliteDatabase<ApiSchema>(db), {
    credentials: new SqliteCredentialMemo(db),
    onWriteError: options.onWriteError,
    ping: async () => void db.prepare("SELECT 1").get(),
    close: async () => {
      if (db.open) db.close();
    },
  });
}

/** Opens the operator's writes on the API's database (its own connection, migrated like the store's). */
export function openSqliteIntegratorAdministration(path: string): IntegratorAdministration {
  const db = openSqliteDatabase(path);
  return new SqlIntegratorAdministration(sqliteDatabase<ApiSchema>(db), async () => {
    if (db.open) db.close();
  });
}

/** One connection to the store's database, migrated; the store and the operator's writes each open one. */
export function openSqliteDatabase(path: string): Database.Database {
  return openSqliteFile(path, apiMigrations, "NORMAL");
}
