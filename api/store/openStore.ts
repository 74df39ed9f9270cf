import type { ApiConfig } from "../config";
import { openPostgresStore } from "./postgres/postgresStore";
import type { WriteErrorListener } from "./quoteWriteBuffer";
import { openSqliteStore } from "./sqlite/sqliteStore";
import type { Store } from "./store";

/** The store `DATABASE_URL` selects: PostgreSQL when set, else the SQLite file at `API_DB_PATH`. */
export async function openStore(config: Pick<ApiConfig, "dbPath" | "databaseUrl">, options: { onWriteError?: WriteErrorListener } = {}): Promise<Store> {
  return config.databaseUrl === undefined ? openSqliteStore(config.dbPath, options) : openPostgresStore(config.databaseUrl, options);
}
