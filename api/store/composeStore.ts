import { methodsOf } from "../../sdk/storage/concernMethods";
import type { SqlDatabase } from "../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "./apiSchema";
import type { WriteErrorListener } from "./quoteWriteBuffer";
import { SqlChallenges } from "./sqlChallenges";
import { SqlIntegrators, type CredentialCache } from "./sqlIntegrators";
import { SqlQuotes } from "./sqlQuotes";
import { SqlTokenDemand } from "./sqlTokenDemand";
import type { Store } from "./store";

/** What an engine's store brings besides its `SqlDatabase`: its credential cache, and how it pings and closes its connection(s). */
export type StoreEngine = {
  credentials?: CredentialCache;
  onWriteError?: WriteErrorListener;
  ping(): Promise<void>;
  close(): Promise<void>;
};

/** The `Store` the handlers use, every concern written once on `db`; closing flushes buffered quotes first. */
export function composeStore(db: SqlDatabase<ApiSchema>, engine: StoreEngine): Store {
  const challenges = new SqlChallenges(db);
  const quotes = new SqlQuotes(db, engine.onWriteError ?? (() => undefined));
  return {
    ...methodsOf(challenges),
    ...methodsOf(new SqlIntegrators(db, challenges, engine.credentials)),
    ...methodsOf(new SqlTokenDemand(db)),
    ...methodsOf(quotes),
    ping: () => engine.ping(),
    close: async () => {
      await quotes.flush();
      await engine.close();
    },
  };
}
