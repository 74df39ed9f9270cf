/**
 * Versioned schema migrations for a SQLite database, shared by the API's and the relayer's stores:
 * the SQLite steps of a service's list (schemaMigrations.ts). Each is applied once, in order, in its own immediate transaction, and recorded in
 * `schema_migrations`; a database newer than the build is refused rather than misread.
 *
 * It takes the few methods it needs of a better-sqlite3 database, so the SDK does not depend on it.
 */
import { engineMigrations, type SchemaMigration } from "./schemaMigrations";

type Statement = { get(...params: unknown[]): unknown; run(...params: unknown[]): unknown };
export type MigratableDatabase = {
  exec(sql: string): unknown;
  pragma(source: string): unknown;
  prepare(sql: string): Statement;
  transaction(fn: () => void): { immediate(): void };
};

export function applySqliteMigrations(db: MigratableDatabase, list: readonly SchemaMigration[]): void {
  const migrations = engineMigrations(list, "sqlite");
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`);
  const applied = db.prepare("SELECT MAX(version) AS version FROM schema_migrations").get() as { version: number | null };
  const current = applied.version ?? 0;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`database schema version ${current} is newer than this build knows (${latest}); refusing to use it`);
  }
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    // The pragma is a no-op inside a transaction, so it is switched around it.
    if (migration.rebuildsReferencedTable) db.pragma("foreign_keys = OFF");
    try {
      db.transaction(() => {
        // Another process may have applied it between our read and this lock.
        if (db.prepare("SELECT 1 FROM schema_migrations WHERE version = ?").get(migration.version)) return;
        db.exec(migration.sql);
        if (migration.rebuildsReferencedTable && (db.pragma("foreign_key_check") as unknown[]).length > 0) {
          throw new Error(`migration ${migration.version} would break foreign keys; not applied`);
        }
        record.run(migration.version, migration.name, Date.now());
      }).immediate();
    } finally {
      if (migration.rebuildsReferencedTable) db.pragma("foreign_keys = ON");
    }
  }
}
