import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import type { RunningServer } from "../../api/serveApp";
import { ApiTransport } from "../../sdk/client/apiTransport";
import { manifestPath, OnboardingAction, onboardIntegrator, writeManifest } from "../../sdk";
import { startChainServer, type ChainServer } from "../../scripts/devnet/chainServer";
import type { EmbeddedPostgresServer } from "../../scripts/devnet/embeddedPostgres";
import { startOwnTestPostgres } from "../fixtures/postgresServer";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";

const SNAPSHOT_LIMIT = 5;
const FALLBACK_WARNING = "shared rate limits cannot be reached (PostgreSQL): counting per instance until it answers again";
const RECOVERY_NOTICE = "shared rate limits reachable again (PostgreSQL): counting across instances again";
const JOBS_WARNING = "supported-token jobs cannot reach the database (PostgreSQL): demand stays buffered and token decisions unchanged until it answers again";
const JOBS_NOTICE = "supported-token jobs reach the database again (PostgreSQL)";

type Answer = { status: number; body: any; headers: Headers };
type LogLine = { level: number; msg: string; code?: string };

/**
 * A PostgreSQL outage on real parts: the API (`startApi`, as `npm run api` runs it) on a PostgreSQL
 * server of this suite's own, which the tests shut down mid-test and start again. While it is down,
 * requests that need the database answer 503 `database_unavailable` with Retry-After (never a 500),
 * the snapshot is still served from memory with its limit counted per instance, and everything
 * works again once the server is back.
 */
describe("API during a PostgreSQL outage", function () {
  this.timeout(120_000);
  let postgres: EmbeddedPostgresServer;
  let chain: ChainServer;
  let directory: string;
  let api: RunningServer;
  let apiKey: string;
  const logs: LogLine[] = [];

  before(async () => {
    const manifest = await fixtureManifest(await loadFixture(settlementFixture));
    directory = mkdtempSync(join(tmpdir(), "database-outage-"));
    writeManifest(manifestPath(directory, 4663), manifest);
    chain = await startChainServer(hre, "127.0.0.1", 0);
    const own = await startOwnTestPostgres("database_outage");
    postgres = own.server;
    const config = {
      ...loadApiConfig({ API_PORT: "0", AUTO_APPROVE: "true", DATABASE_URL: own.url, DEPLOYMENTS_DIR: directory, SNAPSHOT_RATE_LIMIT_PER_MINUTE: String(SNAPSHOT_LIMIT), SNAPSHOT_REFRESH_SECONDS: "1", DEMAND_FLUSH_SECONDS: "1" }),
      rpcUrl: chain.url,
    };
    const logger = pino({ level: "info" }, { write: (line: string) => void logs.push(JSON.parse(line) as LogLine) });
    api = await startApi(config, logger);
    const owner = privateKeyToAccount(generatePrivateKey());
    const onboarded = await onboardIntegrator({
      baseUrl: api.url,
      account: owner,
      application: { chain_id: 4663, display_name: "Outage", slug: `outage-${owner.address.slice(2, 10).toLowerCase()}`, requested_max_fee_bps: 0 },
      keyLabel: "outage",
    });
    apiKey = onboarded.apiKey!.secret;
  });

  after(async () => {
    await api?.close();
    await chain?.close();
    await postgres?.stop();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  async function call(method: "GET" | "POST", path: string, json?: unknown, key?: string): Promise<Answer> {
    const response = await fetch(`${api.url}${path}`, {
      method,
      headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...(json === undefined ? {} : { "content-type": "application/json" }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), headers: response.headers };
  }
  const quotePath = `/quote?${new URLSearchParams({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6).toString(), taker: privateKeyToAccount(generatePrivateKey()).address })}`;
  const quote = () => call("GET", quotePath, undefined, apiKey);
  const snapshot = () => call("GET", "/tokens/supported-tokens");
  const nonce = () => call("POST", "/integrators/nonce", { wallet: privateKeyToAccount(generatePrivateKey()).address, action: OnboardingAction.ViewProfile });
  const logged = (msg: string) => logs.filter((line) => line.msg === msg);

  it("answers 503 database_unavailable with Retry-After on /quote and POST /integrators/nonce, serves the snapshot from memory under a per-instance limit, and recovers", async () => {
    expect((await quote()).status).to.equal(200);
    const before = await snapshot();
    expect(before.status).to.equal(200);
    expect((await nonce()).status).to.equal(200);

    await postgres.halt();
    for (const [name, request] of [["GET /quote", quote], ["POST /integrators/nonce", nonce]] as const) {
      const refused = await request();
      expect([refused.status, refused.body], name).to.deep.equal([503, { error: "the API's database cannot be reached right now; retry shortly", code: "database_unavailable" }]);
      expect(refused.headers.get("retry-after"), name).to.equal("3");
    }
    // The snapshot needs no database; its limit now counts in this instance's memory, from zero.
    for (let index = 0; index < SNAPSHOT_LIMIT; index++) {
      const served = await snapshot();
      expect(served.status, `snapshot ${index + 1} during the outage`).to.equal(200);
      expect(served.headers.get("etag")).to.equal(before.headers.get("etag"));
    }
    const limited = await snapshot();
    expect([limited.status, limited.body.code, limited.body.bucket]).to.deep.equal([429, "rate_limited", "snapshot"]);
    // One warning for the whole outage, whatever the number of buckets and requests; no 500 anywhere.
    expect(logged(FALLBACK_WARNING)).to.have.length(1);
    expect(logged(FALLBACK_WARNING)[0]!.level).to.equal(40);
    expect(logged("request failed")).to.deep.equal([]);
    expect(logged("request refused").map((line) => line.code)).to.deep.equal(["database_unavailable", "database_unavailable"]);

    await postgres.resume();
    expect((await nonce()).status).to.equal(200);
    expect((await quote()).status).to.equal(200);
    // The shared limits are tried again in the background about once a second; the first answer ends the outage.
    for (const until = Date.now() + 10_000; logged(RECOVERY_NOTICE).length === 0 && Date.now() < until; ) {
      expect((await nonce()).status).to.equal(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(logged(RECOVERY_NOTICE)).to.have.length(1);
    // Counted in PostgreSQL again, where this client has used one request of the minute.
    expect((await snapshot()).status).to.equal(200);
    expect(logged(FALLBACK_WARNING)).to.have.length(1);
  });

  it("logs an outage of the supported-token jobs (refresh and demand flush, every second here) once at warn and its end once at info, never as errors", async () => {
    const start = logs.length;
    const since = (msg: string) => logs.slice(start).filter((line) => line.msg === msg);
    const waitFor = async (msg: string) => {
      for (const until = Date.now() + 15_000; since(msg).length === 0; ) {
        expect(Date.now(), `waiting for "${msg}"`).to.be.below(until);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    await postgres.halt();
    try {
      await waitFor(JOBS_WARNING);
      // Both jobs run every second: let each fail a few more times during the same outage.
      const warnedAt = logs.length;
      for (const until = Date.now() + 3_500; Date.now() < until; ) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(logs.slice(warnedAt).map((line) => line.msg), "nothing more logged while the outage lasts").to.deep.equal([]);
    } finally {
      await postgres.resume();
    }
    await waitFor(JOBS_NOTICE);
    expect(since(JOBS_WARNING).map((line) => line.level)).to.deep.equal([40]);
    expect(since(JOBS_NOTICE).map((line) => line.level)).to.deep.equal([30]);
    expect(logs.slice(start).filter((line) => line.level >= 50), "error-level entries").to.deep.equal([]);
  });

  it("the client retries a GET answered 503 database_unavailable after Retry-After, and gets the quote once PostgreSQL is back", async () => {
    const statuses: number[] = [];
    const transport = new ApiTransport({
      apiUrl: api.url,
      apiKey,
      logger: {},
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        // The outage ends while the client waits to retry.
        if (response.status === 503) await postgres.resume();
        return response;
      },
    });
    await postgres.halt();
    const answered = await transport.request({ method: "GET", path: quotePath, authenticated: true, retry: true });
    expect(answered.status).to.equal(200);
    expect(statuses).to.deep.equal([503, 200]);
  });
});
