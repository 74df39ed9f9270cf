import { expect } from "chai";
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { buildSdk } from "../../scripts/sdk/buildSdk";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

const run = promisify(execFile);
const ROOT = join(__dirname, "..", "..");
const SDK = join(ROOT, "sdk");
/**
 * Shared by the API and the relayer only (PostgreSQL, Prometheus): left out of the package build
 * (sdk/tsconfig.build.json), and no module of the package may import them.
 */
const SERVER_ONLY = ["storage/postgresPool", "observability/"];

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

  before(async function () {
    this.timeout(240_000);
    devnet = await sharedDevnet();
    project = mkdtempSync(join(tmpdir(), "sdk-consumer-"));
  });
  after(() => rmSync(project, { recursive: true, force: true }));

  it("imports nothing but its own files, viem, zod and node built-ins (server-only modules apart, which nothing in the package reaches)", () => {
    const declared = ["viem", "zod"];
    const serverOnly = (file: string) => SERVER_ONLY.some((prefix) => relative(SDK, file).startsWith(prefix));
    for (const file of sourceFiles(SDK)) {
      const imports = [...readFileSync(file, "utf8").matchAll(/(?:from|import|require)\s*\(?\s*["']([^"']+)["']/g)].map((match) => match[1]!);
      expect(imports.filter((specifier) => specifier.startsWith("..") && !join(file, "..", specifier).startsWith(SDK)), relative(ROOT, file)).to.deep.equal([]);
      if (serverOnly(file)) continue;
      const foreign = imports.filter((specifier) => !specifier.startsWith(".") && !specifier.startsWith("node:") && !declared.includes(specifier.split("/")[0]!));
      expect(foreign, relative(ROOT, file)).to.deep.equal([]);
      const reachingServerCode = imports.filter((specifier) => specifier.startsWith(".") && serverOnly(join(file, "..", specifier)));
      expect(reachingServerCode, `${relative(ROOT, file)} imports a server-only module`).to.deep.equal([]);
    }
  });

  it("packs, installs into a fresh project, and runs a quote and a swap from .mjs and from .cjs", async () => {
    const staged = buildSdk();
    const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", project], { cwd: staged });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    expect(packed!.files.map((file) => file.path)).to.include.members(["package.json", "dist/cjs/index.js", "dist/cjs/index.d.ts", "dist/esm/index.mjs"]);
    expect(packed!.files.some((file) => file.path.endsWith(".ts") && !file.path.endsWith(".d.ts"))).to.equal(false);

    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "sdk-consumer", private: true, version: "1.0.0" }));
    // viem is a peer dependency: the consumer installs the version this repository pins.
    const viemVersion = (JSON.parse(readFileSync(join(ROOT, "node_modules", "viem", "package.json"), "utf8")) as { version: string }).version;
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--no-package-lock", join(project, packed!.filename), `viem@${viemVersion}`], { cwd: project });

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
});
