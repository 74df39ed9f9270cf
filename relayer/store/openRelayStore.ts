import type { ServicePool } from "../../sdk/storage/servicePools";
import type { RelayerConfig } from "../config";
import { openPostgresRelayStore } from "./postgresRelayStore";
import type { RelayStore } from "./relayStore";
import { openSqliteRelayStore } from "./sqliteRelayStore";

/**
 * The store `DATABASE_URL` selects: PostgreSQL (shared by every relayer) when set, else the SQLite file
 * at `RELAYER_DB_PATH`. `use` names the PostgreSQL pool (SERVICE_POOLS): the relayer's own by default.
 */
export async function openRelayStore(config: Pick<RelayerConfig, "dbPath" | "databaseUrl">, use: ServicePool = "relayer"): Promise<RelayStore> {
  return config.databaseUrl === undefined ? openSqliteRelayStore(config.dbPath) : openPostgresRelayStore(config.databaseUrl, use);
}
