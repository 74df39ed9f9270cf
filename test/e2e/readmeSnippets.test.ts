import { expect } from "chai";
import hre from "hardhat";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnDevnet, type SpawnedDevnet } from "../../scripts/devnet/spawnDevnet";
import { expectWebhookExampleOutput, isWebhookExample, readmeTypescriptSnippets } from "../fixtures/readmeSnippets";
import { scaledTimeout } from "../fixtures/testTimeouts";

const ROOT = hre.config.paths.root;

/** The checkout's own import of what a project installs as @token-swap/sdk (the README says so beside it). */
const insideCheckout = (snippet: string) => snippet.replaceAll('from "@token-swap/sdk"', 'from "./sdk"');

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  return ((await response.json()) as { result: unknown }).result;
}

describe("TypeScript snippets of README.md and docs/", function () {
  this.timeout(scaledTimeout(240_000));
  let directory: string;
  let devnet: SpawnedDevnet;

  before(async function () {
    // Starting a devnet (compile check, deploy, API, relayer) takes minutes on two loaded cores.
    this.timeout(scaledTimeout(480_000));
    directory = mkdtempSync(join(tmpdir(), "readme-"));
    devnet = await spawnDevnet({ DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory, API_PORT: "0", API_DB_PATH: join(directory, "api.sqlite"), RELAYER_PORT: "0", RELAYER_DB_PATH: join(directory, "relayer.sqlite") });
  });
  after(async () => {
    if (devnet !== undefined && devnet.child.exitCode === null) await devnet.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it("there are four, and each type-checks and runs as written against a running devnet whose clock runs an hour ahead", async () => {
    const snippets = readmeTypescriptSnippets(ROOT);
    expect(snippets).to.have.length(4);
    // As after the dwell test: block time far from this machine's, so a deadline from Date.now() has passed.
    await rpc(devnet.rpcUrl, "evm_increaseTime", [3600]);
    await rpc(devnet.rpcUrl, "evm_mine", []);
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_")));
    // At the repository root, where the snippets' `./sdk` imports resolve; outside tsconfig's include.
    const files = snippets.map((snippet, index) => {
      const file = join(ROOT, `readme-snippet-${index}.ts`);
      writeFileSync(file, insideCheckout(snippet));
      return file;
    });
    const project = join(ROOT, "readme-snippets.tsconfig.json");
    writeFileSync(project, JSON.stringify({ extends: "./tsconfig.json", include: files }));
    try {
      // One type-check of all of them: an undefined helper or a wrong type fails here.
      const checked = spawnSync(process.execPath, [require.resolve("typescript/bin/tsc"), "--noEmit", "-p", project], { cwd: ROOT, encoding: "utf8" });
      expect(checked.status, checked.stdout + checked.stderr).to.equal(0);
      files.forEach((file, index) => {
        const result = spawnSync(process.execPath, [require.resolve("ts-node/dist/bin.js"), "--transpile-only", file], {
          cwd: ROOT,
          env: { ...inherited, RPC_URL: devnet.rpcUrl, SWAP_API_URL: devnet.apiUrl, DEPLOYMENTS_DIR: directory, DEPLOYMENT_MANIFEST: join(directory, "4663.json") },
          encoding: "utf8",
        });
        const snippet = snippets[index]!;
        expect(result.status, `snippet ${index}:\n${snippet}\n${result.stderr}${result.stdout}`).to.equal(0);
        // The pushed-status receiver swaps gasless only; every other example also swaps itself.
        const receiver = isWebhookExample(snippet);
        if (!receiver) expect(result.stdout, `snippet ${index}`).to.match(/^swap success/m);
        if (snippet.includes("createTradingClient")) expect(result.stdout, "the client examples' gasless swap").to.match(/^relay confirmed 0x/m);
        if (snippet.includes('from "ethers"')) expect(result.stdout, "the ethers example's signQuote, sent by the taker").to.match(/^signed swap success$/m);
        if (receiver) expectWebhookExampleOutput(result.stdout);
      });
    } finally {
      for (const file of [...files, project]) rmSync(file, { force: true });
    }
  });
});
