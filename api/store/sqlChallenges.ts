import { step, type SqlDatabase, type TransactionBody } from "../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "./apiSchema";
import { CHALLENGE_RETENTION_MS, nonceRejected, Rollback, verificationRefusal, type Written } from "./challengeSpending";
import { challengeFromRow, challengeParams } from "./rows/challengeRow";
import type { ChallengeRecord, ChallengeStore, ChallengeUse, ChallengeUseOutcome, NewChallenge, NonceRejected, VerificationStart } from "./store";

/**
 * Onboarding challenges on either engine; `spendAndWrite` lets the integrator writes spend a nonce in
 * their transaction. The spend is one conditional UPDATE: on SQLite the immediate transaction holds
 * the database, so nothing runs between it and its check; on PostgreSQL a second transaction spending
 * the same nonce waits on the row lock, re-reads `used_at` and updates nothing.
 */
export class SqlChallenges implements ChallengeStore {
  readonly #db: SqlDatabase<ApiSchema>;

  constructor(db: SqlDatabase<ApiSchema>) {
    this.#db = db;
  }

  async saveChallenge(challenge: NewChallenge): Promise<void> {
    const { build } = this.#db;
    await this.#db.transaction(function* () {
      yield* step.changes(build.deleteFrom("challenges").where("expires_at", "<", challenge.issuedAt.getTime() - CHALLENGE_RETENTION_MS));
      yield* step.changes(build.insertInto("challenges").values(challengeParams(challenge)));
    });
  }

  async findChallenge(nonce: string): Promise<ChallengeRecord | undefined> {
    const row = await this.#db.first(this.#db.build.selectFrom("challenges").selectAll().where("nonce", "=", nonce));
    return row && challengeFromRow(row);
  }

  async consumeChallenge(use: ChallengeUse): Promise<ChallengeUseOutcome> {
    return this.#db.transaction(() => this.#spend(use));
  }

  async beginVerification(use: ChallengeUse, limit: number): Promise<VerificationStart> {
    const started = await this.#db.changes(
      this.#db.build
        .updateTable("challenges")
        .set((eb) => ({ failed_verifications: eb("failed_verifications", "+", 1) }))
        .where("nonce", "=", use.nonce)
        .where("used_at", "is", null)
        .where("expires_at", ">", use.at.getTime())
        .where("failed_verifications", "<", limit),
    );
    if (started === 1) return "started";
    return verificationRefusal(await this.#db.first(this.#db.build.selectFrom("challenges").select(["used_at", "failed_verifications"]).where("nonce", "=", use.nonce)), limit);
  }

  async settleVerification(use: ChallengeUse, outcome: "valid" | "unavailable" | "invalid", limit: number): Promise<void> {
    const challenge = this.#db.build.updateTable("challenges").where("nonce", "=", use.nonce);
    await this.#db.changes(
      outcome === "invalid"
        ? challenge.set({ used_at: use.at.getTime() }).where("used_at", "is", null).where("failed_verifications", ">=", limit)
        : challenge.set((eb) => ({ failed_verifications: eb("failed_verifications", "-", 1) })).where("failed_verifications", ">", 0),
    );
  }

  /**
   * Spends the nonce first, then runs the write, in one transaction. Spending first means a replay is
   * always told "nonce used", never a conflict caused by its own earlier success; a write that
   * declines to commit rolls the spend back, so the nonce stays usable.
   */
  async spendAndWrite<Result>(use: ChallengeUse, write: () => TransactionBody<Written<Result>>): Promise<Result | NonceRejected> {
    const spend = (spent: ChallengeUse) => this.#spend(spent);
    try {
      return await this.#db.transaction(function* (): TransactionBody<Result | NonceRejected> {
        const spent = yield* spend(use);
        if (spent !== "consumed") return nonceRejected(spent);
        const written = yield* write();
        if (!written.commit) throw new Rollback(written.result);
        return written.result;
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result as Result;
      throw error;
    }
  }

  *#spend(use: ChallengeUse): TransactionBody<ChallengeUseOutcome> {
    const at = use.at.getTime();
    const { build } = this.#db;
    // The single conditional write that makes a nonce single-use.
    const spent = yield* step.changes(build.updateTable("challenges").set({ used_at: at }).where("nonce", "=", use.nonce).where("used_at", "is", null).where("expires_at", ">", at));
    if (spent === 1) return "consumed";
    const row = yield* step.first(build.selectFrom("challenges").select("used_at").where("nonce", "=", use.nonce));
    return row?.used_at != null ? "used" : "expired";
  }
}
