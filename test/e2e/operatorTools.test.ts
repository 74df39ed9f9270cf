import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, erc20Abi, getAddress, http, type Address } from "viem";
import { routerRegistryAbi } from "../../sdk";
import { readManifest, type DeploymentManifest } from "../../sdk/chain/manifest";
import { connectToChain } from "../../scripts/chainConnection";
import { spawnDevnet, type SpawnedDevnet } from "../../scripts/devnet/spawnDevnet";
import { runRegistryCommand } from "../../scripts/registry";
import { openPostgresStore } from "../../api/store/postgres/postgresStore";
import { createTestDatabase } from "../fixtures/postgresServer";
import { runScript } from "../fixtures/runScript";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** Development accounts #0 (the deployer: registry administrator, and pauser on the devnet) and #1. */
const DEPLOYER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" as Address;
const SECOND = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as Address;

describe("operator tools against a running devnet (npm start)", function () {
  this.timeout(scaledTimeout(240_000));
  let directory: string;
  let devnet: SpawnedDevnet;
  let manifest: DeploymentManifest;
  let env: NodeJS.ProcessEnv;

  /** An npm script's file as a separate process, pointed at the devnet by the documented variables only. */
  const cli = (script: string, ...args: string[]) => runScript(script, args, env);

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), "operator-tools-"));
    devnet = await spawnDevnet({ DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory, API_PORT: "0", API_DB_PATH: join(directory, "api.sqlite"), RELAYER_PORT: "0", RELAYER_DB_PATH: join(directory, "relayer.sqlite") });
    manifest = readManifest(join(directory, "4663.json"));
    env = { RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: directory, API_DB_PATH: join(directory, "api.sqlite") };
  });
  after(async () => {
    if (devnet !== undefined && devnet.child.exitCode === null) await devnet.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("registry: show prints the four reads; the deployer can pause at once (it is a pauser) and unpause; each write prints its transaction and the state after", async () => {
    const shown = await cli("scripts/registry.ts", "show", "2");
    expect(shown.status, shown.stderr).to.equal(0);
    expect(shown.stdout).to.match(new RegExp(`ownerOf\\s+${manifest.contracts.takerSwapRouter}`));
    expect(shown.stdout).to.match(/prev\s+reverts: RouterRegistryNoPreviousRouter\(2\)/).and.match(/getFeature\s+previous 0x0{40}, current 0x/);

    const paused = await cli("scripts/registry.ts", "pause", "2");
    expect(paused.status, paused.stderr).to.equal(0);
    expect(paused.stdout).to.match(new RegExp(`pause sent by ${DEPLOYER}: tx 0x[0-9a-f]{64}, block \\d+, gas \\d+, success`));
    expect(paused.stdout).to.match(/ownerOf\s+reverts: RouterRegistryFeaturePaused\(2\)/).and.match(/paused true/);

    const again = await cli("scripts/registry.ts", "pause", "2");
    expect(again.status).to.equal(1);
    expect(again.stdout).to.match(/refused: pause reverts with RouterRegistryFeaturePaused\(2\)/);
    expect((await cli("scripts/registry.ts", "unpause", "2")).status).to.equal(0);
  });

  it("registry: pausers, dwell, staging and activation, and the two-step administrator hand-over; refusals name the registry's error", async () => {
    const chain = await connectToChain({ rpcUrl: devnet.rpcUrl, deploymentsDir: directory });
    let output: string[] = [];
    const run = (...args: string[]) => runRegistryCommand(args, { chain, print: (line) => output.push(line), env: {} });
    const registry = { address: manifest.contracts.routerRegistry, abi: routerRegistryAbi } as const;

    expect(await chain.client.readContract({ ...registry, functionName: "isPauser", args: [DEPLOYER] }), "the devnet's deployer is a pauser").to.equal(true);
    expect(await run("set-pauser", SECOND)).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`isPauser\\(${SECOND}\\)\\s+true`));
    expect(await run("pause", "3", "--from", SECOND)).to.equal(0);
    expect(await run("unpause", "3", "--from", SECOND), "a pauser cannot unpause").to.equal(1);
    expect(output.join("\n")).to.match(/refused: unpause reverts with RouterRegistryUnauthorized/);
    expect(await run("unpause", "3")).to.equal(0);
    expect(await run("revoke-pauser", SECOND)).to.equal(0);
    expect(await chain.client.readContract({ ...registry, functionName: "isPauser", args: [SECOND] })).to.equal(false);

    expect(await run("set-dwell", "120")).to.equal(0);
    expect(output.join("\n")).to.match(/dwell\s+120 s/);
    output = [];
    expect(await run("stage", "3", manifest.contracts.takerSwapRouter)).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`next\\s+${manifest.contracts.takerSwapRouter}`));
    expect(await run("unstage", "3")).to.equal(0);
    expect(await run("stage", "3", manifest.contracts.takerSwapRouter)).to.equal(0);
    output = [];
    expect(await run("activate", "3")).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`prev\\s+${manifest.contracts.gaslessSwapRouter}`)).and.match(/dwell window closes\s+\d{4}-/);
    // Past the dwell (120 s) on the chain's clock, show says the window closed instead of naming a past time.
    await chain.client.request({ method: "evm_increaseTime" as never, params: [121] as never });
    await chain.client.request({ method: "evm_mine" as never, params: [] as never });
    output = [];
    expect(await run("show", "3")).to.equal(0);
    expect(output.join("\n")).to.match(/dwell window closed\s+\d{4}-\S+ \(the previous router no longer settles\)/).and.not.match(/dwell window closes/);
    expect(await run("stage", "3", manifest.contracts.takerSwapRouter)).to.equal(1);
    expect(output.join("\n")).to.match(/RouterRegistryAlreadyCurrent\(3, /);

    expect(await run("propose-admin", SECOND)).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`pendingAdmin\\s+${SECOND}`));
    expect(await run("accept-admin", "--from", SECOND)).to.equal(0);
    expect(getAddress(await chain.client.readContract({ ...registry, functionName: "admin" }))).to.equal(SECOND);
    expect(await run("set-dwell", "60"), "the old administrator is refused").to.equal(1);
    expect(output.join("\n")).to.match(new RegExp(`RouterRegistryUnauthorized\\(${DEPLOYER}\\)`));
    expect(await run("propose-admin", DEPLOYER, "--from", SECOND)).to.equal(0);
    expect(await run("accept-admin")).to.equal(0);

    for (const args of [["show"], ["show", "x"], ["stage", "2", "nope"], ["set-dwell", "-1"], ["frobnicate"], ["pause", "2", "--bogus"]]) {
      expect(await run(...args), args.join(" ")).to.equal(2);
    }
  });

  it("devnet-tools: deploys a test token with a pool against a stablecoin, which tokens enable accepts; fund mints and sends test tokens", async () => {
    const deployed = await cli("scripts/devnetTools.ts", "deploy-token", "NEWT", "--decimals", "8", "--pair-with", "USDC", "--depth", "50000");
    expect(deployed.status, deployed.stderr + deployed.stdout).to.equal(0);
    const address = /deployed NEWT \(8 decimals\) at (0x[0-9a-fA-F]{40})/.exec(deployed.stdout)?.[1] as Address;
    expect(address, deployed.stdout).to.be.a("string");
    expect(deployed.stdout).to.match(/pool 0x[0-9a-fA-F]{40} with 50000 USDC and 1000 NEWT/);

    const enabled = await cli("scripts/tokens.ts", "enable", address);
    expect(enabled.status, enabled.stdout + enabled.stderr).to.equal(0);
    expect(enabled.stdout).to.match(new RegExp(`enabled ${address.toLowerCase()} \\(NEWT, 8 decimals\\)`));

    // The same command on PostgreSQL (DATABASE_URL), as an operator of a scaled-out API runs it.
    const databaseUrl = await createTestDatabase("operator_tools");
    const enabledOnPostgres = await runScript("scripts/tokens.ts", ["enable", address], { ...env, DATABASE_URL: databaseUrl });
    expect(enabledOnPostgres.status, enabledOnPostgres.stdout + enabledOnPostgres.stderr).to.equal(0);
    const store = await openPostgresStore(databaseUrl);
    try {
      expect((await store.listTokenOverrides(4663)).map((override) => [override.token, override.status, override.symbol])).to.deep.equal([[address.toLowerCase(), "enabled", "NEWT"]]);
    } finally {
      await store.close();
    }

    const account = "0x00000000000000000000000000000000000f00d5" as Address;
    const funded = await cli("scripts/devnetTools.ts", "fund", account, "usdc", "250.5");
    expect(funded.status, funded.stderr).to.equal(0);
    expect(funded.stdout).to.contain(`funded ${getAddress(account)} with 250.5 USDC (250500000 base units)`);
    const client = createPublicClient({ transport: http(devnet.rpcUrl) });
    const usdc = manifest.tokens.find((token) => token.symbol === "USDC")!.address;
    expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [account] })).to.equal(250_500_000n);

    expect((await cli("scripts/devnetTools.ts", "fund", account, "PEPE", "1")).status).to.equal(1);
    expect((await cli("scripts/devnetTools.ts", "deploy-token")).status).to.equal(2);
  });

  it("every tool names the URL it tried when the chain cannot be reached", async () => {
    const unreachable = { ...env, RPC_URL: "http://127.0.0.1:9" };
    for (const [script, ...args] of [["scripts/registry.ts", "show", "2"], ["scripts/devnetTools.ts", "fund", SECOND, "USDC", "1"], ["scripts/migrateRouter.ts", "2"]] as const) {
      const result = await runScript(script, args, unreachable);
      expect(result.status, script).to.equal(1);
      expect(result.stderr, script).to.contain("cannot reach a chain at http://127.0.0.1:9").and.contain("RPC_URL");
    }
    // tokens enable: the API's RPC_URL, the same variable.
    const tokens = await runScript("scripts/tokens.ts", ["enable", SECOND], unreachable);
    expect(tokens.status).to.equal(1);
    expect(tokens.stdout).to.contain("cannot reach chain 4663 at http://127.0.0.1:9");
  });
});
