import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { parseEventLogs, parseUnits, type Hex, type LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { gaslessSwapRouterAbi, onboardIntegrator, writeManifest } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import { spawnService, type SpawnedService } from "../../scripts/devnet/spawnService";
import { fundedTakers, RELAYER_TOKEN, relayerAccounts, type QuotePermit2 } from "../fixtures/gaslessStack";
import { freePort } from "../../scripts/devnet/freePort";
import { createTestDatabase } from "../fixtures/postgresServer";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { RELAYER_READY_WITH_METRICS } from "../../relayer/readyLines";

const RELAYS = 200;
const TAKERS = 20;
const QUOTE_LIMIT = 4;

type Answer = { status: number; body: any };

async function call(base: string, method: string, path: string, key?: string, json?: unknown): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...(json === undefined ? {} : { "content-type": "application/json" }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) };
}

/**
 * (In test/scale/, so it runs after the relayer tests: its few hundred blocks in seconds push the
 * shared in-process chain's clock ahead of the wall clock, which later quote-expiry checks would feel.)
 *
 * Scale-out on real parts: one chain, one PostgreSQL, two API processes and two relayer processes
 * (child processes on loopback ports). Relays are submitted round-robin to both APIs, a relayer is
 * killed with SIGKILL mid-run, and every relay still ends confirmed with exactly one SwapSettled; a
 * key's quote limit holds across both APIs.
 */
describe("scale-out: two APIs and two relayers on one PostgreSQL", function () {
  this.timeout(240_000);
  let f: SettlementFixture;
  let chain: ChainServer;
  let directory: string;
  let databaseUrl: string;
  const services: SpawnedService[] = [];
  let apis: string[];
  let relayers: SpawnedService[];

  before(async () => {
    f = await loadFixture(settlementFixture);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    directory = mkdtempSync(join(tmpdir(), "scale-out-"));
    writeManifest(join(directory, "4663.json"), await fixtureManifest(f));
    databaseUrl = await createTestDatabase("scale_out");
    const signers = relayerAccounts(4).signers;
    const relayerPorts = await Promise.all([0, 1].map(() => freePort()));
    relayers = [];
    for (const [index, port] of relayerPorts.entries()) {
      relayers.push(
        await spawnService(
          "relayer/main.ts",
          {
            DATABASE_URL: databaseUrl,
            RELAYER_PRIVATE_KEYS: signers.slice(index * 2, index * 2 + 2).map((account) => account.privateKey).join(","),
            RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN,
            RPC_URL: chain.url,
            DEPLOYMENTS_DIR: directory,
            RELAYER_PORT: String(port),
            RELAYER_METRICS_PORT: "0",
            RELAYER_POLL_MS: "100",
            RELAYER_LEASE_SECONDS: "2",
            RELAYER_LOG_LEVEL: "warn",
          },
          RELAYER_READY_WITH_METRICS,
        ),
      );
    }
    services.push(...relayers);
    const relayerUrl = relayerPorts.map((port) => `http://127.0.0.1:${port}`);
    apis = [];
    for (const index of [0, 1]) {
      const api = await spawnService(
        "api/main.ts",
        {
          DATABASE_URL: databaseUrl,
          API_PORT: "0",
          METRICS_PORT: "0",
          RPC_URL: chain.url,
          DEPLOYMENTS_DIR: directory,
          // Each API lists both relayers, in another order: any relayer stores a relay for all.
          RELAYER_URL: (index === 0 ? relayerUrl : [...relayerUrl].reverse()).join(","),
          RELAYER_INTERNAL_TOKEN: RELAYER_TOKEN,
          RELAYER_FEE_RECIPIENT: relayerAccounts().feeRecipient,
          DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: "100000",
          DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: "100000",
          API_LOG_LEVEL: "warn",
          AUTO_APPROVE: "true",
          SNAPSHOT_REFRESH_SECONDS: "1",
        },
        /^Integrator API on (\S+)\nMetrics on (\S+)\/metrics$/m,
      );
      services.push(api);
      apis.push(api.ready[1]!);
    }
  });

  after(async () => {
    for (const service of services) await service.stop("SIGKILL");
    await chain?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  async function onboard(slug: string): Promise<string> {
    const onboarded = await onboardIntegrator({
      baseUrl: apis[0]!,
      account: privateKeyToAccount(generatePrivateKey()),
      application: { chain_id: 4663, display_name: slug, slug, requested_max_fee_bps: 50 },
      keyLabel: slug,
    });
    return onboarded.apiKey!.secret;
  }

  const quotePath = (taker: LocalAccount) =>
    `/quote?${new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6).toString(), taker: taker.address, permit2_owner: taker.address })}`;

  it("serves the same supported-token snapshot, with the same ETag, from both APIs", async () => {
    const etags = await Promise.all(apis.map(async (api) => (await fetch(`${api}/tokens/supported-tokens?chain_id=4663`)).headers.get("etag")));
    expect(etags[0]).to.be.a("string");
    expect(etags[1]).to.equal(etags[0]);
  });

  it("serves /health and /ready on every API and relayer, and /metrics on their metrics ports only", async () => {
    for (const api of services.filter((service) => apis.includes(service.ready[1]!))) {
      const url = api.ready[1]!;
      expect((await call(url, "GET", "/health")).status).to.equal(200);
      expect((await call(url, "GET", "/ready")).body).to.deep.equal({ status: "ready", gasless: "available", checks: { database: "ok", chain: "ok", relayer: "ok" } });
      expect((await fetch(`${url}/metrics`)).status).to.equal(404);
      expect(await (await fetch(`${api.ready[2]!}/metrics`)).text()).to.contain("api_http_request_duration_seconds");
    }
    for (const relayer of relayers) {
      const url = relayer.ready[1]!;
      expect((await call(url, "GET", "/ready")).body).to.include({ status: "ready" });
      expect((await fetch(`${url}/metrics`)).status).to.equal(401);
      expect(await (await fetch(`${relayer.ready[2]!}/metrics`)).text()).to.contain("relayer_signer_balance");
    }
  });

  it("holds a key's quote limit across both APIs: the (limit+1)-th request to either gets 429", async () => {
    const key = await onboard("limited-across-apis");
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await db.query("UPDATE api_keys SET quote_rate_limit_per_minute = $1 WHERE label = 'limited-across-apis'", [QUOTE_LIMIT]);
    } finally {
      await db.end();
    }
    const [taker] = await fundedTakers(f, 1);
    // The limit counts per calendar minute (quotaLeases.ts): a run that crossed a minute's end would start
    // a fresh window before the (limit+1)-th request, so it starts with at least 30 s of its minute left.
    const leftInMinute = 60_000 - (Date.now() % 60_000);
    if (leftInMinute < 30_000) await new Promise((resolve) => setTimeout(resolve, leftInMinute + 50));
    const statuses: number[] = [];
    for (let index = 0; index < QUOTE_LIMIT; index++) statuses.push((await call(apis[index % 2]!, "GET", quotePath(taker!), key)).status);
    expect(statuses).to.deep.equal(Array(QUOTE_LIMIT).fill(200));
    for (const api of apis) {
      const refused = await call(api, "GET", quotePath(taker!), key);
      expect([refused.status, refused.body.code, refused.body.bucket]).to.deep.equal([429, "rate_limited", "quote:read"]);
    }
  });

  it("hands out distinct Permit2 nonces to one taker quoting through both APIs at once", async () => {
    const key = await onboard("nonces-across-apis");
    const [taker] = await fundedTakers(f, 1);
    const quotes = await Promise.all(Array.from({ length: 24 }, (_, index) => call(apis[index % 2]!, "GET", quotePath(taker!), key)));
    expect(quotes.map((quote) => quote.status)).to.deep.equal(Array(24).fill(200));
    const nonces = quotes.map((quote) => (quote.body.permit2 as QuotePermit2).message.nonce as string);
    expect(new Set(nonces).size, nonces.join(",")).to.equal(24);
  });

  it("answers 503 quote_unavailable, not a chain error, while the shared nonce reservations cannot be written; quotes resume after", async () => {
    const key = await onboard("nonces-unavailable");
    const [taker] = await fundedTakers(f, 1);
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await db.query("ALTER TABLE permit_nonce_ranges RENAME TO permit_nonce_ranges_away");
      const refused = await call(apis[0]!, "GET", quotePath(taker!), key);
      expect([refused.status, refused.body.code]).to.deep.equal([503, "quote_unavailable"]);
      expect(refused.body.error).to.match(/nonce reservations/).and.not.match(/permit_nonce_ranges|postgres/i);
      // The operator's log says what the database answered (the line reaches us through the child's pipe, so wait for it).
      const api = services.find((service) => service.ready[1] === apis[0])!;
      const logged = /"code":"quote_unavailable"[^\n]*permit_nonce_ranges[^\n]*does not exist/;
      for (const until = Date.now() + 10_000; !logged.test(api.output()) && Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(api.output()).to.match(logged);
    } finally {
      await db.query("ALTER TABLE permit_nonce_ranges_away RENAME TO permit_nonce_ranges");
      await db.end();
    }
    expect((await call(apis[0]!, "GET", quotePath(taker!), key)).status).to.equal(200);
  });

  it(`confirms ${RELAYS} gasless relays submitted round-robin to both APIs, each with one SwapSettled, while a relayer is killed mid-run`, async () => {
    const key = await onboard("scale-out");
    const takers = await fundedTakers(f, TAKERS);
    const submitted: { relayId: string; onchainQuoteId: Hex; api: string }[] = [];
    let killed = false;
    const relayOne = async (index: number) => {
      // A taker's quotes alternate between the APIs: Permit2 nonce reservations are shared.
      const taker = takers[index % TAKERS]!;
      const api = apis[(index + Math.floor(index / TAKERS)) % 2]!;
      const quote = await call(api, "GET", quotePath(taker), key);
      expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
      const permit2 = quote.body.permit2 as QuotePermit2;
      const { EIP712Domain: _domain, ...types } = permit2.types;
      const signature = await taker.signTypedData({ ...permit2, types } as Parameters<LocalAccount["signTypedData"]>[0]);
      const body = { quote_id: quote.body.quote_id, signature, idempotency_key: `relay-${index}` };
      for (let attempt = 0; ; attempt++) {
        const answer = await call(apis[index % 2]!, "POST", "/gasless/submit", key, body);
        if (answer.status === 202 || answer.status === 200) {
          submitted.push({ relayId: answer.body.relay_id, onchainQuoteId: (permit2.message.witness as { quoteId: Hex }).quoteId, api: apis[index % 2]! });
          break;
        }
        // While a relayer dies the API may answer 503 relayer_unavailable: a client retries with its idempotency key.
        expect([answer.status, attempt < 20], JSON.stringify(answer.body)).to.deep.equal([503, true]);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      if (submitted.length >= RELAYS / 2 && !killed) {
        killed = true;
        await relayers[0]!.stop("SIGKILL");
      }
    };
    const waves = 10;
    for (let wave = 0; wave < waves; wave++) {
      await Promise.all(Array.from({ length: RELAYS / waves }, (_, offset) => relayOne(wave * (RELAYS / waves) + offset)));
    }
    expect(killed).to.equal(true);
    expect(new Set(submitted.map((relay) => relay.relayId)).size).to.equal(RELAYS);

    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const until = Date.now() + 90_000;
      for (;;) {
        const { rows } = await db.query<{ open: string }>("SELECT COUNT(*) AS open FROM relays WHERE status IN ('accepted', 'submitted')");
        if (Number(rows[0]!.open) === 0) break;
        if (Date.now() > until) throw new Error(`${rows[0]!.open} relays still open`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const { rows } = await db.query<{ status: string; count: string }>("SELECT status, COUNT(*) AS count FROM relays GROUP BY status");
      const { rows: errors } = await db.query<{ status: string; error: string | null }>("SELECT status, error FROM relays WHERE status <> 'confirmed' LIMIT 3");
      expect(rows.map((row) => [row.status, Number(row.count)]), JSON.stringify(errors)).to.deep.equal([["confirmed", RELAYS]]);
      const { rows: takenOver } = await db.query<{ count: string }>("SELECT COUNT(DISTINCT claimed_by) AS count FROM relays");
      expect(Number(takenOver[0]!.count)).to.be.at.most(2);
    } finally {
      await db.end();
    }
    const logs = await f.publicClient.getLogs({ address: f.contracts.gaslessSwapRouter, fromBlock: 0n, toBlock: "latest" });
    const settled = parseEventLogs({ abi: gaslessSwapRouterAbi, logs, eventName: "SwapSettled" });
    for (const relay of submitted) expect(settled.filter((log) => log.args.quoteId === relay.onchainQuoteId), relay.relayId).to.have.length(1);
    // Each relay reads back as confirmed through either API (any relayer answers for all).
    const sample = submitted.slice(0, 10);
    for (const [index, relay] of sample.entries()) {
      const status = await call(apis[index % 2]!, "GET", `/gasless/status/${relay.relayId}`, key);
      expect([status.status, status.body.status]).to.deep.equal([200, "confirmed"]);
    }
  });

  it("an operator's decision written once reaches the snapshot of both APIs within the refresh interval, with one new ETag", async () => {
    const etag = async (api: string) => (await fetch(`${api}/tokens/supported-tokens?chain_id=4663`)).headers.get("etag");
    const before = await etag(apis[0]!);
    const manifest = await fixtureManifest(f);
    const link = manifest.tokens.find((token) => token.symbol === "LINK")!;
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO token_overrides (chain_id, token, status, source, reason, chain_run, created_at, updated_at)
         VALUES (4663, $1, 'disabled', 'operator', 'scale-out test', $2, $3, $3)`,
        [link.address.toLowerCase(), manifest.deployBlockHash.toLowerCase(), Date.now()],
      );
    } finally {
      await db.end();
    }
    const until = Date.now() + 10_000;
    let etags: (string | null)[] = [];
    while (Date.now() < until) {
      etags = await Promise.all(apis.map(etag));
      if (etags.every((value) => value !== before)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(etags[0]).to.not.equal(before);
    expect(etags[1]).to.equal(etags[0]);
    const body = (await (await fetch(`${apis[1]!}/tokens/supported-tokens?chain_id=4663`)).json()) as { addresses: string[] };
    expect(body.addresses).to.not.include(link.address.toLowerCase());
  });
});
