import { expect } from "chai";
import hre from "hardhat";
import { spawn } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, getAddress, http, pad, toHex, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { readManifest } from "../../sdk/chain/manifest";
import { encryptKeystore } from "../../sdk/keys/encryptKeystore";
import { writeKeystoreFile } from "../../sdk/keys/keystoreDirectory";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_RUNTIME } from "../../scripts/deploy/deterministicDeployer";
import { STANDIN_CHAIN_FILE, startStandInChain, type StandInChain } from "../../scripts/standin/standInChain";
import { runScript } from "../fixtures/runScript";

/** Development account #0's well-known key: the stand-in (Anvil) funds it. Never a real key. */
const DEPLOYER_KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const DEPLOYER = privateKeyToAccount(DEPLOYER_KEY).address;
const ADMIN: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const PAUSER: Address = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const SCRIPT = "scripts/deployChain.ts";
const SIGNER_ENV = { OPERATOR_PRIVATE_KEY: DEPLOYER_KEY, NODE_ENV: "test" };

type DeployJson = { contracts: Record<string, Address>; steps: { label: string; done: boolean }[]; toSend: number; sent?: Hex[]; manifestFile?: string; deployBlock?: number };

/** The spec's raw registry read: a 4-byte selector and the feature id as one 32-byte word, by eth_call at `latest`. */
async function rawRegistryCall(client: PublicClient, registry: Address, selector: Hex, featureId: bigint): Promise<Hex> {
  return client.request({ method: "eth_call", params: [{ to: registry, data: `${selector}${pad(toHex(featureId)).slice(2)}` as Hex }, "latest"] });
}
const lastAddress = (word: Hex): Address => getAddress(`0x${word.slice(-40)}`);

describe("npm run deploy on the stand-in live chain (Anvil with Permit2, WETH and Uniswap venues at the stand-in chain file's addresses)", function () {
  this.timeout(300_000);
  let chain: StandInChain;
  let client: PublicClient;
  let directory: string;
  let chainsDir: string;

  const deployArgs = (...extra: string[]) => ["--chain", "4663", "--chains-dir", chainsDir, "--rpc", chain.rpcUrl, "--admin", ADMIN, "--pauser", PAUSER, ...extra];
  const state = async () => ({ block: await client.getBlockNumber(), nonce: await client.getTransactionCount({ address: DEPLOYER }) });

  before(async () => {
    chain = await startStandInChain();
    client = createPublicClient({ transport: http(chain.rpcUrl, { retryCount: 0 }), cacheTime: 0, pollingInterval: 50 }) as PublicClient;
    directory = mkdtempSync(join(tmpdir(), "deploy-standin-"));
    // The stand-in's file beside the shipped 4663 file (same chain id, unknown addresses): an id alone must pick the stand-in's.
    chainsDir = join(directory, "chains");
    mkdirSync(chainsDir);
    copyFileSync(STANDIN_CHAIN_FILE, join(chainsDir, "standin.json"));
    copyFileSync(join(hre.config.paths.root, "chains", "4663.json"), join(chainsDir, "4663.json"));
  });
  after(async () => {
    await chain?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("refuses a chain file whose addresses do not answer as it says (wrong WETH, wrong Permit2, a wrong tick spacing), naming each field, before any transaction", async () => {
    const wrong = JSON.parse(readFileSync(STANDIN_CHAIN_FILE, "utf8")) as { name: string; permit2: { address: string }; wrappedNative: { address: string }; venues: { factory: { address: string }; feeTiers: { fee: number; tickSpacing?: number }[] }[] };
    wrong.name = "wrong";
    // Code at each, but not the contract the field names.
    wrong.wrappedNative.address = wrong.venues[0]!.factory.address;
    wrong.permit2.address = wrong.venues[1]!.factory.address;
    wrong.venues[1]!.feeTiers[1]!.tickSpacing = 61;
    const wrongDir = join(directory, "wrong-chains");
    mkdirSync(wrongDir);
    writeFileSync(join(wrongDir, "wrong.json"), JSON.stringify(wrong));
    const before = await state();
    const run = await runScript(SCRIPT, ["--chain", "wrong", "--chains-dir", wrongDir, "--rpc", chain.rpcUrl, "--unsafe-private-key", "--execute"], SIGNER_ENV);
    expect(run.status, run.stderr).to.equal(2);
    expect(run.stderr).to.include("chain file wrong: wrappedNative.address: symbol() is unreadable");
    expect(run.stderr).to.include("chain file wrong: permit2.address: DOMAIN_SEPARATOR() is unreadable");
    expect(run.stderr).to.include("chain file wrong: venues.1.feeTiers.1: the factory's tick spacing for fee 3000 is 60, not 61");
    expect(run.stderr).to.include("nothing was sent");
    expect(await state()).to.deep.equal(before);
    expect(await client.getCode({ address: DETERMINISTIC_DEPLOYER })).to.equal(undefined);
  });

  it("refuses a chain file whose address has no code, and one with unknown addresses (the shipped 4663 file), naming the fields", async () => {
    const before = await state();
    const run = await runScript(SCRIPT, ["--chain", "4663", "--chains-dir", join(hre.config.paths.root, "chains"), "--rpc", chain.rpcUrl, "--deployer", DEPLOYER], SIGNER_ENV);
    expect(run.status, run.stderr).to.equal(2);
    expect(run.stderr).to.match(/none of the chain files with id 4663 \((4663, devnet|devnet, 4663)\) matches the chain/);
    const named = await runScript(SCRIPT, ["--chain", "devnet", "--chains-dir", join(hre.config.paths.root, "chains"), "--rpc", chain.rpcUrl, "--deployer", DEPLOYER], SIGNER_ENV);
    expect(named.status, named.stderr).to.equal(2);
    expect(named.stderr).to.include("chain file devnet: wrappedNative.address: no code at 0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512 on chain 4663");
    expect(await state()).to.deep.equal(before);
  });

  it("plans every contract at its CREATE2 address, the deterministic deployer first (the chain lacks it), and sends nothing without --execute", async () => {
    const before = await state();
    const run = await runScript(SCRIPT, deployArgs("--deployer", DEPLOYER, "--json"), {});
    expect(run.status, run.stderr).to.equal(0);
    const plan = JSON.parse(run.stdout) as DeployJson;
    expect(plan.steps.map((step) => step.label)).to.deep.equal([
      "fund the deterministic deployer's signer",
      "deploy the deterministic deployer",
      "deploy RouterRegistry",
      "deploy AllowanceHolder",
      "deploy PropAmmAllowlist",
      "deploy TakerSwapRouterV3",
      "deploy GaslessBatchSwapRouterV2",
      "stage feature 2",
      "activate feature 2",
      "stage feature 3",
      "activate feature 3",
      "set pauser",
      "propose administrator",
    ]);
    expect(plan.toSend).to.equal(13);
    expect(Object.keys(plan.contracts)).to.deep.equal(["routerRegistry", "allowanceHolder", "propAmmAllowlist", "takerSwapRouter", "gaslessSwapRouter"]);
    expect(await state()).to.deep.equal(before);
  });

  it("an interrupted deploy signing from an encrypted keystore (killed between two transactions) resumes to the planned addresses; a second run sends nothing; the manifest and the raw registry reads agree", async () => {
    const plan = JSON.parse((await runScript(SCRIPT, deployArgs("--deployer", DEPLOYER, "--json"), {})).stdout) as DeployJson;
    const out = join(directory, "deployments");
    // The deployer's key in a Web3 Secret Storage keystore (a low scrypt cost: a throwaway test key).
    const keystores = join(directory, "keystores");
    mkdirSync(keystores, { mode: 0o700 });
    writeKeystoreFile(keystores, "deployer", await encryptKeystore(DEPLOYER_KEY, "deploy-test-password", { scrypt: { n: 1024, r: 8, p: 1 } }));
    const passwordFile = join(directory, "password");
    writeFileSync(passwordFile, "deploy-test-password\n", { mode: 0o600 });
    const keystoreArgs = ["--keystore", "deployer", "--keystore-dir", keystores, "--password-file", passwordFile];

    // First run: SIGKILL as soon as its fourth transaction (the AllowanceHolder) is confirmed.
    const child = spawn(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", SCRIPT, ...deployArgs(...keystoreArgs, "--execute", "--out", out)], {
      cwd: hre.config.paths.root,
      env: { ...process.env, NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let confirmed = 0;
    let stderr = "";
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, signal) => resolve(signal)));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      confirmed = (stderr.match(/: confirmed in block/g) ?? []).length;
      if (confirmed >= 4) child.kill("SIGKILL");
    });
    expect(await exited, stderr).to.equal("SIGKILL");
    const sentBeforeKill = confirmed;
    expect(sentBeforeKill).to.be.within(4, 12);
    // The kill left the deploy unfinished (the child may have sent one more transaction before the signal landed).
    const gaslessCode = await client.getCode({ address: plan.contracts.gaslessSwapRouter! });
    const afterKill = await state();
    expect(afterKill.nonce).to.be.lessThan(12);
    if (afterKill.nonce < 6) expect(gaslessCode).to.equal(undefined);
    expect(await client.getCode({ address: DETERMINISTIC_DEPLOYER })).to.equal(DETERMINISTIC_DEPLOYER_RUNTIME);

    // Second run: finishes the same deployment at the same addresses.
    const resumed = await runScript(SCRIPT, deployArgs(...keystoreArgs, "--execute", "--out", out, "--json"), { NODE_ENV: "production" });
    expect(resumed.status, resumed.stderr).to.equal(0);
    const result = JSON.parse(resumed.stdout) as DeployJson;
    expect(result.contracts).to.deep.equal(plan.contracts);
    expect(result.sent!.length).to.be.greaterThan(0);
    // Every transaction of the plan was sent exactly once across both runs (the raw one is the keyless signer's).
    const afterResume = await state();
    expect(afterResume.nonce).to.equal(12);
    expect(resumed.stderr).to.include("already on chain");

    // Third run: nothing to send.
    const again = await runScript(SCRIPT, deployArgs("--unsafe-private-key", "--execute", "--out", out, "--json"), SIGNER_ENV);
    expect(again.status, again.stderr).to.equal(0);
    const third = JSON.parse(again.stdout) as DeployJson;
    expect(third.sent).to.deep.equal([]);
    expect(third.toSend).to.equal(0);
    expect(third.contracts).to.deep.equal(plan.contracts);
    expect(await state()).to.deep.equal(afterResume);

    // The manifest names the planned contracts and the block the registry first had code in.
    const manifest = readManifest(third.manifestFile!);
    expect(manifest.contracts.routerRegistry).to.equal(plan.contracts.routerRegistry);
    expect(manifest.contracts.takerSwapRouter).to.equal(plan.contracts.takerSwapRouter);
    expect(manifest.contracts.gaslessSwapRouter).to.equal(plan.contracts.gaslessSwapRouter);
    expect(manifest.contracts.permit2).to.equal("0x000000000022D473030F116dDEE9F6B43aC78BA3");
    expect(manifest.venues.map((venue) => venue.name)).to.deep.equal(["uniswap-v2", "uniswap-v3"]);
    expect(await client.getCode({ address: manifest.contracts.routerRegistry, blockNumber: BigInt(manifest.deployBlock) })).to.not.equal(undefined);
    expect(await client.getCode({ address: manifest.contracts.routerRegistry, blockNumber: BigInt(manifest.deployBlock - 1) })).to.equal(undefined);
    expect((await client.getBlock({ blockNumber: BigInt(manifest.deployBlock) })).hash).to.equal(manifest.deployBlockHash);
    const index = JSON.parse(readFileSync(join(out, "standard-json", "index.json"), "utf8")) as { contract: string; address: Address; compilerVersion: string }[];
    expect(index.map((entry) => entry.address)).to.deep.equal(Object.values(plan.contracts));
    const input = JSON.parse(readFileSync(join(out, "standard-json", "RouterRegistry.input.json"), "utf8")) as { language: string; sources: Record<string, unknown> };
    expect(input.language).to.equal("Solidity");
    expect(Object.keys(input.sources)).to.include("contracts/registry/RouterRegistry.sol");

    // The spec's raw-selector reads on the deployed registry.
    const registry = manifest.contracts.routerRegistry;
    expect(lastAddress(await rawRegistryCall(client, registry, "0x6352211e", 2n))).to.equal(plan.contracts.takerSwapRouter);
    expect(lastAddress(await rawRegistryCall(client, registry, "0x6352211e", 3n))).to.equal(plan.contracts.gaslessSwapRouter);
    expect(lastAddress(await rawRegistryCall(client, registry, "0x74bcde51", 2n))).to.equal(zeroAddress);
    let prevError: unknown;
    await rawRegistryCall(client, registry, "0xe2603dc2", 2n).catch((error: unknown) => (prevError = error));
    expect(prevError, "prev reverts when no previous router is set").to.not.equal(undefined);
    const feature = await rawRegistryCall(client, registry, "0x46df01a4", 3n);
    expect((feature.length - 2) / 64).to.equal(4);
    const words = feature.slice(2).match(/.{64}/g)!;
    expect(lastAddress(`0x${words[0]}`)).to.equal(zeroAddress);
    expect(lastAddress(`0x${words[1]}`)).to.equal(plan.contracts.gaslessSwapRouter);
    expect(lastAddress(`0x${words[2]}`)).to.equal(zeroAddress);
    expect(BigInt(`0x${words[3]}`)).to.equal(0n);

    // Roles: the deployer is still administrator, the named admin is pending, the pauser is set.
    const read = (functionName: "admin" | "pendingAdmin") => client.readContract({ address: registry, abi: [{ type: "function", name: functionName, stateMutability: "view", inputs: [], outputs: [{ type: "address" }] }], functionName });
    expect(await read("admin")).to.equal(DEPLOYER);
    expect(await read("pendingAdmin")).to.equal(ADMIN);
  });

  it("refuses to sign with a raw key without the explicit unsafe flag, and never prints the key", async () => {
    const run = await runScript(SCRIPT, deployArgs("--execute"), SIGNER_ENV);
    expect(run.status).to.equal(2);
    expect(run.stderr).to.include("--unsafe-private-key");
    expect(run.stdout + run.stderr).to.not.include(DEPLOYER_KEY.slice(2));
    const production = await runScript(SCRIPT, deployArgs("--execute", "--unsafe-private-key"), { ...SIGNER_ENV, NODE_ENV: "production" });
    expect(production.status).to.equal(2);
    expect(production.stderr).to.include("NODE_ENV=production");
    expect(production.stdout + production.stderr).to.not.include(DEPLOYER_KEY.slice(2));
  });
});
