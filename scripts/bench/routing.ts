/**
 * `npm run bench:routing`: routing at market scale. A seeded market (scripts/market/generateMarket.ts)
 * grows on an in-process devnet through 10, 100, 1,000 and 5,000 pools (`BENCH_POOLS=10,100` picks
 * sizes). At each size the API is started on that market, and the run measures: quote p50/p99 and
 * full-quote throughput as a share of GET /health on the same app (autocannon, idle chain), the time
 * the pool state takes to absorb a block touching 1 %, 10 % and 100 % of the pools, the heap its
 * state takes, and split versus single-path output for orders of 0.1 %, 1 % and 10 % of the
 * WETH/USDC pool's depth. Then (scripts/bench/routingMixed.ts) the quote engine on in-memory mixed
 * markets of V2 and V3 pools at 10, 1,000 and 5,000 pools (`BENCH_MIXED_POOLS`), and what splitting
 * buys on the devnet's split pair (DEV_SPLIT_PAIR) through the API's market tracker on the real devnet.
 * Prints tables with the issue's goals and writes bench-results/routing.json.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import hre from "hardhat";
import pino from "pino";
import { createPublicClient, custom, parseUnits, type Abi, type Address, type Hex, type PublicClient } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { onboardIntegrator, type DeploymentManifest } from "../../sdk";
import { manifestPath, writeManifest } from "../../sdk/chain/manifest";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { deployDevnet } from "../deploy/deployDevnet";
import { marketGenerator } from "../market/generateMarket";
import { formatTable } from "./printTable";
import { measurePoolState, type StateResult } from "./routingMeasure";
import { measureDevnetSplit, measureEngine, type EngineResult, type SplitPairResult } from "./routingMixed";

const ROOT = join(__dirname, "..", "..");
const SIZES = (process.env.BENCH_POOLS ?? "10,100,1000,5000").split(",").map(Number).sort((a, b) => a - b);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SEED = Number(process.env.BENCH_SEED ?? 13);
const MIXED_SIZES = (process.env.BENCH_MIXED_POOLS ?? "10,1000,5000").split(",").map(Number).sort((a, b) => a - b);
const MIXED_QUOTES = Number(process.env.BENCH_MIXED_QUOTES ?? 2000);
/** Development account #1 of the devnet (a well-known test key). */
const INTEGRATOR_KEY: Hex = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

type LoadResult = { rps: number; p50: number; p99: number };
type SizeResult = { pools: number; tokens: number; health: LoadResult; quote: LoadResult; quotePath: string } & StateResult;

async function load(url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  // The load is generated in a worker thread, off the event loop that runs the chain and the API.
  await autocannon({ url, headers, connections: CONNECTIONS, duration: 1, workers: 1 });
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_SECONDS, workers: 1 });
  if (result.non2xx > 0 || result["2xx"] === 0) throw new Error(`${url}: ${result.non2xx} responses were not 2xx`);
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
}

/** The API on `manifest`, an integrator key, and the quote and health loads. */
async function measureHttp(directory: string, manifest: DeploymentManifest, pools: number): Promise<Pick<SizeResult, "health" | "quote" | "quotePath">> {
  writeManifest(manifestPath(directory, manifest.chainId), manifest);
  const env = {
    ...process.env,
    API_PORT: "0",
    API_DB_PATH: join(directory, `api-${pools}.sqlite`),
    API_LOG_LEVEL: "warn",
    DEPLOYMENTS_DIR: directory,
    AUTO_APPROVE: "true",
    DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: "100000000",
    SNAPSHOT_RATE_LIMIT_PER_MINUTE: "100000000",
  };
  const config = { ...loadApiConfig(env), rpcUrl: "http://127.0.0.1:1" };
  const api = await startApi(config, pino({ level: "warn" }), new Map([[manifest.chainId, custom(hre.network.provider, { retryCount: 0 })]]));
  try {
    const taker = privateKeyToAccount(INTEGRATOR_KEY);
    const onboarded = await onboardIntegrator({
      baseUrl: api.url,
      account: taker,
      application: { chain_id: manifest.chainId, display_name: "Routing Bench", slug: `routing-${pools}-${Date.now()}`, requested_max_fee_bps: 50 },
      keyLabel: "bench",
    });
    const auth = { authorization: `Bearer ${onboarded.apiKey!.secret}` };
    // A generated token bought with USDC: a path through the hubs, as most of a large market's pairs need.
    const leaf = manifest.tokens.find((token) => token.symbol.startsWith("MKT")) ?? manifest.tokens.find((token) => token.symbol === "LINK")!;
    const usdc = manifest.tokens.find((token) => token.symbol === "USDC")!;
    const quotePath = `/quote?chain_id=${manifest.chainId}&sell_token=${usdc.address}&buy_token=${leaf.address}&sell_amount=${parseUnits("1000", 6)}&taker=${taker.address}`;
    const probe = await fetch(`${api.url}${quotePath}`, { headers: auth });
    if (probe.status !== 200) throw new Error(`quote: ${probe.status} ${await probe.text()}`);
    const health = await load(`${api.url}/health`);
    const quote = await load(`${api.url}${quotePath}`, auth);
    return { health, quote, quotePath: `USDC → ${leaf.symbol}, ${((await probe.json()) as { route: { hops: unknown[] } }).route.hops.length} hops` };
  } finally {
    await api.close();
  }
}

function report(results: readonly SizeResult[]): string {
  const rows = results.map((result) => [
    String(result.pools),
    String(result.tokens),
    `${result.quote.p50.toFixed(1)} / ${result.quote.p99.toFixed(1)} ms`,
    `${result.quote.rps.toFixed(0)} (${((result.quote.rps / result.health.rps) * 100).toFixed(1)} %)`,
    `${result.health.rps.toFixed(0)}`,
    result.absorb.map((entry) => entry.ms.toFixed(1)).join(" / "),
    `${result.fullReadMs.toFixed(0)} ms`,
    `${result.heapMiB.toFixed(1)} MiB`,
    result.split.map((entry) => `${entry.gainBps.toFixed(1)}(${entry.legs})`).join(" / "),
  ]);
  const table = formatTable(["pools", "tokens", "quote p50/p99", "quote req/s (of /health)", "/health req/s", "absorb 1/10/100 % ms", "first read", "state heap", "split gain bps (legs) 0.1/1/10 %"], rows);
  const first = results[0]!;
  const last = results[results.length - 1]!;
  const ratio = (result: SizeResult) => result.quote.rps / result.health.rps;
  const verdict = (met: boolean) => (met ? "met" : "MISSED");
  const goals = [
    `full-quote throughput at ${last.pools} pools vs ${first.pools}: ${((ratio(last) / ratio(first)) * 100).toFixed(0)} % of it (goal ≥ 50 % at 5,000 vs 10): ${verdict(ratio(last) / ratio(first) >= 0.5)}`,
    `quote p99 at ${last.pools} pools: ${last.quote.p99.toFixed(1)} ms (goal ≤ 25 ms at 5,000): ${verdict(last.quote.p99 <= 25)}`,
    `a block touching 1 % of ${last.pools} pools absorbed in ${last.absorb[0]!.ms.toFixed(1)} ms (goal ≤ 50 ms at 5,000): ${verdict(last.absorb[0]!.ms <= 50)}`,
    `split gain on 10 %-of-depth USDC→WETH orders at ${last.pools} pools: ${last.split[2]!.gainBps.toFixed(1)} bps (goal ≥ 20 bps): ${verdict(last.split[2]!.gainBps >= 20)}`,
  ];
  return `${table}\n\nGoals${SIZES.includes(5000) ? "" : ` (this run stops at ${last.pools} pools: the goals are for 5,000)`}:\n${goals.map((line) => `  - ${line}`).join("\n")}\n`;
}

function mixedReport(engine: readonly EngineResult[], split: SplitPairResult): string {
  const base = engine[0]!;
  const table = formatTable(
    ["pools (V3, V4)", "tokens", "quote p50/p99", "quotes/s (of smallest)", "CPU per quote p50/p99", "quotes per CPU-s (of smallest)", "split quotes", "quotes via V4"],
    engine.map((result) => [
      `${result.pools} (${result.v3Pools}, ${result.v4Pools})`,
      String(result.tokens),
      `${result.p50Ms.toFixed(2)} / ${result.p99Ms.toFixed(2)} ms`,
      `${result.quotesPerSecond.toFixed(0)} (${((result.quotesPerSecond / base.quotesPerSecond) * 100).toFixed(0)} %)`,
      `${result.cpuP50Ms.toFixed(2)} / ${result.cpuP99Ms.toFixed(2)} ms`,
      `${result.quotesPerCpuSecond.toFixed(0)} (${((result.quotesPerCpuSecond / base.quotesPerCpuSecond) * 100).toFixed(0)} %)`,
      `${result.splitQuotes} of ${result.quotes}`,
      `${result.v4Quotes} of ${result.quotes}`,
    ]),
  );
  const last = engine[engine.length - 1]!;
  const verdict = (met: boolean) => (met ? "met" : "MISSED");
  const splitTable = formatTable(
    ["USDC→WETH order", "output (WETH wei)", "route"],
    [
      [`best single pool`, split.bestSingleVenue.amountOut, split.bestSingleVenue.leg],
      [`best single path`, split.bestSinglePath.amountOut, split.bestSinglePath.legs.join(" → ")],
      [`best split`, split.split.amountOut, split.split.legs.map((leg) => `${(leg.shareBps / 100).toFixed(1)} % ${leg.name}`).join(" + ")],
    ],
  );
  return (
    `\nQuote engine on mixed V2+V3+V4 markets (in memory: generated V3 and V4 pool states priced by the real adapters; search net of gas + split decision + actions, one quote at a time, no HTTP; ${base.quotes} quotes per size)\n\n${table}\n\n` +
    `  - engine p99 at ${last.pools} pools: ${last.p99Ms.toFixed(2)} ms (goal for the full HTTP quote ≤ 25 ms at 5,000): ${verdict(last.p99Ms <= 25)}\n` +
    `  - engine throughput at ${last.pools} pools: ${((last.quotesPerSecond / base.quotesPerSecond) * 100).toFixed(0)} % of ${base.pools} pools' (goal ≥ 50 %): ${verdict(last.quotesPerSecond / base.quotesPerSecond >= 0.5)}\n` +
    `  - the same from CPU time (what neighbours on shared cores do not change): p99 ${last.cpuP99Ms.toFixed(2)} ms (${verdict(last.cpuP99Ms <= 25)}), ` +
    `throughput ${((last.quotesPerCpuSecond / base.quotesPerCpuSecond) * 100).toFixed(0)} % of ${base.pools} pools' (${verdict(last.quotesPerCpuSecond / base.quotesPerCpuSecond >= 0.5)})\n` +
    `\nWhat splitting buys on the devnet's split pair ${split.pair}, selling ${Number(split.sellUsdc) / 1e6} USDC (real devnet, API market tracker at the head block; V4 pools ${split.v4 === "assumed" ? "assumed routable: the devnet's routers have no SWAP_V4 yet" : split.v4})\n\n${splitTable}\n\n` +
    `  - best split vs best single pool: ${split.gainBpsVsVenue.toFixed(1)} bps; vs best single path: ${split.gainBpsVsPath.toFixed(1)} bps\n`
  );
}

async function main(): Promise<void> {
  await hre.run("compile", { quiet: true });
  const directory = mkdtempSync(join(tmpdir(), "bench-routing-"));
  try {
    const { manifest: base } = await deployDevnet(hre, manifestPath(directory, 4663));
    const client = createPublicClient({ transport: custom(hre.network.provider) }) as PublicClient;
    const [deployer] = (await hre.network.provider.request({ method: "eth_accounts" })) as Address[];
    // The devnet's own market (V2, both V3 venues, the propAMM) before the generator adds V2 pools to it.
    const split = await measureDevnetSplit(client, base);
    const engine = MIXED_SIZES.map((pools) => {
      process.stderr.write(`mixed market of ${pools} pools: measuring the quote engine\n`);
      return measureEngine(pools, SEED, MIXED_QUOTES);
    });
    const devToken = await hre.artifacts.readArtifact("DevToken");
    const generator = await marketGenerator(hre, base, deployer!, { abi: devToken.abi as Abi, bytecode: devToken.bytecode as Hex }, SEED);
    const results: SizeResult[] = [];
    for (const pools of SIZES) {
      const started = performance.now();
      await generator.growTo(pools);
      const manifest = generator.manifest(pools);
      // The generator mines its transactions into a few huge blocks; quotes read the head block, so
      // start from an ordinary (empty) one as a real chain's would be.
      await hre.network.provider.request({ method: "evm_mine" });
      process.stderr.write(`${pools} pools: market ready in ${((performance.now() - started) / 1000).toFixed(1)} s; measuring\n`);
      const http = await measureHttp(directory, manifest, pools);
      const state = await measurePoolState(hre, client, manifest, devToken.abi as Abi, deployer!);
      results.push({ pools, tokens: manifest.tokens.length, ...http, ...state });
    }
    process.stdout.write(
      `\nRouting at market scale (seed ${SEED}; ${CONNECTIONS} connections, ${DURATION_SECONDS} s per load; chain, API and load generator in one process; idle chain during the loads)\n\n${report(results)}`,
    );
    process.stdout.write(mixedReport(engine, split));
    const out = join(ROOT, "bench-results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "routing.json"), `${JSON.stringify({ measuredAt: new Date().toISOString(), seed: SEED, connections: CONNECTIONS, durationSeconds: DURATION_SECONDS, results, mixed: engine, splitPair: split }, null, 2)}\n`);
    process.stdout.write("written to bench-results/routing.json\n");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
