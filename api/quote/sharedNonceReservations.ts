import { openPostgresPool, type PostgresPool } from "../../sdk/storage/postgresPool";

/**
 * Permit2 nonce reservations every API instance sees. One instance alone keeps them in memory
 * (`PermitNonceAllocator`); several instances behind a load balancer would each pick a taker's lowest
 * free nonce and hand two quotes the same one, so only one of them could ever fill. On PostgreSQL a
 * nonce an instance picks is claimed in a shared table before the quote is issued.
 */
export interface SharedNonceReservations {
  /** Claims `nonce` of `taker` until `untilMs`: true when no other live reservation holds it. */
  claim(chainId: number, taker: string, nonce: bigint, untilMs: number, nowMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const TABLE = "permit_nonce_reservations";
/** Claims between two sweeps of expired rows: the table stays about as large as the open quotes. */
const SWEEP_EVERY = 1_000;

/**
 * The table lives beside the API's store on `DATABASE_URL`. A claim is one statement: an insert
 * that, on conflict, takes the row over only when its reservation has expired, so of two instances
 * claiming one nonce at once exactly one gets it.
 */
export async function openPostgresNonceReservations(url: string): Promise<SharedNonceReservations> {
  const pool: PostgresPool = openPostgresPool(url, { max: 5, applicationName: "api-permit-nonces" });
  try {
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${TABLE} (chain_id INTEGER NOT NULL, taker TEXT NOT NULL, nonce NUMERIC(78) NOT NULL, until_ms BIGINT NOT NULL, PRIMARY KEY (chain_id, taker, nonce))`,
    );
    await pool.query(`CREATE INDEX IF NOT EXISTS ${TABLE}_until ON ${TABLE} (until_ms)`);
  } catch (error) {
    await pool.end();
    throw error;
  }
  let claims = 0;
  return {
    async claim(chainId, taker, nonce, untilMs, nowMs) {
      // The sweep runs beside the claim, not before it: no quote waits for it, and a failed one is retried later.
      if (++claims % SWEEP_EVERY === 0) void pool.query(`DELETE FROM ${TABLE} WHERE until_ms <= $1`, [nowMs]).catch(() => undefined);
      // A prepared statement: parsed and planned once per connection, not once per quote.
      const { rowCount } = await pool.query({
        name: "permit-nonce-claim",
        text: `INSERT INTO ${TABLE} (chain_id, taker, nonce, until_ms) VALUES ($1, $2, $3, $4)
         ON CONFLICT (chain_id, taker, nonce) DO UPDATE SET until_ms = EXCLUDED.until_ms WHERE ${TABLE}.until_ms <= $5`,
        values: [chainId, taker.toLowerCase(), nonce.toString(), untilMs, nowMs],
      });
      return rowCount === 1;
    },
    close: () => pool.end(),
  };
}
