import type Database from "better-sqlite3";
import { CHALLENGE_RETENTION_MS, nonceRejected, Rollback, verificationRefusal, type Written } from "../challengeSpending";
import { challengeFromRow, challengeParams, type ChallengeRow } from "../rows/challengeRow";
import type { ChallengeRecord, ChallengeStore, ChallengeUse, ChallengeUseOutcome, NewChallenge, NonceRejected, VerificationStart } from "../store";

/** Onboarding challenges on SQLite; `spendAndWrite` lets the integrator writes spend a nonce in their transaction. */
export class SqliteChallenges implements ChallengeStore {
  readonly #db: Database.Database;
  readonly #statements;

  constructor(db: Database.Database) {
    this.#db = db;
    this.#statements = {
      insert: db.prepare(`INSERT INTO challenges
        (nonce, wallet, action, chain_id, payload_hash, message, issued_at, expires_at)
        VALUES (@nonce, @wallet, @action, @chain_id, @payload_hash, @message, @issued_at, @expires_at)`),
      prune: db.prepare("DELETE FROM challenges WHERE expires_at < ?"),
      find: db.prepare("SELECT * FROM challenges WHERE nonce = ?"),
      // The single conditional write that makes a nonce single-use.
      spend: db.prepare("UPDATE challenges SET used_at = @at WHERE nonce = @nonce AND used_at IS NULL AND expires_at > @at"),
      beginVerification: db.prepare(`UPDATE challenges SET failed_verifications = failed_verifications + 1
        WHERE nonce = @nonce AND used_at IS NULL AND expires_at > @at AND failed_verifications < @limit`),
      giveBackVerification: db.prepare("UPDATE challenges SET failed_verifications = failed_verifications - 1 WHERE nonce = @nonce AND failed_verifications > 0"),
      spendUsedUp: db.prepare("UPDATE challenges SET used_at = @at WHERE nonce = @nonce AND used_at IS NULL AND failed_verifications >= @limit"),
    };
  }

  async saveChallenge(challenge: NewChallenge): Promise<void> {
    this.#db
      .transaction(() => {
        this.#statements.prune.run(challenge.issuedAt.getTime() - CHALLENGE_RETENTION_MS);
        this.#statements.insert.run(challengeParams(challenge));
      })
      .immediate();
  }

  async findChallenge(nonce: string): Promise<ChallengeRecord | undefined> {
    const row = this.#statements.find.get(nonce) as ChallengeRow | undefined;
    return row && challengeFromRow(row);
  }

  async consumeChallenge(use: ChallengeUse): Promise<ChallengeUseOutcome> {
    return this.#spend(use);
  }

  async beginVerification(use: ChallengeUse, limit: number): Promise<VerificationStart> {
    const { changes } = this.#statements.beginVerification.run({ nonce: use.nonce, at: use.at.getTime(), limit });
    if (changes === 1) return "started";
    return verificationRefusal(this.#statements.find.get(use.nonce) as ChallengeRow | undefined, limit);
  }

  async settleVerification(use: ChallengeUse, outcome: "valid" | "unavailable" | "invalid", limit: number): Promise<void> {
    if (outcome === "invalid") this.#statements.spendUsedUp.run({ nonce: use.nonce, at: use.at.getTime(), limit });
    else this.#statements.giveBackVerification.run({ nonce: use.nonce });
  }

  /**
   * Spends the nonce first, then runs the write, in one immediate transaction. Spending first means a
   * replay is always told "nonce used", never a conflict caused by its own earlier success; a write
   * that declines to commit rolls the spend back, so the nonce stays usable.
   */
  spendAndWrite<Result>(use: ChallengeUse, write: () => Written<Result>): Result | NonceRejected {
    try {
      return this.#db
        .transaction((): Result | NonceRejected => {
          const spent = this.#spend(use);
          if (spent !== "consumed") return nonceRejected(spent);
          const written = write();
          if (!written.commit) throw new Rollback(written.result);
          return written.result;
        })
        .immediate();
    } catch (error) {
      if (error instanceof Rollback) return error.result as Result;
      throw error;
    }
  }

  #spend(use: ChallengeUse): ChallengeUseOutcome {
    const { changes } = this.#statements.spend.run({ nonce: use.nonce, at: use.at.getTime() });
    if (changes === 1) return "consumed";
    const row = this.#statements.find.get(use.nonce) as ChallengeRow | undefined;
    return row?.used_at != null ? "used" : "expired";
  }
}
