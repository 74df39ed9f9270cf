import { methodsOf } from "../../sdk/storage/concernMethods";
import type { SqlDatabase } from "../../sdk/storage/sqlDatabase";
import { relayEventSignal } from "./relayEventSignal";
import type { RelaySchema } from "./relaySchema";
import type { RelayStore } from "./relayStore";
import { SqlPushedStatus } from "./sqlPushedStatus";
import { SqlRelays } from "./sqlRelays";
import { SqlSignerClaims } from "./sqlSignerClaims";
import { SqlSignerStates } from "./sqlSignerStates";
import { SqlTopUps } from "./sqlTopUps";
import { SqlUnpaidGas } from "./sqlUnpaidGas";

/** What an engine's opener brings besides its `SqlDatabase`: the address LISTEN connects to (PostgreSQL), and how it pings and closes its connection(s). */
export type RelayStoreEngine = {
  url?: string;
  ping(): Promise<void>;
  close(): Promise<void>;
};

/** The `RelayStore` the relayer uses, every concern written once on `db` (docs/storage.md). */
export function composeRelayStore(db: SqlDatabase<RelaySchema>, engine: RelayStoreEngine): RelayStore {
  const pushed = new SqlPushedStatus(db, relayEventSignal(db, engine.url));
  return {
    ...methodsOf(pushed),
    ...methodsOf(new SqlRelays(db, pushed)),
    ...methodsOf(new SqlSignerClaims(db)),
    ...methodsOf(new SqlSignerStates(db)),
    ...methodsOf(new SqlTopUps(db)),
    ...methodsOf(new SqlUnpaidGas(db)),
    ping: () => engine.ping(),
    close: async () => {
      await pushed.close();
      await engine.close();
    },
  };
}
