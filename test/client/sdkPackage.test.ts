import { expect } from "chai";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { buildSdk } from "../../scripts/sdk/buildSdk";
import { SDK_API_REPORT, sdkApiReport, sdkEntryExports } from "../../scripts/sdk/sdkApiReport";
import { INTEGRATOR_INSTALL_LINE, SDK_TARBALL_PLACEHOLDER } from "../../scripts/sdk/integratorInstall";
import { documentedLines } from "../fixtures/integratorDocs";
import { fundedTaker } from "../fixtures/fundedTaker";
import { expectWebhookExampleOutput, isWebhookExample, readmeProjectSnippets } from "../fixtures/readmeSnippets";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..");
const SDK = join(ROOT, "sdk");
/**
 * Shared by the API and the relayer only (storage, relay gas and fee models, the chain head, chain files,
 * the V4 hook allowlist file, HTTP limits, metrics, the webhook address policy): imported by their module
 * path, never exported by sdk/index.ts, and not reachable from it, so the package build leaves them out.
 */
const SERVER_ONLY = [
  "storage/",
  "observability/",
  "network/",
  "server/",
  "relay/relayGasLimit",
  "relay/budgetRefusal",
  "relay/firstBroadcastFees",
  "relay/gaslessExtraGas",
  "chain/networkFeeModel",
  "chain/chainHead",
  "chain/chainClock",
  "chain/chainFile",
  "chain/selectChainFile",
  "chain/v4HookAllowlist",
  "rpc/",
  "scheduling/",
  "config/readEndpointSettings",
];
const isServerOnly = (file: string) => SERVER_ONLY.some((prefix) => relative(SDK, file).startsWith(prefix));

/** The relative module specifiers a source file imports. */
const importsOf = (file: string) => [...readFileSync(file, "utf8").matchAll(/(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g)].map((match) => match[1]!);

/** The sdk/ source files reachable from the entry by relative imports: what the package build compiles. */
function reachableFromEntry(): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importsOf(file).filter((spec) => spec.startsWith("."))) {
      const base = join(file, "..", specifier);
      const target = [`${base}.ts`, join(base, "index.ts")].find((candidate) => existsSync(candidate));
      if (target !== undefined) visit(target);
    }
  };
  visit(join(SDK, "index.ts"));
  return seen;
}

/** The version of a package this checkout installed, so the consumer's install is served from npm's cache. */
const installedVersion = (name: string) => (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (entry === "dist" || entry === "node_modules") return [];
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith(".ts") ? [path] : [];
  });
}

/** What an integrator's script does with the installed package: a quote, then a permit swap. */
const program = (importLine: string) => `${importLine}
const env = process.env;
const chain = { ...devnetChain, rpcUrls: { default: { http: [env.RPC_URL] } } };
const publicClient = createPublicClient({ chain, transport: http(env.RPC_URL) });
const wallet = createWalletClient({ account: privateKeyToAccount(env.PRIVATE_KEY), chain, transport: http(env.RPC_URL) });
const client = createTradingClient({ apiUrl: env.SWAP_API_URL, apiKey: env.SWAP_API_KEY, publicClient, contracts: { routerRegistry: env.ROUTER_REGISTRY } });
const main = async () => {
  const quote = await client.getQuote({ sellToken: env.SELL_TOKEN, buyToken: env.BUY_TOKEN, sellAmount: 20000000n, taker: wallet.account.address });
  const { hash, receipt } = await client.executeQuote(quote, wallet);
  const stale = await client.executeQuote(quote, wallet).catch((error) => error);
  client.close();
  console.log(JSON.stringify({ quoteId: quote.quote_id, hash, status: receipt.status, staleIsTyped: stale instanceof StaleQuoteError }));
};
main().catch((error) => { console.error(error); process.exit(1); });
`;

describe("sdk/ as an installable package (npm pack, installed outside the checkout)", function () {
  this.timeout(240_000);
  let devnet: SharedDevnet;
  let project: string;
  /** The packed SDK in the consumer project, written by the packing test. */
  let tarball: string | undefined;

  before(async function () {
    this.timeout(240_000);
    devnet = await sharedDevnet();
    project = mkdtempSync(join(tmpdir(), "sdk-consumer-"));
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it("imports nothing but its own files, viem, zod and node built-ins (not ethers: the adapter describes the signer it takes itself), and the entry reaches no module the API and the relayer share", () => {
    const declared = ["viem", "zod"];
    const reachable = reachableFromEntry();
    expect(reachable.size, "the entry's module graph").to.be.greaterThan(50);
    for (const file of sourceFiles(SDK)) {
      const imports = importsOf(file);
      expect(imports.filter((specifier) => specifier.startsWith("..") && !join(file, "..", specifier).startsWith(SDK)), relative(ROOT, file)).to.deep.equal([]);
      if (!reachable.has(file)) continue;
      expect(isServerOnly(file), `${relative(ROOT, file)} is server-only but the entry reaches it`).to.equal(false);
      const foreign = imports.filter((specifier) => !specifier.startsWith(".") && !specifier.startsWith("node:") && !declared.includes(specifier.split("/")[0]!));
      expect(foreign, relative(ROOT, file)).to.deep.equal([]);
    }
    // The list names real files, so a rename cannot silently empty it.
    for (const prefix of SERVER_ONLY) expect(sourceFiles(SDK).some((file) => relative(SDK, file).startsWith(prefix)), prefix).to.equal(true);
  });

  it("lists its public surface in sdk/api-report.txt: the entry exports exactly the names the report lists (npm run sdk:api-report rewrites it)", () => {
    expect(readFileSync(SDK_API_REPORT, "utf8"), "sdk/api-report.txt is stale: run npm run sdk:api-report and review the change").to.equal(sdkApiReport());
    const names = sdkEntryExports().map((entry) => entry.name);
    expect(new Set(names).size, "a name exported twice").to.equal(names.length);
    for (const server of ["applySqliteMigrations", "relayGasLimit", "NetworkFeeModel", "ChainHead", "readChainFile", "budgetRefusal", "firstBroadcastFees"]) expect(names).to.not.include(server);
    expect(() => sdkEntryExports('export { a } from "./a";\nexport * from "./b";\n')).to.throw(/cannot read/);
  });

  it("packs (with its README, ethers an optional peer), installs into a fresh project, and runs a quote and a swap from .mjs and from .cjs", async () => {
    const staged = buildSdk();
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", project], { cwd: staged });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    expect(packed!.files.map((file) => file.path)).to.include.members(["package.json", "README.md", "dist/cjs/index.js", "dist/cjs/index.d.ts", "dist/esm/index.mjs"]);
    expect(packed!.files.some((file) => file.path.endsWith(".ts") && !file.path.endsWith(".d.ts"))).to.equal(false);
    // The build compiles only what the entry reaches: no server-only module ships, and the runtime names are the report's.
    expect(packed!.files.filter((file) => file.path.startsWith("dist/cjs/") && isServerOnly(join(SDK, file.path.slice("dist/cjs/".length))))).to.deep.equal([]);
    const runtimeNames = Object.keys(require(join(staged, "dist", "cjs", "index.js")) as Record<string, unknown>).filter((name) => name !== "__esModule");
    expect(runtimeNames.sort()).to.deep.equal(sdkEntryExports().filter((entry) => !entry.typeOnly).map((entry) => entry.name).sort());
    const published = JSON.parse(readFileSync(join(staged, "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
      bin: Record<string, string>;
      version: string;
    };
    expect(published.peerDependencies).to.include.keys("viem", "ethers");
    // The command-line tool travels with the client: `npx swap-api` in the integrator's project.
    expect(published.bin).to.deep.equal({ "swap-api": "./dist/cli/swap-api.js" });
    expect(packed!.files.map((file) => file.path)).to.include.members(["dist/cli/swap-api.js", "dist/cli/main.js"]);
    expect(SDK_TARBALL_PLACEHOLDER, "the install line names this version's tarball").to.equal(`<checkout>/dist/${packed!.filename}`);
    expect(published.peerDependenciesMeta.ethers?.optional).to.equal(true);
    const readme = readFileSync(join(staged, "README.md"), "utf8");
    for (const section of ["## Install", "## A swap in five lines", "## Gasless", "## Errors", "fromEthersSigner", "signQuote"]) expect(readme, section).to.include(section);

    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, version: "1.0.0" }));
    // viem is a peer dependency: the consumer installs the version this repository pins. Without ethers,
    // an optional peer, the package installs and runs (ethers comes in with the README's examples below).
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", join(project, packed!.filename), `viem@${installedVersion("viem")}`], { cwd: project });
    tarball = join(project, packed!.filename);

    const { apiKey } = await devnet.onboardedClient();
    const env = {
      ...process.env,
      SWAP_API_URL: devnet.apiUrl,
      SWAP_API_KEY: apiKey,
      RPC_URL: devnet.rpcUrl,
      ROUTER_REGISTRY: devnet.manifest.contracts.routerRegistry,
      PRIVATE_KEY: DEV_KEYS[9],
      SELL_TOKEN: devnet.token("USDC"),
      BUY_TOKEN: devnet.token("WETH"),
    };
    writeFileSync(
      join(project, "swap.mjs"),
      program(`import { createTradingClient, devnetChain, StaleQuoteError } from "@token-swap/sdk";\nimport { createPublicClient, createWalletClient, http } from "viem";\nimport { privateKeyToAccount } from "viem/accounts";`),
    );
    writeFileSync(
      join(project, "swap.cjs"),
      program(`const { createTradingClient, devnetChain, StaleQuoteError } = require("@token-swap/sdk");\nconst { createPublicClient, createWalletClient, http } = require("viem");\nconst { privateKeyToAccount } = require("viem/accounts");`),
    );
    for (const script of ["swap.mjs", "swap.cjs"]) {
      const result = await run(process.execPath, [script], { cwd: project, env });
      const outcome = JSON.parse(result.stdout) as { status: string; hash: string; staleIsTyped: boolean };
      expect(outcome.status, script).to.equal("success");
      expect(outcome.staleIsTyped, script).to.equal(true);
      expect((await devnet.publicClient.getTransactionReceipt({ hash: outcome.hash as `0x${string}` })).status).to.equal("success");
    }
    // The installed package resolves from the consumer project, not from this checkout.
    const resolved = await run(process.execPath, ["-p", "require.resolve('@token-swap/sdk')"], { cwd: project });
    expect(resolved.stdout.trim().startsWith(project)).to.equal(true);
  });

  it("npm run pack:sdk leaves its tarball where git ignores it", async () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts["pack:sdk"]).to.match(/npm pack \.\/dist\/sdk --pack-destination dist$/);
    for (const file of ["dist/token-swap-sdk-0.1.0.tgz", "token-swap-sdk-0.1.0.tgz"]) {
      await run("git", ["check-ignore", "--quiet", "--no-index", file], { cwd: ROOT }); // exits 1 (a rejection) when not ignored
    }
  });

  it("the docs print one install line for integrators, INTEGRATOR_INSTALL_LINE, with every package pinned to a major that works together", () => {
    const documented = documentedLines(ROOT, /^npm install \S*token-swap-sdk-\S+\.tgz .*$/m).map(({ file, line }) => ({ file, line: line.replace(/\s+#.*$/, "") }));
    expect(documented.length, "an integrator doc shows the install line").to.be.greaterThan(0);
    expect(documented.filter(({ line }) => line !== INTEGRATOR_INSTALL_LINE)).to.deep.equal([]);
    const packages = INTEGRATOR_INSTALL_LINE.split(" ").slice(3);
    for (const spec of packages) expect(spec, "pinned").to.match(/^@?[^@]+@\d/);
  });

  it("runs the documentation's project examples (viem, ethers, then the webhook receiver) as written, installed with the documented install line verbatim, from a folder outside the checkout; npx swap-api works there", async function () {
    expect(tarball, "the packing test ran first").to.be.a("string");
    const snippets = readmeProjectSnippets(ROOT);
    expect(snippets).to.have.length(3);
    expect(snippets.map((snippet) => (isWebhookExample(snippet) ? "webhooks" : snippet.includes('from "ethers"') ? "ethers" : "viem"))).to.deep.equal(["viem", "ethers", "webhooks"]);
    // The install line as the docs print it, run by a shell; only the tarball's place differs.
    await run("sh", ["-c", INTEGRATOR_INSTALL_LINE.replace(SDK_TARBALL_PLACEHOLDER, tarball!)], { cwd: project });
    const installed = (name: string) => (JSON.parse(readFileSync(join(project, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
    expect(installed("typescript"), "TypeScript 5 (ts-node 10 breaks under 7)").to.match(/^5\./);
    // The docs' tsconfig line (ts-node needs one to compile to CommonJS; without it Node takes the file for an ES module).
    const [tsconfig] = documentedLines(ROOT, /^echo '(\{.*\})' > tsconfig\.json$/m);
    expect(tsconfig, "the docs' tsconfig line").to.not.equal(undefined);
    writeFileSync(join(project, "tsconfig.json"), tsconfig!.match[1]!);

    // Only what the README names: no DEPLOYMENTS_DIR, nothing of the checkout but the manifest's path.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_") && !key.startsWith("TS_NODE") && key !== "DEPLOYMENTS_DIR"));
    expect(devnet.manifestFile.startsWith(ROOT)).to.equal(false);
    for (const [index, snippet] of snippets.entries()) {
      const taker = await fundedTaker(devnet, { USDC: 5_000_000_000n });
      writeFileSync(join(project, "swap.ts"), snippet);
      const result = await run("npx", ["ts-node", "swap.ts"], {
        cwd: project,
        env: { ...inherited, DEPLOYMENT_MANIFEST: devnet.manifestFile, SWAP_API_URL: devnet.apiUrl, RPC_URL: devnet.rpcUrl, PRIVATE_KEY: taker.privateKey },
      }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
        throw new Error(`README project example ${index} failed:\n${error.stderr ?? ""}${error.stdout ?? error.message}`);
      });
      expect(result.stdout, `example ${index}`).to.match(/^relay confirmed 0x[0-9a-f]{64}$/m);
      if (isWebhookExample(snippet)) {
        expectWebhookExampleOutput(result.stdout);
        continue;
      }
      expect(result.stdout, `example ${index}`).to.match(/^swap success$/m);
      if (snippet.includes('from "ethers"')) expect(result.stdout, "signQuote, sent by the taker with ethers").to.match(/^signed swap success$/m);
      // The taker's own trades landed: it sent transactions and holds WETH now.
      expect(await devnet.publicClient.getTransactionCount({ address: taker.address })).to.be.greaterThan(1);
    }

    // The command-line tool of the same install, found by npx in the project's node_modules/.bin.
    const help = await run("npx", ["--no-install", "swap-api", "--help"], { cwd: project, env: inherited });
    for (const command of ["onboard", "tokens", "quote", "swap", "relay", "doctor"]) expect(help.stdout).to.include(command);
    const { apiKey } = await devnet.onboardedClient();
    const taker = await fundedTaker(devnet, { USDC: 100_000_000n });
    const dryRun = await run("npx", ["--no-install", "swap-api", "swap", "USDC", "WETH", "10000000", "--dry-run", "--json"], {
      cwd: project,
      env: { ...inherited, DEPLOYMENT_MANIFEST: devnet.manifestFile, SWAP_API_URL: devnet.apiUrl, SWAP_API_KEY: apiKey, RPC_URL: devnet.rpcUrl, PRIVATE_KEY: taker.privateKey },
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`npx swap-api swap --dry-run failed:\n${error.stderr ?? ""}${error.stdout ?? error.message}`);
    });
    // The manifest named by DEPLOYMENT_MANIFEST gave the symbols and the registry the checks read.
    expect(JSON.parse(dryRun.stdout)).to.include({ dry_run: true, checks: "passed" });
  });
});
