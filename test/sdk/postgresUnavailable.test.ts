import { expect } from "chai";
import pg from "pg";
import { freePort } from "../../scripts/devnet/freePort";
import { isPostgresUnavailableError } from "../../sdk/storage/postgresUnavailable";
import { openPostgresPool } from "../../sdk/storage/postgresPool";
import { createTestDatabase } from "../fixtures/postgresServer";

/** What the driver really raises, told apart: an outage (retry later, 503) from a statement at fault (a bug, 500). */
describe("isPostgresUnavailableError", function () {
  this.timeout(30_000);
  let url: string;
  before(async () => {
    url = await createTestDatabase("pg_unavailable");
  });

  async function failureOf(work: () => Promise<unknown>): Promise<unknown> {
    try {
      await work();
    } catch (error) {
      return error;
    }
    throw new Error("expected a failure");
  }

  it("is true for a refused connection (no server on the port)", async () => {
    const pool = openPostgresPool(`postgres://postgres:postgres@127.0.0.1:${await freePort()}/none`);
    try {
      const error = await failureOf(() => pool.query("SELECT 1"));
      expect((error as { code?: string }).code).to.equal("ECONNREFUSED");
      expect(isPostgresUnavailableError(error)).to.equal(true);
    } finally {
      await pool.end();
    }
  });

  it("is true for a session the server ends (57P01 admin_shutdown, as a stopping server sends)", async () => {
    const victim = new pg.Client({ connectionString: url });
    victim.on("error", () => undefined);
    await victim.connect();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const { rows } = await victim.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const running = failureOf(() => victim.query("SELECT pg_sleep(10)"));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
      const error = await running;
      expect((error as { code?: string }).code).to.equal("57P01");
      expect(isPostgresUnavailableError(error)).to.equal(true);
      // The connection is gone: the next query on it fails too, and is an outage as well.
      expect(isPostgresUnavailableError(await failureOf(() => victim.query("SELECT 1")))).to.equal(true);
    } finally {
      await admin.end();
      await victim.end().catch(() => undefined);
    }
  });

  it("is true for a pool that waited longer than its connection timeout", async () => {
    const pool = openPostgresPool(url, { max: 1, connectionTimeoutMs: 50 });
    const held = await pool.connect();
    try {
      const error = await failureOf(() => pool.query("SELECT 1"));
      expect((error as Error).message).to.equal("timeout exceeded when trying to connect");
      expect(isPostgresUnavailableError(error)).to.equal(true);
    } finally {
      held.release();
      await pool.end();
    }
  });

  it("is false for what the statement got wrong: a syntax error, a missing table, a constraint, a NUL byte, and for non-errors", async () => {
    const pool = openPostgresPool(url);
    try {
      await pool.query("CREATE TABLE unique_things (name TEXT PRIMARY KEY)");
      await pool.query("INSERT INTO unique_things VALUES ('a')");
      const failures = [
        await failureOf(() => pool.query("SELEC 1")),
        await failureOf(() => pool.query("SELECT * FROM no_such_table")),
        await failureOf(() => pool.query("INSERT INTO unique_things VALUES ('a')")),
        await failureOf(() => pool.query("INSERT INTO unique_things VALUES ($1)", ["a\u0000b"])),
      ];
      expect(failures.map((error) => (error as { code?: string }).code)).to.deep.equal(["42601", "42P01", "23505", "22021"]);
      for (const error of failures) expect(isPostgresUnavailableError(error), String(error)).to.equal(false);
    } finally {
      await pool.end();
    }
    for (const value of [undefined, null, "ECONNREFUSED", 42, new Error("boom"), { code: "08" }]) expect(isPostgresUnavailableError(value), String(value)).to.equal(false);
  });
});
