import { sql } from "kysely";
import { getAddress, type Address } from "viem";
import { step, type SqlDatabase } from "../../sdk/storage/sqlDatabase";
import type { RelaySchema } from "./relaySchema";
import type { SignerClaim, SignerHolder } from "./relayStore";

/**
 * Which relayer uses which signer addresses (relayer_signers), written once for SQLite and
 * PostgreSQL: a relayer registers its signers at start, renews them with its heartbeat, and releases
 * them at a clean stop, so two relayers never sign with one address at once.
 */
export class SqlSignerClaims {
  readonly #db: SqlDatabase<RelaySchema>;

  constructor(db: SqlDatabase<RelaySchema>) {
    this.#db = db;
  }

  /** Registers the signers unless another live relayer holds one of them; then writes nothing and returns the holders. */
  async claimSigners(claim: SignerClaim): Promise<SignerHolder[]> {
    const { build, capabilities } = this.#db;
    const mine = [...new Set(claim.signers.map((signer) => signer.toLowerCase()))];
    if (mine.length === 0) return [];
    // One relayer registers at a time, so two starting together cannot both find the other absent.
    const lock = capabilities.locks ? sql`LOCK TABLE relayer_signers IN SHARE ROW EXCLUSIVE MODE`.compile(build) : undefined;
    const holders = build
      .selectFrom("relayer_signers")
      .select(["signer", "relayer_id", "live_until"])
      .where("signer", "in", mine)
      .where("relayer_id", "<>", claim.relayerId)
      .where("live_until", ">", claim.now.getTime())
      .orderBy("signer");
    const registrations = mine.map((signer) =>
      build
        .insertInto("relayer_signers")
        .values({ signer, relayer_id: claim.relayerId, live_until: claim.until.getTime() })
        .onConflict((conflict) => conflict.column("signer").doUpdateSet((eb) => ({ relayer_id: eb.ref("excluded.relayer_id"), live_until: eb.ref("excluded.live_until") }))),
    );
    return this.#db.transaction(function* () {
      if (lock !== undefined) yield* step.changes(lock);
      const held = yield* step.rows(holders);
      if (held.length > 0) return held.map((row) => ({ signer: getAddress(row.signer), relayerId: row.relayer_id, until: new Date(Number(row.live_until)) }));
      for (const registration of registrations) yield* step.changes(registration);
      return [];
    });
  }

  /** Extends this relayer's registration of `signers` (its heartbeat); an address it let go is not renewed and lapses. */
  async renewSigners(relayerId: string, until: Date, signers: readonly Address[]): Promise<void> {
    if (signers.length === 0) return;
    await this.#db.changes(
      this.#db.build
        .updateTable("relayer_signers")
        .set({ live_until: until.getTime() })
        .where("relayer_id", "=", relayerId)
        .where("signer", "in", signers.map((signer) => signer.toLowerCase())),
    );
  }

  /** Whether a relay `relayerId` holds, not yet final, has its transactions on `signer` (its receipt may still be awaited). */
  async signerHasOpenRelays(signer: Address, relayerId: string): Promise<boolean> {
    // The statuses as literals: SQLite uses its partial index of open relays only for the predicate it was built with.
    const open = this.#db.build
      .selectFrom("relays")
      .select("id")
      .where(sql<boolean>`status IN ('accepted', 'submitted')`)
      .where("signer", "=", signer.toLowerCase())
      .where("claimed_by", "=", relayerId)
      .limit(1);
    return (await this.#db.rows(open)).length > 0;
  }

  /** The addresses registered to this relayer now: one missing was taken by another relayer after its registration lapsed. */
  async heldSigners(relayerId: string): Promise<Address[]> {
    return (await this.#db.rows(this.#db.build.selectFrom("relayer_signers").select("signer").where("relayer_id", "=", relayerId))).map((row) => getAddress(row.signer));
  }

  /** Drops this relayer's registration of its signers (a clean stop), or of those given (a signer retired). */
  async releaseSigners(relayerId: string, signers?: readonly Address[]): Promise<void> {
    let release = this.#db.build.deleteFrom("relayer_signers").where("relayer_id", "=", relayerId);
    if (signers !== undefined) {
      if (signers.length === 0) return;
      release = release.where("signer", "in", signers.map((signer) => signer.toLowerCase()));
    }
    await this.#db.changes(release);
  }
}
