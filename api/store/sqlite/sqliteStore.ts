import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { applySqliteMigrations } from "../../../sdk/storage/sqliteMigrations";
import { composeStore } from "../composeStore";
import type { WriteErrorListener } from "../quoteWriteBuffer";
import type { Store } from "../store";
import { migrations } from "./migrations";
import { SqliteChallenges } from "./sqliteChallenges";
import { SqliteIntegrators } from "./sqliteIntegrators";
import { SqliteQuotes } from "./sqliteQuotes";
import { SqliteTokenDemand } from "./sqliteTokenDemand";

export type { WriteErrorListener } from "../quoteWriteBuffer";

export type SqliteStoreOptions = { onWriteError?: WriteErrorListener };

/**
 * Opens (creating if needed) the SQLite database at `path`, in WAL mode so the operator CLI and the
 * API can use one file at once, and brings its schema up to date. The embedded default; see
 * `postgres/postgresStore.ts` for running several API instances on one database.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): Store {
  const db = openSqliteDatabase(path);
  const challenges = new SqliteChallenges(db);
  const quotes = new SqliteQuotes(db, options.onWriteError ?? (() => undefined));
  return composeStore(
    { challenges, integrators: new SqliteIntegrators(db, challenges), tokens: new SqliteTokenDemand(db), quotes },
    {
      ping: async () => void db.prepare("SELECT 1").get(),
      close: async () => {
        await quotes.flush();
        if (db.open) db.close();
      },
    },
  );
}

/** One connection to the store's database, migrated; the store and the operator's writes each open one. */
export function openSqliteDatabase(path: string): Database.Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    applySqliteMigrations(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
