import type { ApiConfig } from "../config";
import type { IntegratorAdministration } from "./integratorAdministration";
import { openPgIntegratorAdministration } from "./postgres/postgresStore";
import { openSqliteIntegratorAdministration } from "./sqlite/sqliteStore";

/** The operator's writes on the database `DATABASE_URL` selects, as `openStore` chooses it. */
export async function openIntegratorAdministration(config: Pick<ApiConfig, "dbPath" | "databaseUrl">): Promise<IntegratorAdministration> {
  return config.databaseUrl === undefined ? openSqliteIntegratorAdministration(config.dbPath) : openPgIntegratorAdministration(config.databaseUrl);
}
