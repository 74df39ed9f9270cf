import { expect } from "chai";
import pg from "pg";
import { openPostgresPool } from "../../sdk/storage/postgresPool";
import { createTestDatabase } from "../fixtures/postgresServer";

/**
 * Found by `npm run soak`: an API instance died of an uncaught "Connection terminated unexpectedly"
 * when PostgreSQL restarted. pg-pool listens for errors only on idle clients; a client checked out
 * (a transaction, a challenge being spent) whose session the server ends emitted 'error' with no
 * listener, which crashes the process.
 */
describe("PostgreSQL pool: a checked-out connection the server ends", function () {
  this.timeout(30_000);
  let url: string;
  before(async () => {
    url = await createTestDatabase("pool_checked_out");
  });

  it("does not crash the process; the broken connection is dropped on release and the pool serves the next query", async () => {
    const pool = openPostgresPool(url);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    // Mocha's own handler would fail the test too; this one lets the test say what happened.
    const mochaHandlers = process.listeners("uncaughtException");
    process.removeAllListeners("uncaughtException");
    process.on("uncaughtException", onUncaught);
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      // Terminated between two statements, as a restarting server (57P01) does to every session.
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      // The 57P01 message, then the closed socket: each was an 'error' event on the client.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(uncaught.map(String)).to.deep.equal([]);
      await client.query("SELECT 1").then(
        () => expect.fail("a terminated session cannot answer"),
        (error: Error) => expect(error.message).to.match(/terminated|not queryable/i),
      );
      client.release();
      client = undefined;
      expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows).to.deep.equal([{ one: 1 }]);
    } finally {
      process.off("uncaughtException", onUncaught);
      for (const handler of mochaHandlers) process.on("uncaughtException", handler);
      client?.release();
      await admin.end();
      await pool.end();
    }
  });
});
