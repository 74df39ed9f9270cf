import { expect } from "chai";
import hre from "hardhat";
import { getAddress, type Address, type Hex, type LocalAccount } from "viem";
import { runRelayerAdminCommand } from "../../scripts/relayerAdmin";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { openRelayStore } from "../../relayer/store/openRelayStore";
import { fundedTakers, gaslessSuite, RELAYER_TOKEN, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { createTestDatabase } from "../fixtures/postgresServer";

type ListedSigner = { address: Address; backend: string | null; state: string; balance_wei: string | null; pending: number | null; daily_spend_wei: string | null; relayer_id: string | null };

/** Runs `relayer-admin` against the stack's relayer database, as an operator would; its exit code and output. */
async function admin(stack: GaslessStack, ...args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const { dbPath, databaseUrl } = stack.relayer!.context.config;
  const code = await runRelayerAdminCommand(args, { open: () => openRelayStore({ dbPath, databaseUrl }), print: (line) => lines.push(line), now: new Date() });
  return { code, output: lines.join("\n") };
}

async function listed(stack: GaslessStack): Promise<ListedSigner[]> {
  const { code, output } = await admin(stack, "signers", "list", "--json");
  expect(code).to.equal(0);
  return JSON.parse(output) as ListedSigner[];
}

/** Waits (bounded) until the running relayer has read the operator's decision on `signer`. */
async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function relayOnce(stack: GaslessStack, suite: { f: SettlementFixture }, funded?: LocalAccount): Promise<{ relayId: string }> {
  const taker = funded ?? (await fundedTakers(suite.f, 1))[0];
  const quote = (await stack.gaslessQuote(taker!.address)).body;
  const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker!) });
  expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
  return { relayId: submitted.body.relay_id as string };
}

async function sender(stack: GaslessStack, suite: { f: SettlementFixture }, relayId: string): Promise<Address> {
  const relay = await stack.waitFor(relayId);
  expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
  return getAddress((await suite.f.publicClient.getTransaction({ hash: relay.tx_hash as Hex })).from);
}

describe("relayer-admin signers: drain, resume and list while the relayer runs", function () {
  this.timeout(180_000);
  const suite = gaslessSuite();

  for (const engine of ["SQLite", "PostgreSQL"] as const) {
    it(`${engine}: a drained signer gets no new relays until resumed, the other takes them; list shows each signer's backend, state, balance, pending and spend`, async () => {
      const databaseEnv = engine === "PostgreSQL" ? { DATABASE_URL: await createTestDatabase("signer_drain") } : {};
      suite.stack = await startGaslessStack(suite.f, { signers: 2, relayerEnv: { ...databaseEnv, RELAYER_SIGNER_STATE_POLL_MS: "50" } });
      const stack = suite.stack;
      const [first, second] = stack.relayer!.context.pool.signers as Signer[];

      const drain = await admin(stack, "signers", "drain", first!.address);
      expect(drain.code).to.equal(0);
      expect(drain.output).to.match(/drained/);
      await until(() => first!.drained, "the drain reaching the relayer");
      for (let index = 0; index < 3; index++) {
        const { relayId } = await relayOnce(stack, suite);
        expect(await sender(stack, suite, relayId)).to.equal(second!.address);
      }
      await until(async () => (await listed(stack)).some((row) => row.address === second!.address && row.daily_spend_wei !== "0"), "the relayer's report");
      const rows = await listed(stack);
      expect(rows.map((row) => [row.address, row.state, row.backend])).to.deep.equal(
        [[first!.address, "drained", "unsafe"], [second!.address, "active", "unsafe"]].sort((a, b) => a[0]!.localeCompare(b[0]!)),
      );
      for (const row of rows) {
        expect(row.relayer_id).to.equal(stack.relayer!.context.config.relayerId);
        expect(BigInt(row.balance_wei ?? "0") > 0n || row.balance_wei === null).to.equal(true);
        expect(row.pending).to.be.a("number");
      }

      // Resumed, and the other drained: the work moves back.
      expect((await admin(stack, "signers", "resume", first!.address)).code).to.equal(0);
      expect((await admin(stack, "signers", "drain", second!.address)).code).to.equal(0);
      await until(() => !first!.drained && second!.drained, "resume and drain reaching the relayer");
      const { relayId } = await relayOnce(stack, suite);
      expect(await sender(stack, suite, relayId)).to.equal(first!.address);

      // Every signer drained: /ready says so and what to do.
      expect((await admin(stack, "signers", "drain", first!.address)).code).to.equal(0);
      await until(() => first!.drained, "the second drain reaching the relayer");
      const ready = await fetch(`${stack.relayer!.url}/ready`, { headers: { authorization: `Bearer ${RELAYER_TOKEN}` } });
      expect(ready.status).to.equal(503);
      expect(((await ready.json()) as { checks: { signers: string } }).checks.signers).to.match(/every signer is drained.*signers resume/);
      expect(stack.relayer!.context.pool.tryLease()).to.equal(undefined);
      const metrics = await (await fetch(`${stack.relayer!.metricsUrl}/metrics`)).text();
      expect(metrics).to.include(`relayer_signer_drained{signer="${first!.address}"} 1`);
    });
  }

  it("a signer drained with a swap pending finishes it: the swap is mined from it, and the next relay goes to the other signer", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 2, relayerEnv: { RELAYER_SIGNER_STATE_POLL_MS: "50" } });
    const stack = suite.stack;
    const pool = stack.relayer!.context.pool;
    // Funded before automine goes off: the taker's own set-up transactions must be mined.
    const [taker] = await fundedTakers(suite.f, 1);
    await hre.network.provider.request({ method: "evm_setAutomine", params: [false] });
    const { relayId } = await relayOnce(stack, suite, taker);
    const pending = await stack.waitFor(relayId, (relay) => relay.status === "submitted" && relay.tx_hash !== null);
    const busy = (pool.signers as Signer[]).find((signer) => signer.nonces.inFlight > 0)!;
    const other = (pool.signers as Signer[]).find((signer) => signer !== busy)!;
    expect((await admin(stack, "signers", "drain", busy.address)).code).to.equal(0);
    await until(() => busy.drained, "the drain reaching the relayer");
    await hre.network.provider.request({ method: "evm_mine", params: [] });
    await hre.network.provider.request({ method: "evm_setAutomine", params: [true] });
    expect(await sender(stack, suite, relayId)).to.equal(busy.address);
    expect(pending.tx_hash).to.be.a("string");
    const next = await relayOnce(stack, suite);
    expect(await sender(stack, suite, next.relayId)).to.equal(other.address);
  });

  it("refuses what it cannot act on, and says what to do", async () => {
    suite.stack = await startGaslessStack(suite.f, { signers: 1 });
    const stack = suite.stack;
    expect(await admin(stack, "signers", "drain")).to.deep.include({ code: 2 });
    expect((await admin(stack, "signers", "drain")).output).to.match(/needs a signer address/);
    expect((await admin(stack, "signers", "drain", "0x1234")).output).to.match(/is not an address/);
    expect((await admin(stack, "signers", "retire", "0x1234")).code).to.equal(2);
    expect((await admin(stack, "nodes", "list")).code).to.equal(2);
    const stranger = getAddress("0x00000000000000000000000000000000000000aa");
    const drained = await admin(stack, "signers", "drain", stranger);
    expect(drained.code).to.equal(0);
    expect(drained.output).to.match(/no relayer on this database has reported/);
    const table = await admin(stack, "signers", "list");
    expect(table.output.split("\n")[0]).to.match(/^address\s+backend\s+state\s+balance \(ETH\)\s+pending/);
    expect(table.output).to.match(new RegExp(`${stranger}\\s+-\\s+drained`));
  });
});
