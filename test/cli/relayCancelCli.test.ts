import { expect } from "chai";
import { spawn } from "node:child_process";
import { join } from "node:path";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits, type Hex } from "viem";
import type { RelayJson } from "../../sdk";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const ROOT = join(__dirname, "..", "..");
const BIN = join(ROOT, "cli", "swap-api.js");
const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

type Run = { code: number | null; stdout: string; stderr: string };

/** The tool as a child process, as a shell runs it, against the in-process API. */
function run(args: readonly string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HARDHAT_") && !["SWAP_API_KEY", "PRIVATE_KEY", "SWAP_API_URL", "RPC_URL"].includes(key)));
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("swap-api relay cancel (the command-line tool as a process)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    stack = await startGaslessStack(f, { signers: 1 });
  });
  afterEach(async () => {
    await setAutomine(true);
    await stack.close();
  });

  it("cancels a pending relay and waits until the chain decides (exit 0 when cancelled); cancelling a final relay exits 3 with relay_final", async () => {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const quote = (await stack.gaslessQuote(taker!.address, { sell_amount: parseUnits("100", 6) })).body;
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker!) });
    const relayId = submitted.body.relay_id as string;
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted");
    const until = Date.now() + 15_000;
    while ((await f.publicClient.getTransaction({ hash: pending.tx_hash as Hex }).catch(() => undefined)) === undefined) {
      if (Date.now() > until) throw new Error("the relayer never sent the swap");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const env = { SWAP_API_URL: stack.api.url, SWAP_API_KEY: stack.api.apiKey.secret, DEPLOYMENTS_DIR: stack.directory };

    const waiting = run(["relay", "cancel", relayId, "--wait", "--json"], env);
    // The chain decides once the replacement is out: mine it then.
    await stack.waitFor(relayId, (relay) => relay.transactions.some((transaction) => transaction.kind === "cancel"));
    await mine(1);
    const cancelled = await waiting;
    expect(cancelled.code, cancelled.stderr).to.equal(0);
    const result = JSON.parse(cancelled.stdout) as { outcome: string; relay: RelayJson; invalidate_nonce: { to: string; from: string } };
    expect([result.outcome, result.relay.status]).to.deep.equal(["cancelling", "cancelled"]);
    expect(result.invalidate_nonce).to.include({ to: f.contracts.permit2, from: taker!.address });
    expect(cancelled.stderr).to.include(`relay ${relayId}: cancelling`);

    const again = await run(["relay", "cancel", relayId, "--json"], env);
    expect(again.code, again.stdout + again.stderr).to.equal(3);
    expect(JSON.parse(again.stdout).error).to.include({ status: 409, code: "relay_final" });
  });
});
