import type { SqlDatabase } from "../../sdk/storage/sqlDatabase";
import type { RelaySchema } from "./relaySchema";
import type { RelayStore } from "./relayStore";
import { SqlSignerClaims } from "./sqlSignerClaims";
import { SqlSignerStates } from "./sqlSignerStates";
import { SqlTopUps } from "./sqlTopUps";
import { SqlUnpaidGas } from "./sqlUnpaidGas";

/** The part of the relay store written once for both engines (docs/storage.md). */
type WrittenOnce =
  | "claimSigners" | "renewSigners" | "heldSigners" | "signerHasOpenRelays" | "releaseSigners" | "setSignerState" | "addSignerKey" | "signerStates" | "reportSigners"
  | "recordTopUp" | "setTopUpStatus" | "topUps" | "unfinishedTopUps"
  | "recordUnpaidGas" | "unpaidGasCharged" | "unpaidGasReleaseAt" | "unpaidGasTotals" | "listUnpaidGasTallies" | "clearUnpaidGas";

/**
 * What each engine's relay store inherits: the concerns whose queries are written once, on the
 * engine's `SqlDatabase`. The relays, their transactions and pushed status stay in the engine's class.
 */
export class SqlRelayTables implements Pick<RelayStore, WrittenOnce> {
  readonly #signerClaims: SqlSignerClaims;
  readonly #signerStates: SqlSignerStates;
  readonly #topUps: SqlTopUps;
  readonly #unpaidGas: SqlUnpaidGas;

  constructor(db: SqlDatabase<RelaySchema>) {
    this.#signerClaims = new SqlSignerClaims(db);
    this.#signerStates = new SqlSignerStates(db);
    this.#topUps = new SqlTopUps(db);
    this.#unpaidGas = new SqlUnpaidGas(db);
  }

  claimSigners(...args: Parameters<RelayStore["claimSigners"]>) { return this.#signerClaims.claimSigners(...args); }
  renewSigners(...args: Parameters<RelayStore["renewSigners"]>) { return this.#signerClaims.renewSigners(...args); }
  heldSigners(...args: Parameters<RelayStore["heldSigners"]>) { return this.#signerClaims.heldSigners(...args); }
  signerHasOpenRelays(...args: Parameters<RelayStore["signerHasOpenRelays"]>) { return this.#signerClaims.signerHasOpenRelays(...args); }
  releaseSigners(...args: Parameters<RelayStore["releaseSigners"]>) { return this.#signerClaims.releaseSigners(...args); }
  setSignerState(...args: Parameters<RelayStore["setSignerState"]>) { return this.#signerStates.setSignerState(...args); }
  addSignerKey(...args: Parameters<RelayStore["addSignerKey"]>) { return this.#signerStates.addSignerKey(...args); }
  signerStates() { return this.#signerStates.signerStates(); }
  reportSigners(...args: Parameters<RelayStore["reportSigners"]>) { return this.#signerStates.reportSigners(...args); }
  recordTopUp(...args: Parameters<RelayStore["recordTopUp"]>) { return this.#topUps.recordTopUp(...args); }
  setTopUpStatus(...args: Parameters<RelayStore["setTopUpStatus"]>) { return this.#topUps.setTopUpStatus(...args); }
  topUps(...args: Parameters<RelayStore["topUps"]>) { return this.#topUps.topUps(...args); }
  unfinishedTopUps() { return this.#topUps.unfinishedTopUps(); }
  recordUnpaidGas(...args: Parameters<RelayStore["recordUnpaidGas"]>) { return this.#unpaidGas.recordUnpaidGas(...args); }
  unpaidGasCharged(...args: Parameters<RelayStore["unpaidGasCharged"]>) { return this.#unpaidGas.unpaidGasCharged(...args); }
  unpaidGasReleaseAt(...args: Parameters<RelayStore["unpaidGasReleaseAt"]>) { return this.#unpaidGas.unpaidGasReleaseAt(...args); }
  unpaidGasTotals(...args: Parameters<RelayStore["unpaidGasTotals"]>) { return this.#unpaidGas.unpaidGasTotals(...args); }
  listUnpaidGasTallies(...args: Parameters<RelayStore["listUnpaidGasTallies"]>) { return this.#unpaidGas.listUnpaidGasTallies(...args); }
  clearUnpaidGas(...args: Parameters<RelayStore["clearUnpaidGas"]>) { return this.#unpaidGas.clearUnpaidGas(...args); }
}
