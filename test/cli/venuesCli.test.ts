import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress, zeroAddress, type Address } from "viem";
import { v4HookExclusion } from "../../sdk";
import { readV4HookAllowlist, v4HookAllowlistPath } from "../../sdk/chain/v4HookAllowlist";
import { manifestPath } from "../../sdk/chain/manifest";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { propAmmFixture, type PropAmmFixture } from "../fixtures/propAmmFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { runScript } from "../fixtures/runScript";
import { scaledTimeout } from "../fixtures/testTimeouts";

/** The propAMM fixture as a chain's manifest lists it (its V2 and V3 venues come with the fixture's manifest). */
async function venueManifest(f: PropAmmFixture) {
  const base = await fixtureManifest(f);
  return {
    ...base,
    contracts: { ...base.contracts, propAmmAllowlist: getAddress(f.allowlist.address) },
    propAmms: [
      { name: "dev-propamm", address: getAddress(f.wethUsdc.address), token0: f.token("WETH"), token1: f.token("USDC") },
      { name: "dai-propamm", address: getAddress(f.daiPropAmm.address), token0: f.token("DAI"), token1: f.token("WETH") },
    ],
  };
}

describe("operator CLIs for venues: npm run venues, devnet-tools propamm-price (child processes against a served chain)", function () {
  this.timeout(scaledTimeout(180_000));
  let f: PropAmmFixture;
  let server: ChainServer;
  let directory: string;
  let env: NodeJS.ProcessEnv;
  const venues = (...args: string[]) => runScript("scripts/venues.ts", args, env);

  beforeEach(async () => {
    f = await loadFixture(propAmmFixture);
    server = await startChainServer(hre, "127.0.0.1", 0);
    directory = mkdtempSync(join(tmpdir(), "venues-cli-"));
    writeFileSync(manifestPath(directory, 4663), JSON.stringify(await venueManifest(f), null, 2));
    env = { RPC_URL: server.url, DEPLOYMENTS_DIR: directory };
  });
  afterEach(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("list shows the V2 factory, the V3 venue with its fee tiers, and the allowlisted propAMMs with their tokens; --json says the same for machines", async () => {
    const table = await venues("list");
    expect(table.status, table.stderr).to.equal(0);
    const pair = getAddress(f.wethUsdc.address);
    const poolsOf = (source: string) => f.pools.filter((pool) => pool.source === source).length;
    expect(table.stdout).to.contain(`propAMM allowlist ${getAddress(f.allowlist.address)}`);
    expect(table.stdout).to.match(new RegExp(`uniswap-v2\\s+uniswap-v2\\s+${f.contracts.uniswapV2Factory}\\s+${poolsOf("uniswap-v2")}\\s+configured`));
    expect(table.stdout).to.match(new RegExp(`uniswap-v3\\s+uniswap-v3\\s+${f.v3Venues[0]!.factory}\\s+${poolsOf("uniswap-v3")}\\s+configured\\s+factory, fee tiers 500, 3000, 10000`));
    expect(table.stdout).to.match(new RegExp(`dev-propamm\\s+propamm\\s+${pair}\\s+-\\s+allowlisted\\s+token0 WETH, token1 USDC, swapExactIn 0x`));

    const json = await venues("list", "--json");
    expect(json.status, json.stderr).to.equal(0);
    const parsed = JSON.parse(json.stdout) as { chainId: number; propAmmAllowlist: Address; venues: { name: string; type: string; address: Address; status: string }[] };
    expect(parsed.chainId).to.equal(4663);
    expect(parsed.venues.map((venue) => [venue.name, venue.type, venue.status])).to.have.deep.members([
      ["uniswap-v2", "uniswap-v2", "configured"],
      ["uniswap-v3", "uniswap-v3", "configured"],
      ["forkswap-v3", "uniswap-v3", "configured"],
      ["dev-propamm", "propamm", "allowlisted"],
      ["dai-propamm", "propamm", "allowlisted"],
      ["uniswap-v4", "uniswap-v4", "configured"],
      ...(f.uniswapV4.hooks ?? []).map((hook) => [hook.name, "uniswap-v4-hook", hook.name === "observer" ? "excluded: swap-hook" : "excluded: returns-delta"]),
    ]);
  });

  it("remove-propamm and add-propamm change the on-chain allowlist, signed by the registry's administrator; each prints its transaction and the list after it", async () => {
    const pair = getAddress(f.wethUsdc.address);
    const removed = await venues("remove-propamm", pair);
    expect(removed.status, removed.stdout + removed.stderr).to.equal(0);
    expect(removed.stdout).to.match(new RegExp(`remove sent by ${getAddress(f.deployer.account.address)}: tx 0x[0-9a-f]{64}, block \\d+, gas \\d+, success`));
    expect(removed.stdout).to.match(new RegExp(`dev-propamm\\s+propamm\\s+${pair}\\s+-\\s+not allowlisted`));
    expect(await f.allowlist.read.isPair([pair])).to.equal(false);

    // Tokens by symbol; the propAMM's own token0()/token1() must agree with the order given.
    const misordered = await venues("add-propamm", pair, "--token0", "USDC", "--token1", "WETH");
    expect(misordered.status).to.equal(1);
    expect(misordered.stdout).to.contain(`says its token0 is WETH and its token1 USDC; pass --token0 ${f.token("WETH")} --token1 ${f.token("USDC")}`);
    const added = await venues("add-propamm", pair, "--token0", "weth", "--token1", f.token("USDC"));
    expect(added.status, added.stdout + added.stderr).to.equal(0);
    expect(added.stdout).to.match(/add sent by 0x[0-9a-fA-F]{40}: tx 0x[0-9a-f]{64}, block \d+, gas \d+, success/);
    expect(await f.allowlist.read.tokensOf([pair, await f.allowlist.read.SWAP_SELECTOR()])).to.deep.equal([f.token("WETH"), f.token("USDC")]);
  });

  it("refusals name the allowlist's error (another signer, a pair already listed); bad usage exits 2 and says what to pass", async () => {
    const pair = getAddress(f.wethUsdc.address);
    const stranger = await venues("remove-propamm", pair, "--from", f.stranger.account.address);
    expect(stranger.status).to.equal(1);
    expect(stranger.stdout).to.contain(`refused: remove reverts with PropAmmAllowlistUnauthorized(${getAddress(f.stranger.account.address)})`);
    const again = await venues("add-propamm", getAddress(f.daiPropAmm.address), "--token0", "DAI", "--token1", "WETH");
    expect(again.status).to.equal(1);
    expect(again.stdout).to.contain(`PropAmmAllowlistAlreadyListed(${getAddress(f.daiPropAmm.address)})`);

    const usage = await venues("add-propamm", pair, "--token0", "PEPE", "--token1", "USDC");
    expect(usage.status).to.equal(2);
    expect(usage.stdout).to.contain("--token0 PEPE is neither an address nor a token of this chain's manifest").and.contain("usage: npm run venues");
    for (const args of [["frobnicate"], ["remove-propamm"], ["remove-propamm", "0x12"], ["add-propamm", pair, "--token0", "WETH"], ["list", "--bogus"]]) {
      expect((await venues(...args)).status, args.join(" ")).to.equal(2);
    }
  });

  it("list shows Uniswap V4's PoolManager and each hook with its flags and routing status; allow-hook / remove-hook edit the file beside the manifest, and refuse what changes nothing", async () => {
    const delta = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "returns-delta")!.hooks;
    const observer = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "swap-hook")!.hooks;
    const table = await venues("list");
    expect(table.status, table.stderr).to.equal(0);
    expect(table.stdout).to.match(new RegExp(`uniswap-v4\\s+uniswap-v4\\s+${f.uniswapV4.poolManager}\\s+${f.uniswapV4.pools.length}\\s+configured\\s+PoolManager`));
    expect(table.stdout).to.match(new RegExp(`${delta}\\s+1\\s+excluded: returns-delta\\s+flags afterSwap, afterSwapReturnsDelta`));
    expect(table.stdout).to.match(new RegExp(`${observer}\\s+1\\s+excluded: swap-hook\\s+flags afterSwap`));

    const allowed = await venues("allow-hook", delta, "--note", "reviewed: keeps 50 bps");
    expect(allowed.status, allowed.stdout + allowed.stderr).to.equal(0);
    expect(allowed.stdout).to.contain(`allowlisted V4 hook ${delta} in ${join(directory, "4663.v4-hooks.json")}`);
    expect(allowed.stdout).to.match(new RegExp(`${delta}\\s+1\\s+allowlisted`));
    const file = readV4HookAllowlist(v4HookAllowlistPath(manifestPath(directory, 4663)), 4663);
    expect(file.hooks.map((hook) => [hook.address, hook.note])).to.deep.equal([[delta, "reviewed: keeps 50 bps"]]);
    const json = JSON.parse((await venues("list", "--json")).stdout) as { venues: { address: Address; type: string; status: string }[] };
    expect(json.venues.find((venue) => venue.address === delta)).to.include({ type: "uniswap-v4-hook", status: "allowlisted" });

    const twice = await venues("allow-hook", delta);
    expect([twice.status, twice.stdout]).to.deep.equal([1, `refused: ${delta} is already on the V4 hook allowlist (${join(directory, "4663.v4-hooks.json")})\n`]);
    const removed = await venues("remove-hook", delta);
    expect(removed.status, removed.stdout).to.equal(0);
    expect(removed.stdout).to.match(new RegExp(`${delta}\\s+1\\s+excluded: returns-delta`));
    expect((await venues("remove-hook", delta)).status).to.equal(1);
    for (const args of [["allow-hook"], ["allow-hook", "0x12"], ["allow-hook", zeroAddress], ["remove-hook", delta, "--note", "x"]]) {
      expect((await venues(...args)).status, args.join(" ")).to.equal(2);
    }
  });

  it("devnet-tools propamm-price sets the reference propAMM's price and spread, which its quotes follow; a bad price exits 2, an address that is no DevPropAmm 1", async () => {
    const pair = getAddress(f.wethUsdc.address);
    const set = await runScript("scripts/devnetTools.ts", ["propamm-price", pair, "2800.25", "--spread-bps", "12"], env);
    expect(set.status, set.stdout + set.stderr).to.equal(0);
    expect(set.stdout).to.match(/setPrice sent by 0x[0-9a-fA-F]{40}: tx 0x[0-9a-f]{64}/);
    expect(set.stdout).to.contain(`${pair} now prices 1 WETH at 2800.25 USDC, spread 12 bps: selling 1 WETH pays 2796.8897 USDC`);
    expect(await f.wethUsdc.read.getAmountOut([true, 10n ** 18n])).to.equal((2800_250000n * 9988n) / 10_000n);
    expect(await f.wethUsdc.read.spreadBps()).to.equal(12);

    const kept = await runScript("scripts/devnetTools.ts", ["propamm-price", pair, "3000"], env);
    expect(kept.status, kept.stdout + kept.stderr).to.equal(0);
    expect(kept.stdout).to.contain("at 3000 USDC, spread 12 bps");

    const bad = await runScript("scripts/devnetTools.ts", ["propamm-price", pair, "0"], env);
    expect(bad.status).to.equal(2);
    expect(bad.stderr).to.contain("PRICE must be a positive decimal");
    const notPropAmm = await runScript("scripts/devnetTools.ts", ["propamm-price", f.token("USDC"), "1"], env);
    expect(notPropAmm.status).to.equal(1);
    expect(notPropAmm.stdout).to.contain("is not a DevPropAmm");
  });

  it("says how to get an allowlist when the chain's manifest names none, and names the URL it tried when the chain is down", async () => {
    const manifest = await venueManifest(f);
    writeFileSync(manifestPath(directory, 4663), JSON.stringify({ ...manifest, contracts: { ...manifest.contracts, propAmmAllowlist: undefined }, propAmms: undefined }, null, 2));
    const missing = await venues("remove-propamm", getAddress(f.wethUsdc.address));
    expect(missing.status).to.equal(1);
    expect(missing.stdout).to.contain("names no propAMM allowlist: restart the devnet with `npm start`");
    const listed = await venues("list");
    expect(listed.status).to.equal(0);
    expect(listed.stdout).to.contain("propAMM allowlist none").and.not.contain("propamm ");

    const down = await runScript("scripts/venues.ts", ["list"], { ...env, RPC_URL: "http://127.0.0.1:9" });
    expect(down.status).to.equal(1);
    expect(down.stderr).to.contain("cannot reach a chain at http://127.0.0.1:9").and.contain("RPC_URL");
  });
});
