import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address } from "viem";
import { manifestPath, writeManifest, type DeploymentManifest } from "../../sdk";
import { loadApiConfig, type ApiConfig } from "../../api/config";
import { openStore } from "../../api/store/openStore";
import type { Store } from "../../api/store/store";
import { ChainSupportedTokens } from "../../api/tokens/chainSupportedTokens";
import { checkTokenOnChain } from "../../api/tokens/tokenOnChainCheck";
import { runTokensCommand } from "../../scripts/tokens";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { newDevToken } from "../fixtures/newDevToken";
import { createTestDatabase } from "../fixtures/postgresServer";
import { runScript } from "../fixtures/runScript";

/** The API's database: a SQLite file, or a fresh PostgreSQL database (`DATABASE_URL`). */
const engines: { name: string; env(): Promise<Record<string, string>> }[] = [
  { name: "SQLite", env: async () => ({}) },
  { name: "PostgreSQL", env: async () => ({ DATABASE_URL: await createTestDatabase("tokens_cli") }) },
];

for (const engine of engines) describe(`operator CLI: npm run tokens on ${engine.name}`, () => {
  let f: SettlementFixture;
  let directory: string;
  let config: ApiConfig;
  let databaseEnv: Record<string, string>;
  let manifest: DeploymentManifest;
  let store: Store;
  let output: string[];
  const now = new Date("2026-01-01T12:00:00.000Z");

  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    directory = mkdtempSync(join(tmpdir(), "tokens-cli-"));
    databaseEnv = { API_DB_PATH: join(directory, "api.sqlite"), ...(await engine.env()) };
    config = loadApiConfig({ ...databaseEnv, DEPLOYMENTS_DIR: directory });
    manifest = await fixtureManifest(f);
    writeManifest(manifestPath(directory, 4663), manifest);
    store = await openStore(config);
    output = [];
  });
  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  const run = (...args: string[]) => runTokensCommand(args, { store, config, print: (line) => output.push(line), now, connect: () => f.publicClient });
  const supported = async () => new ChainSupportedTokens(4663, manifest, await store.listTokenOverrides(4663));

  it("enable runs the on-chain checks and records the token with its pool; a token without a pool is refused with the reason", async () => {
    const listed = await newDevToken(f, { symbol: "OPS", decimals: 8, wethLiquidity: "5" });
    expect(await run("enable", listed.address)).to.equal(0);
    expect(output.at(-1)).to.match(new RegExp(`enabled ${listed.address.toLowerCase()} \\(OPS, 8 decimals\\).*pool ${listed.pair}`));
    const set = await supported();
    expect(set.resolve("ops")).to.deep.equal({ address: listed.address.toLowerCase(), symbol: "OPS", decimals: 8 });
    expect(set.pools().map((pool) => pool.address)).to.include(listed.pair);

    const unlisted = await newDevToken(f, { symbol: "NOPE" });
    expect(await run("enable", unlisted.address, "--chain", "4663")).to.equal(1);
    expect(output.at(-1)).to.match(/not enabled: .* no Uniswap V2 pool/);
    expect((await supported()).resolve(unlisted.address)).to.equal(undefined);
  });

  it("disable removes a token, also a manifest one (enable restores it), but refuses the native placeholder and WETH", async () => {
    const usdc = f.token("USDC").toLowerCase() as Address;
    expect(await run("disable", usdc)).to.equal(0);
    expect(output.at(-1)).to.match(/disabled .* manifest token/);
    expect((await supported()).resolve("USDC")).to.equal(undefined);
    expect(await run("enable", usdc)).to.equal(0);
    expect(output.at(-1)).to.match(/re-enabled manifest token/);
    expect((await supported()).resolve("USDC")?.address).to.equal(usdc);

    expect(await run("disable", `0x${"E".repeat(40)}`)).to.equal(1);
    expect(await run("disable", f.contracts.weth)).to.equal(1);
    expect(output.slice(-2).join("\n")).to.match(/native placeholder cannot be disabled[\s\S]*WETH/);
    expect(await store.listTokenOverrides()).to.deep.equal([]);
  });

  it("demand lists distinct integrators per token within the window; list shows every supported and disabled token", async () => {
    const token = "0x00000000000000000000000000000000000000aa" as Address;
    const seen = (integratorId: number, hoursAgo: number) => {
      const at = new Date(now.getTime() - hoursAgo * 3_600_000);
      return { chainId: 4663, token, integratorId, firstSeen: at, lastSeen: at };
    };
    await store.recordTokenDemand([seen(1, 1), seen(2, 2), seen(3, 30)]);
    expect(await run("demand")).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`4663\\s+${token}\\s+2\\s`));

    output = [];
    expect(await run("disable", token)).to.equal(0);
    expect(await run("list", "--chain", "4663")).to.equal(0);
    const table = output.slice(1).join("\n");
    expect(table).to.match(/USDC\s+6\s+manifest/).and.to.match(/ETH\s+18\s+native/);
    // Not a token contract: its symbol and decimals are unknown, and the row says so.
    expect(table).to.match(new RegExp(`${token}\\s+\\?\\s+\\?\\s+disabled`));
  });

  it("list shows symbol and decimals on every row, disabled manifest and promoted tokens included", async () => {
    const listed = await newDevToken(f, { symbol: "LST", decimals: 8, wethLiquidity: "5" });
    expect(await run("enable", listed.address)).to.equal(0);
    expect(await run("disable", listed.address)).to.equal(0);
    expect(await run("disable", f.token("USDC"))).to.equal(0);
    output = [];
    expect(await run("list")).to.equal(0);
    const table = output.join("\n");
    expect(table).to.match(new RegExp(`${listed.address.toLowerCase()}\\s+LST\\s+8\\s+disabled`));
    expect(table).to.match(new RegExp(`${f.token("USDC").toLowerCase()}\\s+USDC\\s+6\\s+disabled`));
  });

  it("demand shows a re-enabled manifest token as supported, and a disabled one as disabled", async () => {
    const usdc = f.token("USDC").toLowerCase() as Address;
    await store.recordTokenDemand([{ chainId: 4663, token: usdc, integratorId: 1, firstSeen: now, lastSeen: now }]);
    expect(await run("disable", usdc)).to.equal(0);
    output = [];
    await run("demand");
    expect(output.join("\n")).to.match(new RegExp(`${usdc}\\s+1\\s.*disabled`));
    expect(await run("enable", usdc)).to.equal(0);
    output = [];
    await run("demand");
    expect(output.join("\n")).to.match(new RegExp(`${usdc}\\s+1\\s.*supported \\(manifest\\)`));
  });

  it("a promoted token demoted at its recheck shows as demoted with why (list, demand); only demand from operator-approved integrators is counted; enable restores it", async () => {
    const rug = await newDevToken(f, { symbol: "RUG", wethLiquidity: "5" });
    const token = rug.address.toLowerCase() as Address;
    const check = await checkTokenOnChain({ client: f.publicClient, manifest, token, bases: manifest.tokens.map((base) => base.address), minLiquidityWei: 1n });
    if (!check.ok) throw new Error(check.reason);
    await store.saveTokenOverride(
      { chainId: 4663, token, status: "promoted", source: "demand", symbol: "RUG", decimals: 18, pool: check.pool, reason: "3 integrators", chainRun: manifest.deployBlockHash, at: now },
      "if_absent",
    );
    const demotion = { chainId: 4663, token, chainRun: manifest.deployBlockHash, reason: "demoted at its recheck: its deepest pool holds 7 wei, below the minimum", at: now };
    expect(await store.demoteToken(demotion)).to.equal(true);
    expect(await store.demoteToken(demotion), "only a promoted token is demoted").to.equal(false);
    const [stored] = await store.listTokenOverrides(4663);
    expect(stored).to.deep.include({ status: "disabled", source: "demand", symbol: "RUG", reason: demotion.reason });
    expect(stored!.pool?.address).to.equal(rug.pair);
    // Demand from an integrator no operator approved (here: no profile at all) is shown but not counted.
    await store.recordTokenDemand([{ chainId: 4663, token, integratorId: 1, firstSeen: now, lastSeen: now }]);

    output = [];
    expect(await run("list")).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`${token}\\s+RUG\\s+18\\s+demoted\\s+${rug.pair}\\s+\\S+\\s+demoted at its recheck: its deepest pool holds 7 wei`));
    output = [];
    expect(await run("demand")).to.equal(0);
    expect(output.join("\n")).to.match(/promotion needs 3 distinct operator-approved integrators/);
    expect(output.join("\n")).to.match(new RegExp(`${token}\\s+1\\s+0\\s.*demoted \\(demoted at its recheck`));

    expect(await run("enable", token)).to.equal(0);
    expect((await supported()).resolve(token)).to.deep.equal({ address: token, symbol: "RUG", decimals: 18 });
    expect(await store.demoteToken(demotion), "an operator's decision is never demoted").to.equal(false);
  });

  it("decisions of an earlier chain run are not listed for the current one", async () => {
    const token = "0x00000000000000000000000000000000000000cc" as Address;
    await store.saveTokenOverride(
      { chainId: 4663, token, status: "disabled", source: "operator", symbol: "OLD", decimals: 18, pool: undefined, reason: "earlier run", chainRun: `0x${"12".repeat(32)}`, at: now },
      "replace",
    );
    output = [];
    expect(await run("list")).to.equal(0);
    expect(output.join("\n")).to.not.include(token);
  });

  it("refuses bad usage with exit code 2", async () => {
    expect(await run()).to.equal(2);
    expect(await run("enable", "not-an-address")).to.equal(2);
    expect(await run("list", "--chain", "1")).to.equal(2);
    expect(await run("list", "--bogus")).to.equal(2);
  });

  it("runs as npm run tokens does, on the API's database", async () => {
    await store.recordTokenDemand([{ chainId: 4663, token: "0x00000000000000000000000000000000000000bb" as Address, integratorId: 1, firstSeen: now, lastSeen: new Date() }]);
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_")));
    const result = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", "scripts/tokens.ts", "demand"], {
      cwd: hre.config.paths.root,
      env: { ...env, ...databaseEnv, DEPLOYMENTS_DIR: directory },
      encoding: "utf8",
    });
    expect(result.status, result.stderr).to.equal(0);
    expect(result.stdout).to.match(/0x00000000000000000000000000000000000000bb\s+1\s/);
  });
});

describe("operator CLI: npm run tokens on an unreachable PostgreSQL", () => {
  it("says so in one line naming DATABASE_URL, exit code 1", async () => {
    const result = await runScript("scripts/tokens.ts", ["list"], { DATABASE_URL: "postgres://ops:hunter2@127.0.0.1:9/swap" });
    expect(result.status).to.equal(1);
    expect(result.stderr.trim()).to.match(/^tokens: cannot use the PostgreSQL database at DATABASE_URL \(postgres:\/\/ops@127\.0\.0\.1:9\/swap\): \S.*$/);
    expect(result.stderr).to.not.contain("hunter2");
  });
});
