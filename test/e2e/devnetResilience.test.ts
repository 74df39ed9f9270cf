import { expect } from "chai";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { onboardIntegrator } from "../../sdk";
import { spawnDevnet, type SpawnedDevnet } from "../../scripts/devnet/spawnDevnet";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { runScript } from "../fixtures/runScript";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** The pids of `parent`'s child processes whose command line contains `needle` (Linux /proc). */
function childPids(parent: number, needle: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === parent && readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 60_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Ready = { status: string; gasless?: string; checks: Record<string, string> };
const ready = async (apiUrl: string) => {
  const response = await fetch(`${apiUrl}/ready`);
  return { status: response.status, body: (await response.json()) as Ready };
};

describe("npm start: failed starts and a dying relayer", function () {
  this.timeout(scaledTimeout(300_000));

  describe("beside a running devnet", () => {
    let directory: string;
    let devnet: SpawnedDevnet;
    let env: Record<string, string>;

    before(async function () {
      this.timeout(scaledTimeout(300_000));
      directory = mkdtempSync(join(tmpdir(), "devnet-resilience-"));
      env = {
        DEVNET_PORT: "0",
        API_PORT: "0",
        RELAYER_PORT: "0",
        DEPLOYMENTS_DIR: directory,
        API_DB_PATH: join(directory, "api.sqlite"),
        RELAYER_DB_PATH: join(directory, "relayer.sqlite"),
        API_LOG_LEVEL: "silent",
        RELAYER_LOG_LEVEL: "silent",
      };
      devnet = await spawnDevnet(env);
    });
    after(async () => {
      if (devnet !== undefined) await devnet.stop();
      rmSync(directory, { recursive: true, force: true });
    });

    it("a second npm start with a free DEVNET_PORT and the running API's port fails before deploying: the manifest and the running devnet stay as they were", async () => {
      const manifestFile = join(directory, "4663.json");
      const before = readFileSync(manifestFile, "utf8");
      const busy = new URL(devnet.apiUrl).port;
      const failure = await spawnDevnet({ ...env, DEVNET_PORT: "0", API_PORT: busy, API_DB_PATH: join(directory, "second.sqlite") }).then(
        async (second) => {
          await second.stop();
          throw new Error("the second devnet started on a busy API port");
        },
        (error: Error) => error.message,
      );
      expect(failure).to.include(`the API's port ${busy} on 127.0.0.1 is already in use`).and.include("API_PORT");
      expect(failure).to.not.match(/\n\s+at /);
      expect(readFileSync(manifestFile, "utf8")).to.equal(before);
      // The operator tools still accept the running devnet's manifest.
      const show = await runScript("scripts/registry.ts", ["show", "2"], { RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: directory });
      expect(show.status, show.stderr).to.equal(0);
      expect(show.stderr).to.not.include("describes another run");
    });

    it("notices at once when its relayer is killed with SIGKILL, logs it and restarts it with backoff; meanwhile /ready says gasless is unavailable and quotes ready", async () => {
      const relayers = childPids(devnet.child.pid!, "relayer/main.ts");
      expect(relayers, "one relayer child").to.have.length(1);
      expect(await ready(devnet.apiUrl)).to.deep.include({ status: 200, body: { status: "ready", gasless: "available", checks: { database: "ok", chain: "ok", relayer: "ok" } } });
      const { apiKey } = await onboardIntegrator({
        baseUrl: devnet.apiUrl,
        account: privateKeyToAccount(generatePrivateKey()),
        application: { chain_id: 4663, display_name: "Resilience", slug: `resilience-${Date.now().toString(36)}`, requested_max_fee_bps: 0 },
        keyLabel: "e2e",
      });
      const unknownRelay = () => fetch(`${devnet.apiUrl}/gasless/status/00000000-0000-4000-8000-000000000000`, { headers: { authorization: `Bearer ${apiKey!.secret}` } });

      const first = relayers[0]!;
      process.kill(first, "SIGKILL");
      await until("the exit log line", () => (devnet.output().includes(`relayer (pid ${first}) was killed by SIGKILL; restarting in 500 ms`) ? true : undefined), 5_000);
      const degraded = await ready(devnet.apiUrl);
      expect(degraded.status, "quotes still ready").to.equal(200);
      expect(degraded.body.gasless).to.equal("unavailable");
      expect(degraded.body.checks.relayer).to.match(/cannot be reached/);
      expect((await unknownRelay()).status).to.equal(503);

      const restarted = await until("the restart", () => /relayer restarted \(pid (\d+)\)/.exec(devnet.output())?.[1]);
      expect(childPids(devnet.child.pid!, "relayer/main.ts")).to.deep.equal([Number(restarted)]);
      expect((await ready(devnet.apiUrl)).body).to.deep.include({ gasless: "available" });
      // The restarted relayer took the same port and token: the API reaches it (404, not 503).
      const status = await unknownRelay();
      expect(status.status, await status.text()).to.equal(404);

      // Dying young again doubles the wait.
      process.kill(Number(restarted), "SIGKILL");
      await until("the second exit log line", () => (devnet.output().includes(`relayer (pid ${restarted}) was killed by SIGKILL; restarting in 1000 ms`) ? true : undefined), 5_000);
      await until("the second restart", () => (devnet.output().match(/relayer restarted/g)?.length === 2 ? true : undefined));
      expect((await ready(devnet.apiUrl)).body.gasless).to.equal("available");
    });
  });

  it("with DEVNET_RELAYER=off starts no relayer and prints the command that runs it by hand; run so, gasless becomes available", async () => {
    const directory = mkdtempSync(join(tmpdir(), "devnet-manual-relayer-"));
    const token = "a-devnet-relayer-secret-0123";
    const devnet = await spawnDevnet({ DEVNET_PORT: "0", API_PORT: "0", RELAYER_PORT: "0", DEPLOYMENTS_DIR: directory, API_DB_PATH: join(directory, "api.sqlite"), API_LOG_LEVEL: "silent", DEVNET_RELAYER: "off", RELAYER_INTERNAL_TOKEN: token });
    let relayer: SpawnedService | undefined;
    try {
      expect(childPids(devnet.child.pid!, "relayer/main.ts")).to.deep.equal([]);
      expect((await ready(devnet.apiUrl)).body).to.deep.include({ status: "ready", gasless: "unavailable" });
      const command = /Run the relayer by hand.*\n {2}(.*) npm run relayer$/m.exec(devnet.output())?.[1];
      expect(command, devnet.output()).to.be.a("string");
      const env = Object.fromEntries(command!.split(" ").map((assignment) => assignment.split("=", 2) as [string, string]));
      expect(env).to.include({ RELAYER_INTERNAL_TOKEN: token, CHAIN_ID: "4663", DEPLOYMENTS_DIR: directory });
      relayer = await spawnService("relayer/main.ts", { ...env, RELAYER_DB_PATH: join(directory, "relayer.sqlite"), RELAYER_LOG_LEVEL: "silent" }, /^Relayer on (\S+)$/m);
      expect((await ready(devnet.apiUrl)).body).to.deep.include({ gasless: "available" });
    } finally {
      await relayer?.stop();
      await devnet.stop();
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("a start that fails after deploying puts back the manifest it replaced", async () => {
    const directory = mkdtempSync(join(tmpdir(), "devnet-rollback-"));
    try {
      const manifestFile = join(directory, "4663.json");
      const previous = '{"note":"the manifest of another run"}\n';
      writeFileSync(manifestFile, previous);
      // An invalid relayer setting makes the relayer exit at start, after the contracts are deployed.
      const failure = await spawnDevnet({ DEVNET_PORT: "0", API_PORT: "0", RELAYER_PORT: "0", DEPLOYMENTS_DIR: directory, API_DB_PATH: join(directory, "api.sqlite"), RELAYER_CONFIRMATIONS: "0" }).then(
        async (devnet) => {
          await devnet.stop();
          throw new Error("the devnet started with an invalid relayer setting");
        },
        (error: Error) => error.message,
      );
      expect(failure).to.include('step "start relayer" failed').and.include("RELAYER_CONFIRMATIONS");
      expect(readFileSync(manifestFile, "utf8")).to.equal(previous);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
