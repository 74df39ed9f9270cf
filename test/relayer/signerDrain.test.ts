import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { getAddress, keccak256, parseEther, type Address, type Hex } from "viem";
import { relayerDatabaseFromEnv } from "../../scripts/gasBudgets";
import { runRelayerAdminCommand } from "../../scripts/relayerAdmin";
import { admin, listed, pendingRelay, relayOnce, sender, until, type ListedSigner } from "../fixtures/signerAdmin";
import type { Signer } from "../../relayer/broadcast/signerPool";
import { openRelayStore } from "../../relayer/store/openRelayStore";
import { gaslessSuite, RELAYER_TOKEN, startGaslessStack } from "../fixtures/gaslessStack";
import { createTestDatabase } from "../fixtures/postgresServer";
import { recordTopUpId } from "../fixtures/recordTopUp";

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
    const { relayId, pending, busy, mineAndAutomine } = await pendingRelay(stack, suite);
    const other = (pool.signers as Signer[]).find((signer) => signer !== busy)!;
    expect((await admin(stack, "signers", "drain", busy.address)).code).to.equal(0);
    await until(() => busy.drained, "the drain reaching the relayer");
    await mineAndAutomine();
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
    const refused = await admin(stack, "signers", "drain", stranger);
    expect(refused.code).to.equal(1);
    expect(refused.output).to.match(/not a known signer/).and.include("--force");
    const drained = await admin(stack, "signers", "drain", stranger, "--force");
    expect(drained.code).to.equal(0);
    expect(drained.output).to.match(/no relayer on this database has reported/);
    const table = await admin(stack, "signers", "list");
    expect(table.output.split("\n")[0]).to.match(/^address\s+backend\s+state\s+balance \(ETH\)\s+pending/);
    expect(table.output).to.match(new RegExp(`${stranger}\\s+-\\s+drained`));
  });
});

describe("relayer-admin on the relayer's database alone: an address it does not know is refused, not silently done", function () {
  let directory: string;
  let dbPath: string;
  const known = getAddress("0x00000000000000000000000000000000000000b1");
  const typo = getAddress("0x00000000000000000000000000000000000000b2");

  async function adminAt(...args: string[]): Promise<{ code: number; output: string }> {
    const lines: string[] = [];
    const code = await runRelayerAdminCommand(args, { open: () => openRelayStore({ dbPath, databaseUrl: undefined }), print: (line) => lines.push(line), now: new Date() });
    return { code, output: lines.join("\n") };
  }

  beforeEach(async () => {
    directory = mkdtempSync(join(tmpdir(), "relayer-admin-"));
    dbPath = join(directory, "relayer.sqlite");
    const store = await openRelayStore({ dbPath, databaseUrl: undefined });
    await store.reportSigners("relayer-a", [{ signer: known, backend: "keystore", balanceWei: 10n ** 18n, pending: 0, dailySpendWei: 0n }], new Date());
    await store.close();
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("drain of an unknown address exits 1, names the known signers and says how to check, and records nothing", async () => {
    const refused = await adminAt("signers", "drain", typo);
    expect(refused.code).to.equal(1);
    expect(refused.output).to.include(`${typo} is not a known signer`).and.include(`known signers: ${known}`).and.include("signers list").and.include("--force");
    const rows = JSON.parse((await adminAt("signers", "list", "--json")).output) as ListedSigner[];
    expect(rows.map((row) => [row.address, row.state])).to.deep.equal([[known, "active"]]);
  });

  it("resume of an unknown address exits 1 (there is no drain to undo), even with --force", async () => {
    const refused = await adminAt("signers", "resume", typo);
    expect(refused.code).to.equal(1);
    expect(refused.output).to.include("not a known signer").and.include(known).and.not.include("--force");
    expect((await adminAt("signers", "resume", typo, "--force")).code).to.equal(2);
  });

  it("drain and resume of a known signer act; repeating either says it is already so and exits 0", async () => {
    expect((await adminAt("signers", "drain", known.toLowerCase())).code).to.equal(0);
    expect((await adminAt("signers", "drain", known)).output).to.match(/already drained/);
    expect((await adminAt("signers", "resume", known)).output).to.match(/resumed/);
    expect((await adminAt("signers", "resume", known)).output).to.match(/already active/);
  });

  it("signers list totals each signer's mined top-ups from the ledger (column and --json); intents and failed ones paid nothing", async () => {
    const store = await openRelayStore({ dbPath, databaseUrl: undefined });
    const treasury = getAddress("0x00000000000000000000000000000000000000c0");
    const record = async (signer: Address, wei: bigint, nonce: number, status: "mined" | "failed" | "intent") => {
      const rawTx = `0x02${nonce.toString(16).padStart(4, "0")}` as Hex;
      const id = await recordTopUpId(store, { signer, treasury, amountWei: wei, nonce, rawTx, txHash: keccak256(rawTx) }, new Date());
      if (status !== "intent") await store.setTopUpStatus(id, status, new Date());
    };
    await record(known, parseEther("1.5"), 1, "mined");
    await record(known, parseEther("0.25"), 2, "mined");
    await record(known, parseEther("9"), 3, "failed");
    await record(known, parseEther("4"), 4, "intent");
    await store.setSignerState(typo, "drained", new Date());
    await store.close();
    const rows = JSON.parse((await adminAt("signers", "list", "--json")).output) as ListedSigner[];
    expect(rows.map((row) => [row.address, row.topped_up_wei, row.topups])).to.deep.equal([
      [known, parseEther("1.75").toString(), 2],
      [typo, "0", 0],
    ]);
    const table = (await adminAt("signers", "list")).output.split("\n");
    expect(table[0]).to.match(/daily spend \(ETH\)\s+topped up \(ETH\)\s+relayer/);
    expect(table.find((line) => line.startsWith(known))).to.match(/\s1\.75 \(2\)\s/);
  });

  it("list commands refuse a stray argument or flag with usage (exit 2) instead of ignoring it", async () => {
    for (const args of [["signers", "list", known], ["topups", "list", known], ["topups", "list", "--force"], ["topups", "show"], ["topups"]]) {
      const result = await adminAt(...args);
      expect(result.code, args.join(" ")).to.equal(2);
      expect(result.output, args.join(" ")).to.include("usage: npm run relayer-admin");
    }
    expect((await adminAt("signers", "list", known)).output).to.match(/signers list takes no argument/);
    expect((await adminAt("topups", "list", known)).output).to.match(/topups list takes no argument/);
  });
});

describe("relayer-admin on PostgreSQL: a one-shot command holds the CLI's pool, not the relayer's", function () {
  this.timeout(60_000);

  it("at most 2 connections named relayer-cli while a command reads in parallel, none named relayer, and all closed after", async () => {
    const url = await createTestDatabase("relayer_admin_pool");
    const observer = new Client({ connectionString: url });
    await observer.connect();
    const connections = async () =>
      (await observer.query<{ name: string; count: string }>("SELECT application_name AS name, count(*) AS count FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1")).rows
        .map((row) => [row.name, Number(row.count)] as const);
    try {
      const { open } = relayerDatabaseFromEnv({ DATABASE_URL: url });
      const setup = await open();
      const signer = getAddress("0x00000000000000000000000000000000000000d1");
      await setup.reportSigners("relayer-a", [{ signer, backend: "pkcs11", balanceWei: 1n, pending: 0, dailySpendWei: 0n }], new Date());
      const topUp = await recordTopUpId(setup, { signer, treasury: signer, amountWei: parseEther("0.5"), nonce: 0, rawTx: "0x02aa", txHash: keccak256("0x02aa") }, new Date());
      await setup.setTopUpStatus(topUp, "mined", new Date());
      await setup.close();
      const seen: (readonly [string, number])[][] = [];
      const lines: string[] = [];
      const code = await runRelayerAdminCommand(["signers", "list", "--json"], {
        open: async () => {
          const store = await open();
          // Ten reads at once: a pool of ten would open ten connections for them.
          await Promise.all(Array.from({ length: 10 }, () => store.signerStates()));
          seen.push(await connections());
          return store;
        },
        print: (line) => lines.push(line),
        now: new Date(),
      });
      expect(code).to.equal(0);
      expect((JSON.parse(lines.join("\n")) as ListedSigner[]).map((row) => [row.address, row.topped_up_wei, row.topups])).to.deep.equal([[signer, parseEther("0.5").toString(), 1]]);
      const during = new Map(seen[0]);
      expect(during.get("relayer-cli"), JSON.stringify(seen)).to.be.within(1, 2);
      expect(during.has("relayer"), JSON.stringify(seen)).to.equal(false);
      // A backend leaves pg_stat_activity a moment after its client hangs up.
      await until(async () => !(await connections()).some(([name]) => name === "relayer-cli"), "the CLI's connections closing");
    } finally {
      await observer.end();
    }
  });
});
