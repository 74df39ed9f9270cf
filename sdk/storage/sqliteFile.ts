import Database from "better-sqlite3";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { SchemaMigration } from "./schemaMigrations";
import { applySqliteMigrations } from "./sqliteMigrations";

/**
 * Opens a service's SQLite file (creating it and its folder if needed) in WAL mode with foreign keys
 * on, and migrates it with the service's list; a file that fails to migrate is closed again.
 * `synchronous`: FULL where a write must survive a power cut (the relayer's: a broadcast follows it),
 * NORMAL where surviving a crash of the process is enough. Not exported from `sdk/index.ts`.
 */
export function openSqliteFile(path: string, migrations: readonly SchemaMigration[], synchronous: "FULL" | "NORMAL"): Database.Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${synchronous}`);
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    applySqliteMigrations(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
