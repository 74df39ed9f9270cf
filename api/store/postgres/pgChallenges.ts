import { withTransaction, type PostgresClient, type PostgresPool } from "../../../sdk/storage/postgresPool";
import { CHALLENGE_RETENTION_MS, nonceRejected, Rollback, verificationRefusal, type Written } from "../challengeSpending";
import { challengeFromRow, challengeParams, type ChallengeRow } from "../rows/challengeRow";
import type { ChallengeRecord, ChallengeStore, ChallengeUse, ChallengeUseOutcome, NewChallenge, NonceRejected, VerificationStart } from "../store";

/**
 * Onboarding challenges on PostgreSQL. The spend is one conditional UPDATE: of two transactions
 * spending one nonce, the second waits on the row lock, re-reads `used_at` and updates nothing.
 */
export class PgChallenges implements ChallengeStore {
  readonly #pool: PostgresPool;

  constructor(pool: PostgresPool) {
    this.#pool = pool;
  }

  async saveChallenge(challenge: NewChallenge): Promise<void> {
    const row = challengeParams(challenge);
    await withTransaction(this.#pool, async (client) => {
      await client.query("DELETE FROM challenges WHERE expires_at < $1", [challenge.issuedAt.getTime() - CHALLENGE_RETENTION_MS]);
      await client.query(
        `INSERT INTO challenges (nonce, wallet, action, chain_id, payload_hash, message, issued_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [row.nonce, row.wallet, row.action, row.chain_id, row.payload_hash, row.message, row.issued_at, row.expires_at],
      );
    });
  }

  async findChallenge(nonce: string): Promise<ChallengeRecord | undefined> {
    const { rows } = await this.#pool.query<ChallengeRow>("SELECT * FROM challenges WHERE nonce = $1", [nonce]);
    return rows[0] && challengeFromRow(rows[0]);
  }

  async consumeChallenge(use: ChallengeUse): Promise<ChallengeUseOutcome> {
    const client = await this.#pool.connect();
    try {
      return await spend(client, use);
    } finally {
      client.release();
    }
  }

  async beginVerification(use: ChallengeUse, limit: number): Promise<VerificationStart> {
    const { rowCount } = await this.#pool.query(
      `UPDATE challenges SET failed_verifications = failed_verifications + 1
       WHERE nonce = $1 AND used_at IS NULL AND expires_at > $2 AND failed_verifications < $3`,
      [use.nonce, use.at.getTime(), limit],
    );
    if (rowCount === 1) return "started";
    const { rows } = await this.#pool.query<{ used_at: string | null; failed_verifications: number }>("SELECT used_at, failed_verifications FROM challenges WHERE nonce = $1", [use.nonce]);
    return verificationRefusal(rows[0], limit);
  }

  async settleVerification(use: ChallengeUse, outcome: "valid" | "unavailable" | "invalid", limit: number): Promise<void> {
    if (outcome === "invalid") {
      await this.#pool.query("UPDATE challenges SET used_at = $1 WHERE nonce = $2 AND used_at IS NULL AND failed_verifications >= $3", [use.at.getTime(), use.nonce, limit]);
    } else {
      await this.#pool.query("UPDATE challenges SET failed_verifications = failed_verifications - 1 WHERE nonce = $1 AND failed_verifications > 0", [use.nonce]);
    }
  }

  /** Spends the nonce, then runs the write, in one transaction; a write that declines rolls the spend back. */
  async spendAndWrite<Result>(use: ChallengeUse, write: (client: PostgresClient) => Promise<Written<Result>>): Promise<Result | NonceRejected> {
    try {
      return await withTransaction(this.#pool, async (client): Promise<Result | NonceRejected> => {
        const spent = await spend(client, use);
        if (spent !== "consumed") return nonceRejected(spent);
        const written = await write(client);
        if (!written.commit) throw new Rollback(written.result);
        return written.result;
      });
    } catch (error) {
      if (error instanceof Rollback) return error.result as Result;
      throw error;
    }
  }
}

async function spend(client: PostgresClient, use: ChallengeUse): Promise<ChallengeUseOutcome> {
  const at = use.at.getTime();
  const { rowCount } = await client.query("UPDATE challenges SET used_at = $1 WHERE nonce = $2 AND used_at IS NULL AND expires_at > $1", [at, use.nonce]);
  if (rowCount === 1) return "consumed";
  const { rows } = await client.query<{ used_at: number | null }>("SELECT used_at FROM challenges WHERE nonce = $1", [use.nonce]);
  return rows[0]?.used_at != null ? "used" : "expired";
}
