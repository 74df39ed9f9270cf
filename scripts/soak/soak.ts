/**
 * `npm run soak`: an hour (SOAK_MINUTES) of mixed load with faults on everything the toolkit runs on,
 * and a report of what held.
 *
 * - One devnet with interval mining (the Hardhat chain with everything deployed, in its own process:
 *   scripts/bench/relayerChain.ts), one PostgreSQL (embedded, as the tests), two API instances and two
 *   relayers on it (`api/main.ts`, `relayer/main.ts`: real child processes), all on loopback. The APIs
 *   and relayers reach the node through a TCP gate the soak can close (rpcGate.ts).
 * - A bounded mixed load (soakLoad.ts) from several integrators, and faults on a schedule scaled to the
 *   run (faultSchedule.ts): SIGKILL of an API and of a relayer, each restarted after a pause, a
 *   PostgreSQL restart, the node unreachable for 10 s, a 5× burst.
 * - After the load, every accepted relay must become final; each is checked against the chain's
 *   SwapSettled logs (soakRelays.ts). The report (soakReport.ts) goes to stdout and
 *   `<SOAK_OUT_DIR>/soak.json`, the chart (soakChart.ts) to `<SOAK_OUT_DIR>/soak.svg`, the services'
 *   last output to `<SOAK_OUT_DIR>/soak-logs/`. Progress lines go to stderr. Exit code 1 if a goal failed.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseEther, parseUnits, toHex, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain, onboardIntegrator, readManifest } from "../../sdk";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "../devnet/embeddedPostgres";
import { freePort } from "../devnet/freePort";
import { spawnService, type SpawnedService } from "../devnet/spawnService";
import { parseSoakCommandLine } from "./chaosOptions";
import { chaosSoak } from "./chaosSoak";
import { planFaults, runFaults, type FaultRecord } from "./faultSchedule";
import { startRpcGate, type RpcGate } from "./rpcGate";
import { soakChart } from "./soakChart";
import { soakHttp } from "./soakHttp";
import { soakLoad } from "./soakLoad";
import { soakFleet, type SoakFleet } from "./soakProcesses";
import { drainRelays, settlementsByQuote, soakRelays, type Integrator } from "./soakRelays";
import { percentile, soakFigures, type RequestSample } from "./soakReport";
import { soakReportText } from "./soakReportText";
import { loadSoakSettings } from "./soakSettings";
import { errorSummary } from "../../sdk/errors/errorSummary";

const ROOT = join(__dirname, "..", "..");
const CHAIN_ID = devnetChain.id;
const RELAY_SELL_USDC = parseUnits("10", 6);
/** A path as printed: relative to the checkout when inside it. */
const shown = (path: string) => (relative(ROOT, path).startsWith("..") || isAbsolute(relative(ROOT, path)) ? path : relative(ROOT, path));
const log = (line: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const mintAbi = [{ type: "function", name: "mint", stateMutability: "nonpayable", inputs: [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }], outputs: [] }] as const;

async function mapLimit<T>(items: readonly T[], limit: number, run: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
}

async function main(): Promise<number> {
  const settings = loadSoakSettings();
  const commandLine = parseSoakCommandLine(process.argv.slice(2));
  // `--chaos`: the relayer under a faulty RPC and `--restarts` node restarts instead (chaosSoak.ts).
  if (commandLine.chaos) return chaosSoak(settings.outDir, { restarts: commandLine.restarts });
  const plan = planFaults(settings);
  log(`${settings.minutes} min at SOAK_RATE=${settings.rate}, ${settings.blockMs}-ms blocks, windows of ${settings.windowMs / 1000} s, faults: ${plan.map((fault) => `${fault.label} at ${(fault.atMs / 1000).toFixed(0)} s`).join("; ")}`);
  const directory = mkdtempSync(join(tmpdir(), "soak-"));
  let loadStart = Number.POSITIVE_INFINITY;
  const now = () => Date.now() - loadStart;
  const fleet: SoakFleet = soakFleet(join(settings.outDir, "soak-logs"), now);
  const cleanups: (() => Promise<unknown>)[] = [];
  let interrupted = false;
  const onSignal = () => {
    interrupted = true;
    log("interrupted: stopping the load, then everything the soak started");
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    // --- The chain, with everything deployed, in its own process ------------------------------------
    log("starting the chain (compile, deploy)");
    const chain: SpawnedService = await spawnService("scripts/bench/relayerChain.ts", { DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory, BENCH_CHAIN: "hardhat" }, /^Chain on (\S+)$/m);
    cleanups.push(() => chain.stop());
    const chainUrl = chain.ready[1]!;
    const deployer = /^Deployer (0x[0-9a-fA-F]{40})$/m.exec(chain.output())![1] as Address;
    const manifest = readManifest(join(directory, `${CHAIN_ID}.json`));
    const usdc = manifest.tokens.find((token) => token.symbol === "USDC")!.address;
    const viemChain = { ...devnetChain, rpcUrls: { default: { http: [chainUrl] } } };
    const client = createPublicClient({ chain: viemChain, transport: http(chainUrl, { retryCount: 2, timeout: 60_000 }) }) as PublicClient;
    const rpc = (method: string, params: unknown[] = []) => client.request({ method: method as "eth_blockNumber", params: params as never });
    fleet.watch("chain", () => chain.child.pid, false);

    // --- Accounts: takers with USDC approved to Permit2, fresh signer keys for each relayer ------------
    const takers = Array.from({ length: settings.takers }, () => privateKeyToAccount(generatePrivateKey()));
    const signerKeys = [0, 1].map(() => [generatePrivateKey(), generatePrivateKey()]);
    log(`funding ${takers.length} takers and ${signerKeys.flat().length} relayer signers`);
    await mapLimit(signerKeys.flat(), 4, (key) => rpc("hardhat_setBalance", [privateKeyToAccount(key).address, toHex(parseEther("10000"))]));
    await mapLimit(takers, 4, (taker) => rpc("hardhat_setBalance", [taker.address, toHex(parseEther("1"))]));
    for (const taker of takers) {
      const hash = (await rpc("eth_sendTransaction", [{ from: deployer, to: usdc, data: encodeFunctionData({ abi: mintAbi, functionName: "mint", args: [taker.address, parseUnits("1000000", 6)] }) }])) as Hex;
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    }
    await mapLimit(takers, 4, async (taker) => {
      const wallet = createWalletClient({ account: taker, chain: viemChain, transport: http(chainUrl) });
      const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [manifest.contracts.permit2, maxUint256] });
      await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    });
    await rpc("evm_setAutomine", [false]);
    await rpc("evm_setIntervalMining", [settings.blockMs]);
    const firstBlock = await client.getBlockNumber();

    // --- PostgreSQL, the RPC gate, two relayers and two APIs --------------------------------------
    log("starting PostgreSQL");
    const postgres: EmbeddedPostgresServer = await startEmbeddedPostgres("soak");
    cleanups.push(() => postgres.stop());
    const databaseUrl = await postgres.createDatabase("soak");
    const postmasterPid = () => {
      const file = join(postgres.dataDirectory, "postmaster.pid");
      if (!existsSync(file)) return undefined;
      const pid = Number(readFileSync(file, "utf8").split("\n")[0]);
      return Number.isInteger(pid) && pid > 0 ? pid : undefined;
    };
    fleet.watch("postgres", postmasterPid, false);
    const gate: RpcGate = await startRpcGate(chainUrl);
    cleanups.push(() => gate.close());

    const token = randomBytes(24).toString("hex");
    const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;
    const relayerPorts = [await freePort(), await freePort()];
    const apiPorts = [await freePort(), await freePort()];
    const relayerUrls = relayerPorts.map((port) => `http://127.0.0.1:${port}`);
    cleanups.push(() => fleet.stopAll());
    log("starting two relayers and two APIs");
    for (const [index, port] of relayerPorts.entries()) {
      await fleet.start(`relayer-${index + 1}`, {
        entry: "relayer/main.ts",
        readyLine: /^Relayer on (\S+)$/m,
        env: {
          DATABASE_URL: databaseUrl,
          RELAYER_PRIVATE_KEYS: signerKeys[index]!.join(","),
          RELAYER_INTERNAL_TOKEN: token,
          RPC_URL: gate.url,
          CHAIN_ID: String(CHAIN_ID),
          DEPLOYMENTS_DIR: directory,
          RELAYER_PORT: String(port),
          RELAYER_LEASE_SECONDS: "10",
          RELAYER_LOG_LEVEL: "warn",
        },
      });
    }
    for (const [index, port] of apiPorts.entries()) {
      await fleet.start(`api-${index + 1}`, {
        entry: "api/main.ts",
        readyLine: /^Integrator API on (\S+)$/m,
        env: {
          DATABASE_URL: databaseUrl,
          API_PORT: String(port),
          RPC_URL: gate.url,
          CHAIN_ID: String(CHAIN_ID),
          DEPLOYMENTS_DIR: directory,
          // Each API lists both relayers, in another order.
          RELAYER_URL: (index === 0 ? relayerUrls : [...relayerUrls].reverse()).join(","),
          RELAYER_INTERNAL_TOKEN: token,
          RELAYER_FEE_RECIPIENT: feeRecipient,
          AUTO_APPROVE: "true",
          API_LOG_LEVEL: "warn",
          // Every client of the soak is 127.0.0.1: per-IP limits would count them all as one.
          SNAPSHOT_RATE_LIMIT_PER_MINUTE: "100000",
          ONBOARDING_RATE_LIMIT_PER_MINUTE: "100000",
          // The per-key limits stay on, above what the load (and its burst) asks of one key.
          DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: String(Math.ceil(600 * settings.rate)),
          DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: String(Math.ceil(120 * settings.rate)),
        },
      });
    }
    const apis = apiPorts.map((port) => `http://127.0.0.1:${port}`);

    const integrators: Integrator[] = [];
    for (let index = 0; index < settings.integrators; index++) {
      const slug = `soak-${process.pid}-${index}`;
      const onboarded = await onboardIntegrator({ baseUrl: apis[index % 2]!, account: privateKeyToAccount(generatePrivateKey()), application: { chain_id: CHAIN_ID, display_name: slug, slug, requested_max_fee_bps: 50 }, keyLabel: slug });
      if (onboarded.apiKey === undefined) throw new Error("an integrator was not approved at once; the soak's APIs run with AUTO_APPROVE=true");
      integrators.push({ key: onboarded.apiKey.secret, slug });
    }

    // --- The load, the faults and the memory readings -------------------------------------------
    const requests: RequestSample[] = [];
    const record = (sample: RequestSample) => void requests.push(sample);
    loadStart = Date.now();
    const httpClient = soakHttp(apis, now, record);
    const relays = soakRelays(httpClient, RELAY_SELL_USDC);
    const load = soakLoad({ http: httpClient, relays, integrators, takers, chainId: CHAIN_ID, now, record }, settings.rate);
    fleet.sample(0);
    const sampler = setInterval(() => fleet.sample(now()), settings.sampleMs);
    let reported = 0;
    const progress = setInterval(() => {
      const recent = requests.slice(reported);
      reported = requests.length;
      const latencies = recent.filter((sample) => sample.status !== 0).map((sample) => sample.ms).sort((a, b) => a - b);
      const errors = recent.filter((sample) => sample.status >= 500 || sample.status === 0).length;
      log(
        `${(now() / 60_000).toFixed(1)}/${settings.minutes} min: ${recent.length} requests (${errors} 5xx/unanswered), p50 ${percentile(latencies, 50).toFixed(0)} ms, p99 ${percentile(latencies, 99).toFixed(0)} ms, ${load.inFlight()} in flight; relays ${relays.accepted.length} accepted`,
      );
    }, Math.min(settings.windowMs, 60_000));
    const restart = async (name: string) => {
      // A restart can meet a port still held by the killed process's last connections: try again.
      for (let attempt = 0; ; attempt++) {
        try {
          await fleet.start(name);
          return;
        } catch (error) {
          if (attempt >= 5) throw error;
          log(`${name} failed to start (${errorSummary(error)}); again in 2 s`);
          await sleep(2000);
        }
      }
    };
    const faults: Promise<FaultRecord[]> = runFaults(
      plan,
      {
        killRelayer: () => fleet.kill("relayer-1"),
        restartRelayer: () => restart("relayer-1"),
        killApi: () => fleet.kill("api-1"),
        restartApi: () => restart("api-1"),
        haltPostgres: () => postgres.halt(),
        resumePostgres: () => postgres.resume(),
        cutRpc: () => gate.cut(),
        restoreRpc: () => gate.restore(),
        setLoadFactor: (factor) => load.setFactor(factor),
      },
      now,
      log,
      () => interrupted,
    );
    // Awaited after the load; until then a failed restart must not be an unhandled rejection.
    faults.catch(() => undefined);
    while (now() < settings.durationMs && !interrupted) await sleep(Math.min(1000, settings.durationMs - now()));
    const durationMs = Math.min(settings.durationMs, now());
    log("load over; waiting for requests in flight");
    await load.stop();
    const faultRecords = await faults;
    clearInterval(progress);

    // --- Drain and account ----------------------------------------------------------------------
    log(`draining ${relays.accepted.length} accepted relays (up to ${settings.drainSeconds} s)`);
    const finalRelays = await drainRelays(databaseUrl, relays.accepted, interrupted ? 0 : settings.drainSeconds * 1000, log);
    clearInterval(sampler);
    const settled = await settlementsByQuote(client, firstBlock);
    const figures = soakFigures({
      durationMs,
      windowMs: settings.windowMs,
      warmupMs: settings.warmupMs,
      requests,
      memory: fleet.samples.filter((sample) => sample.atMs <= durationMs),
      lives: fleet.lives,
      faults: faultRecords,
      relays: finalRelays,
      unaccepted: relays.unaccepted,
      settled,
    });
    mkdirSync(settings.outDir, { recursive: true });
    const jsonPath = join(settings.outDir, "soak.json");
    const chartPath = join(settings.outDir, "soak.svg");
    const title = `npm run soak: ${settings.minutes} min, 2 APIs + 2 relayers on one PostgreSQL, ${settings.blockMs}-ms blocks, SOAK_RATE=${settings.rate} (${new Date(loadStart).toISOString().slice(0, 16)}Z)`;
    writeFileSync(chartPath, soakChart({ title, durationMs, bucketMs: Math.max(2000, Math.round(settings.windowMs / 5)), requests, memory: fleet.samples.filter((sample) => sample.atMs <= durationMs), faults: faultRecords }));
    writeFileSync(
      jsonPath,
      `${JSON.stringify(
        {
          startedAt: new Date(loadStart).toISOString(),
          settings: { ...settings, outDir: shown(settings.outDir) },
          durationMs,
          shed: load.shed(),
          faults: faultRecords,
          ...figures,
          relays: { ...figures.relays },
          chart: shown(chartPath),
        },
        null,
        2,
      )}\n`,
    );
    process.stdout.write(soakReportText({ title, figures, faults: faultRecords, shed: load.shed(), chartPath: shown(chartPath), jsonPath: shown(jsonPath) }));
    return figures.goals.every((goal) => goal.pass) && !interrupted ? 0 : 1;
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`cleanup: ${error instanceof Error ? error.message : String(error)}`));
    rmSync(directory, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
