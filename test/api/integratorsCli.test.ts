import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { keccak256, parseUnits, toHex } from "viem";
import type { IntegratorAdministration } from "../../api/store/integratorAdministration";
import { openIntegratorAdministration } from "../../api/store/openIntegratorAdministration";
import { openStore } from "../../api/store/openStore";
import type { Store } from "../../api/store/store";
import { runIntegratorsCommand } from "../../scripts/integrators";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";
import { createTestDatabase } from "../fixtures/postgresServer";
import { runScript } from "../fixtures/runScript";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openRelayStore } from "../../relayer/store/openRelayStore";
import type { UnpaidGasEntry } from "../../relayer/ledger/unpaidGas";

/** The API's database: its SQLite file, or a fresh PostgreSQL database (`DATABASE_URL`). */
const engines: { name: string; database(): Promise<{ databaseUrl?: string }> }[] = [
  { name: "SQLite", database: async () => ({}) },
  { name: "PostgreSQL", database: async () => ({ databaseUrl: await createTestDatabase("integrators_cli") }) },
];

/** `npm run integrators -- …` as a separate process on the API's database, as `npm run api` finds it. */
const integratorsCli = (api: QuoteApi, ...args: string[]) =>
  runScript("scripts/integrators.ts", args, { API_DB_PATH: api.dbPath, ...(api.config.databaseUrl === undefined ? {} : { DATABASE_URL: api.config.databaseUrl }) });

for (const engine of engines) describe(`operator CLI: npm run integrators (lifecycle, keys, limits, audit) on ${engine.name}`, () => {
  let f: SettlementFixture;
  let api: QuoteApi;
  let store: Store;
  let admin: IntegratorAdministration;
  let output: string[];
  const now = new Date("2026-03-01T10:00:00.000Z");

  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    api = await startQuoteApi(f, await engine.database());
    store = await openStore(api.config);
    admin = await openIntegratorAdministration(api.config);
    output = [];
  });
  afterEach(async () => {
    await admin.close();
    await store.close();
    await api.close();
  });

  const run = (...args: string[]) => runIntegratorsCommand(args, { store, admin, print: (line) => output.push(line), now, defaultActor: "ops-default" });
  const slug = () => `quote-${api.owner.address.slice(2, 10).toLowerCase()}`;
  const quote = () => api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("10", 6), taker: f.taker.account.address, fee_bps: 40 });

  /**
   * Waits until the API applies fee cap `cap` to the key. On PostgreSQL an instance's credential cache
   * drops when the commit's notification arrives, a moment after the operator's write (bounded by
   * CHANGE_REACH_MS here, as in credentialInvalidation.test.ts). The probe asks for a fee above any cap:
   * its refusal names the cap in force and runs before quote:read, so polling spends no quota.
   */
  const CHANGE_REACH_MS = 2_000;
  async function feeCapInForce(cap: number): Promise<void> {
    const deadline = Date.now() + CHANGE_REACH_MS;
    for (;;) {
      const probe = await api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("10", 6), taker: f.taker.account.address, fee_bps: 10_000 });
      const inForce = /integrator_max_fee_bps of (\d+)/.exec(probe.body?.error ?? "")?.[1];
      if (inForce === String(cap) || Date.now() >= deadline) return void expect(inForce, "the fee cap the API applies").to.equal(String(cap));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** quote() once its answer has status `status`, polled as feeCapInForce polls (a stale 200 spends a point of the default quota). */
  async function quoteAnswering(status: number): ReturnType<typeof quote> {
    const deadline = Date.now() + CHANGE_REACH_MS;
    for (;;) {
      const answer = await quote();
      if (answer.status === status || Date.now() >= deadline) return answer;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it("suspend refuses the profile's keys on /quote until reinstate (run as a separate process while the API is up)", async () => {
    expect((await quote()).status).to.equal(200);
    const suspended = await integratorsCli(api, "suspend", slug(), "--reason", "abuse report", "--by", "alice");
    expect(suspended.status, suspended.stderr).to.equal(0);
    expect(suspended.stdout).to.match(new RegExp(`^suspended ${slug()} \\(active → suspended\\)`));
    const refused = await quoteAnswering(403);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.include({ code: "integrator_not_active" });
    expect(refused.body!.error).to.contain("suspended");

    expect(await run("suspend", slug())).to.equal(0);
    expect(output.at(-1)).to.equal(`${slug()} is already suspended`);
    expect(await run("approve", slug())).to.equal(1);
    expect(output.at(-1)).to.match(/cannot approve .*: it is suspended; approve applies to pending profiles/);

    const reinstated = await integratorsCli(api, "reinstate", slug(), "--by", "bob");
    expect(reinstated.status, reinstated.stderr).to.equal(0);
    expect((await quoteAnswering(200)).status).to.equal(200);

    const shown = await integratorsCli(api, "show", slug(), "--json");
    expect(shown.status, shown.stderr).to.equal(0);
    const profile = JSON.parse(shown.stdout) as { status: string; audit: { by: string; action: string; at: string; detail: Record<string, unknown> }[] };
    expect(profile.status).to.equal("active");
    expect(profile.audit.map((entry) => [entry.by, entry.action])).to.deep.equal([
      ["alice", "suspend"],
      ["bob", "reinstate"],
    ]);
    expect(profile.audit[0]!.detail).to.deep.equal({ from: "active", to: "suspended", reason: "abuse report" });
    expect(Date.parse(profile.audit[0]!.at)).to.be.a("number").and.not.NaN;
  });

  it("confirm vouches for an auto-approved profile once (list shows it unconfirmed until then): only then, and while active, does its token demand count", async () => {
    const token = "0x00000000000000000000000000000000000000c1" as const;
    await store.recordTokenDemand([{ chainId: 4663, token, integratorId: api.integratorId, firstSeen: now, lastSeen: now }]);
    const counted = async () => (await store.listTokenDemand({ since: new Date(0), operatorApprovedOnly: true })).map((row) => row.integrators);
    expect((await store.listTokenDemand({ since: new Date(0) })).map((row) => row.integrators)).to.deep.equal([1]);
    expect(await counted(), "auto-approved: active, but no operator vouched for it").to.deep.equal([]);
    expect(await run("list")).to.equal(0);
    expect(output.join("\n")).to.match(new RegExp(`${slug()}\\s+active \\(unconfirmed\\)`));

    const confirmed = await integratorsCli(api, "confirm", slug(), "--by", "dana");
    expect(confirmed.status, confirmed.stderr).to.equal(0);
    expect(confirmed.stdout).to.match(new RegExp(`^confirmed ${slug()} \\(active → active\\); its demand for unsupported tokens now counts toward promotion`));
    expect(await counted()).to.deep.equal([1]);
    expect(await run("confirm", slug())).to.equal(0);
    expect(output.at(-1)).to.equal(`${slug()} is already approved by an operator`);
    output = [];
    expect(await run("show", slug(), "--json")).to.equal(0);
    const profile = JSON.parse(output.join("\n")) as { operator_approved_at: string | null; audit: { by: string; action: string }[] };
    expect(profile.operator_approved_at).to.be.a("string");
    expect(profile.audit.map((entry) => [entry.by, entry.action])).to.deep.equal([["dana", "confirm"]]);

    expect(await run("suspend", slug())).to.equal(0);
    expect(await counted(), "a suspended profile's demand does not count").to.deep.equal([]);
    expect(await run("confirm", slug())).to.equal(1);
    expect(output.at(-1)).to.match(/cannot confirm .*: it is suspended; confirm applies to active profiles/);
  });

  it("changes a profile's fee cap and rate limits (live keys and later ones), and one key's own limits; show prints who and when", async () => {
    expect(await run("limits", slug(), "--max-fee-bps", "30", "--quote-rpm", "5", "--by", "carol")).to.equal(0);
    expect(output.at(-1)).to.match(/quote 5\/min, fee cap 30 bps.*1 live key/);
    await feeCapInForce(30);
    const capped = await quote();
    expect(capped.status).to.equal(400);
    expect(capped.body!.error).to.contain("integrator_max_fee_bps of 30");
    const ok = await api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("10", 6), taker: f.taker.account.address });
    expect(ok.headers.get("x-ratelimit-quote-read-remaining")).to.equal("4");

    expect(await run("key-limits", String(api.apiKey.keyId), "--max-fee-bps", "10", "--swap-rpm", "3")).to.equal(0);
    await feeCapInForce(10);
    const keyCapped = await api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("10", 6), taker: f.taker.account.address, fee_bps: 20 });
    expect(keyCapped.body!.error).to.contain("integrator_max_fee_bps of 10");

    output = [];
    expect(await run("keys", slug(), "--json")).to.equal(0);
    const [key] = JSON.parse(output.join("\n")) as Record<string, unknown>[];
    expect(key).to.include({ key_id: api.apiKey.keyId, status: "active", quote_rate_limit_per_minute: 5, swap_rate_limit_per_minute: 3, max_fee_bps: 10 });
    // GET /price's allowance is shown beside the quote limit: PRICE_RATE_LIMIT_MULTIPLIER (default 5) × 5.
    expect(key).to.include({ price_rate_limit_per_minute: 25 });

    output = [];
    expect(await run("show", slug())).to.equal(0);
    const text = output.join("\n");
    expect(text).to.match(/max_fee_bps\s+30/).and.match(/quote_rate_limit_per_minute\s+5/);
    expect(text).to.match(/PRICE_RPM/).and.match(new RegExp(`\\s5\\s+25\\s+3\\s+10\\s`));
    expect(text).to.match(new RegExp(`${now.toISOString()}\\s+carol\\s+change_limits\\s+.*"max_fee_bps":\\[100,30\\]`));
    expect(text).to.match(new RegExp(`${now.toISOString()}\\s+ops-default\\s+change_key_limits\\s+${api.apiKey.keyId}\\s`));
  });

  it("revokes a key: trading endpoints refuse it at once; a move the status does not allow is refused saying why; bad usage exits 2", async () => {
    // The key was just used, so the API holds its credential in memory: the revocation must still win.
    expect((await quote()).status).to.equal(200);
    expect(await run("revoke-key", String(api.apiKey.keyId), "--reason", "leaked")).to.equal(0);
    // The CLI's store is another writer: on PostgreSQL the API hears of it by LISTEN/NOTIFY, within the
    // README's bound (2 s); on SQLite from the next request.
    let answer = await quote();
    for (const until = Date.now() + 2_000; engine.name !== "SQLite" && answer.status === 200 && Date.now() < until; answer = await quote()) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answer.body).to.deep.include({ code: "api_key_revoked" });
    expect(await run("revoke-key", String(api.apiKey.keyId))).to.equal(0);
    expect(output.at(-1)).to.match(/already revoked/);
    expect(await run("revoke-key", "999")).to.equal(1);
    // Beyond a 32-bit id: no such key on either engine (PostgreSQL's INTEGER would otherwise fail the query).
    expect(await run("key-limits", "99999999999", "--quote-rpm", "1")).to.equal(1);

    const audit = await admin.listAudit(api.integratorId);
    expect(audit.map((entry) => [entry.action, entry.keyId, entry.actor, entry.at.toISOString()])).to.deep.equal([["revoke_key", api.apiKey.keyId, "ops-default", now.toISOString()]]);

    // A pending profile (made directly in the store) can be rejected, and then not approved.
    expect(await run("suspend", "nobody")).to.equal(1);
    expect(await run("reject", slug())).to.equal(1);
    expect(output.at(-1)).to.match(/cannot reject .*: it is active; reject applies to pending profiles/);

    for (const args of [[], ["limits", slug()], ["limits", slug(), "--quote-rpm", "0"], ["key-limits", "abc", "--quote-rpm", "1"], ["show"], ["list", "--bogus"], ["frobnicate", "x"]]) {
      expect(await run(...args), args.join(" ")).to.equal(2);
    }
    output = [];
    expect(await run("list", "--json")).to.equal(0);
    expect((JSON.parse(output.join("\n")) as { slug: string }[]).map((row) => row.slug)).to.include(slug());
  });

  it("lists gas charged per taker and integrator against their budgets with when a spent one frees up, shows an integrator's usage by cause, and clears charges (reverts, show, clear-reverts)", async () => {
    const relayerDb = engine.name === "SQLite" ? { dbPath: join(mkdtempSync(join(tmpdir(), "cli-relayer-")), "relayer.sqlite"), databaseUrl: undefined } : { dbPath: "unused", databaseUrl: await createTestDatabase("cli_relayer") };
    const relayer = { open: () => openRelayStore(relayerDb), budgets: { taker: 250_000n, integrator: 400_000n } };
    const taker = f.taker.account.address;
    const minutesAgo = (minutes: number) => new Date(now.getTime() - minutes * 60_000);
    const seed = await relayer.open();
    try {
      const charge = (at: Date, overrides: Partial<UnpaidGasEntry> = {}): UnpaidGasEntry => ({ relayId: randomUUID(), taker, integratorId: api.integratorId, cause: "taker", kind: "reverted_swap", gasUsed: 150_000n, gasPrice: 1_000_000_000n, txHash: keccak256(toHex(randomUUID())), at, detail: "reverted", ...overrides });
      await seed.recordUnpaidGas(charge(minutesAgo(0)));
      await seed.recordUnpaidGas(charge(minutesAgo(1)));
      await seed.recordUnpaidGas(charge(minutesAgo(30 * 60))); // a day and more ago
      await seed.recordUnpaidGas(charge(minutesAgo(120), { cause: "integrator", kind: "cancel_replacement", gasUsed: 21_000n }));
      await seed.recordUnpaidGas(charge(minutesAgo(180), { cause: "market", gasUsed: 200_000n })); // counts against nobody
    } finally {
      await seed.close();
    }
    const context = { store, admin, print: (line: string) => output.push(line), now, defaultActor: "ops", relayer };
    expect(await runIntegratorsCommand(["reverts", "--json"], context)).to.equal(0);
    const takerFreesAt = new Date(minutesAgo(1).getTime() + 24 * 3_600_000).toISOString();
    expect(JSON.parse(output.join("\n"))).to.deep.equal({
      window_hours: 24,
      charges: [
        { kind: "integrator", subject: slug(), integrator_id: api.integratorId, charges: 3, charged_gas: 321_000, budget_gas: 400_000, spent: false, frees_at: null, last_charge_at: now.toISOString() },
        { kind: "taker", subject: taker, integrator_id: null, charges: 2, charged_gas: 300_000, budget_gas: 250_000, spent: true, frees_at: takerFreesAt, last_charge_at: now.toISOString() },
      ],
    });
    output.length = 0;
    expect(await runIntegratorsCommand(["reverts"], context)).to.equal(0);
    expect(output[0]).to.match(/^KIND\s+SUBJECT\s+CHARGES\s+GAS_24H\s+BUDGET\s+SPENT\s+FREES_AT\s+LAST_CHARGE/);

    output.length = 0;
    expect(await runIntegratorsCommand(["show", slug(), "--json"], context)).to.equal(0);
    expect((JSON.parse(output.join("\n")) as { gas_usage: unknown }).gas_usage).to.deep.equal({
      window_hours: 24,
      budget_gas: 400_000,
      charged_gas: 321_000,
      remaining_gas: 79_000,
      spent: false,
      frees_at: null,
      taker_budget_gas: 250_000,
      by_cause: [
        { cause: "integrator", kind: "cancel_replacement", charges: 1, gas: 21_000, eth: "0.000021", counts_against: ["integrator"] },
        { cause: "market", kind: "reverted_swap", charges: 1, gas: 200_000, eth: "0.0002", counts_against: [] },
        { cause: "taker", kind: "reverted_swap", charges: 2, gas: 300_000, eth: "0.0003", counts_against: ["integrator", "taker"] },
      ],
    });
    output.length = 0;
    expect(await runIntegratorsCommand(["show", slug()], context)).to.equal(0);
    expect(output).to.include("gas budget (unpaid gas, 24 h)  321000 of 400000 charged, 79000 remaining");
    expect(output.find((line) => line.startsWith("CAUSE"))).to.match(/^CAUSE\s+KIND\s+CHARGES\s+GAS\s+ETH\s+COUNTS_AGAINST/);
    expect(output.find((line) => line.startsWith("market"))).to.match(/^market\s+reverted_swap\s+1\s+200000\s+0\.0002\s+nobody/);

    output.length = 0;
    expect(await runIntegratorsCommand(["clear-reverts", taker], context)).to.equal(0);
    expect(output).to.deep.equal([`cleared 3 charges of taker ${taker}`]);
    expect(await runIntegratorsCommand(["clear-reverts", "no-such-slug"], context)).to.equal(1);
    expect(await runIntegratorsCommand(["clear-reverts"], context)).to.equal(2);
    output.length = 0;
    expect(await runIntegratorsCommand(["reverts", "--json"], context)).to.equal(0);
    expect((JSON.parse(output.join("\n")) as { charges: { kind: string }[] }).charges.map((row) => row.kind)).to.deep.equal(["integrator"]);
  });
});

describe("operator CLI: npm run integrators on an unreachable PostgreSQL", () => {
  it("says so in one line naming DATABASE_URL (not its password), exit code 1", async () => {
    const result = await runScript("scripts/integrators.ts", ["list"], { DATABASE_URL: "postgres://ops:hunter2@127.0.0.1:9/swap" });
    expect(result.status).to.equal(1);
    expect(result.stdout).to.equal("");
    expect(result.stderr.trim()).to.match(/^integrators: cannot use the PostgreSQL database at DATABASE_URL \(postgres:\/\/ops@127\.0\.0\.1:9\/swap\): \S.*$/);
    expect(result.stderr).to.not.contain("hunter2");
  });
});
