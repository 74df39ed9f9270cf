/**
 * `npm run bench:relayer`: the gasless relayer under an open-loop load, on a chain with interval
 * mining (1-second blocks). On each chain (`BENCH_CHAINS`, default hardhat,anvil), with batching on and
 * off (`BENCH_BATCHING`; off is `RELAYER_BATCH_MAX=1`), for each offered rate (`BENCH_RATES`, default
 * 10,50,100,200 relays/s) and each signer count (`BENCH_SIGNERS`, default 1,4), for
 * `BENCH_DURATION_SECONDS` (default 20):
 *
 * - a fresh relayer, `relayer/main.ts` in its own process as in production, with its own SQLite file
 *   and its own signer keys (fresh keys funded for the bench, used by nothing else);
 * - every case on a chain starts from the same chain state: the chain is set up once (takers funded,
 *   USDC minted, Permit2 approved), snapshotted, and reverted to that snapshot before each case, so pool
 *   prices, base fee, Permit2 nonce words and signer nonces are identical and cases are comparable
 *   (and one case's leftovers, such as a stuck transaction, cannot leak into the next);
 * - gasless quotes are fetched and signed before the timed window (quoting is not what is measured),
 *   then every relay is submitted through the real `POST /gasless/submit` at its scheduled time, without
 *   waiting for earlier responses;
 * - after the window, relays are followed with `GET /gasless/status` until final (or
 *   `BENCH_DRAIN_SECONDS`, default 30), and their receipts are read from the chain;
 * - the API's and the relayer's stage histograms (api_gasless_submit_stage_seconds,
 *   relayer_relay_stage_seconds) are read over the case: where a relay's time goes.
 *
 * The chains: the devnet's in-process Hardhat network, and Anvil (`@foundry-rs/anvil`, a native node),
 * both chain 4663 with the same contracts deployed by the same code (scripts/bench/relayerChain.ts,
 * scripts/bench/anvilChain.ts), so the second shows what the relayer does when the node is not the limit.
 * Processes: the chain, the relayer (one per case), and this one (the API in-process, reading the chain
 * over JSON-RPC like `npm run api`, plus the load generator). `--quick`: a short check that it works
 * (relayerBenchSettings.ts). Progress goes to stderr; the tables to stdout and `bench-results/relayer.json`.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createPublicClient, http, parseEther, parseUnits, toHex, type Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { devnetChain, onboardIntegrator } from "../../sdk";
import { readManifest } from "../../sdk/chain/manifest";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { loadRelayerConfig } from "../../relayer/config";
import { spawnService } from "../devnet/spawnService";
import { chainControls } from "./benchChainControls";
import { benchJson, breakdownTable, resultsTable, stagesTable } from "./relayerBenchReport";
import { mapLimit } from "./relayerStats";
import { freePort } from "../devnet/freePort";
import { runCase, type CaseResult } from "./relayerBenchCase";
import { fundTakers } from "./fundTakers";
import {
  BATCHING,
  BLOCK_MS,
  CHAIN_ID,
  CHAINS,
  DRAIN_SECONDS,
  DURATION_SECONDS,
  GOAL,
  GOAL_200,
  QUICK,
  RATES,
  RELAYER_ENTRY,
  ROOT,
  SELL_USDC,
  SIGNER_COUNTS,
  STAGE_RATES,
  TAKER_COUNT,
  env,
  log,
  type Batching,
  type ChainKind,
} from "./relayerBenchSettings";

type BenchCase = { batching: Batching; rate: number; signers: number };

/** Every case on one chain: the chain in its own process, the API in this one, then each case from the same snapshot. */
async function benchOnChain(kind: ChainKind, directory: string, cases: readonly BenchCase[]): Promise<{ results: CaseResult[]; blockGasLimit: bigint }> {
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    // --- The chain, in its own process -----------------------------------------------------------
    log(`${kind}: starting the chain (compile, deploy)`);
    const chainProcess = await spawnService("scripts/bench/relayerChain.ts", { DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory, BENCH_CHAIN: kind }, /^Chain on (\S+)$/m, {
      ...(env.BENCH_CHAIN_TRACE === "1" ? { echo: "chain" } : {}),
    });
    cleanups.push(() => chainProcess.stop());
    const rpcUrl = chainProcess.ready[1]!;
    const deployer = /^Deployer (0x[0-9a-fA-F]{40})$/m.exec(chainProcess.output())![1] as Address;
    const manifest = readManifest(join(directory, `${CHAIN_ID}.json`));
    const usdc = manifest.tokens.find((token) => token.symbol === "USDC")!.address;
    const permit2 = manifest.contracts.permit2;
    const chain = { ...devnetChain, rpcUrls: { default: { http: [rpcUrl] } } };
    const client = createPublicClient({ chain, transport: http(rpcUrl, { batch: { batchSize: 200 }, retryCount: 2, timeout: 60_000 }) });
    const rpc = (method: string, params: unknown[] = []): Promise<unknown> => client.request({ method: method as "eth_blockNumber", params: params as never });
    // A separate transport for the block watcher, so its polls never wait behind a batch.
    const watcherClient = createPublicClient({ chain, transport: http(rpcUrl, { retryCount: 0, timeout: 10_000 }) });
    const watcherRpc = (method: string, params: unknown[] = []): Promise<unknown> => watcherClient.request({ method: method as "eth_blockNumber", params: params as never });
    const controls = chainControls(kind, rpc);

    // --- The API, in this process ---------------------------------------------------------------
    const relayerPort = await freePort();
    const relayerToken = randomBytes(24).toString("hex");
    const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;
    const apiConfig = loadApiConfig({
      ...env,
      API_PORT: "0",
      METRICS_PORT: "0",
      API_DB_PATH: join(directory, "api.sqlite"),
      API_LOG_LEVEL: env.BENCH_API_LOG_LEVEL ?? "warn",
      AUTO_APPROVE: "true",
      CHAIN_ID: String(CHAIN_ID),
      RPC_URL: rpcUrl,
      DEPLOYMENTS_DIR: directory,
      RELAYER_URL: `http://127.0.0.1:${relayerPort}`,
      RELAYER_INTERNAL_TOKEN: relayerToken,
      RELAYER_FEE_RECIPIENT: feeRecipient,
      // The bench measures the relay path, not the per-key limits.
      DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: "100000000",
      DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: "100000000",
    });
    // Its log goes to stderr with the progress lines: stdout holds the tables only.
    const api = await startApi(apiConfig, pino({ name: "api", level: apiConfig.logLevel }, pino.destination(2)));
    cleanups.push(() => api.close());
    const apiUrl = api.url;
    const integrator = privateKeyToAccount(generatePrivateKey());
    const onboarded = await onboardIntegrator({
      baseUrl: apiUrl,
      account: integrator,
      application: { chain_id: CHAIN_ID, display_name: "Relayer Bench", slug: `relayer-bench-${integrator.address.slice(2, 10).toLowerCase()}`, requested_max_fee_bps: 50 },
      keyLabel: "bench",
    });
    if (onboarded.apiKey === undefined) throw new Error("the bench integrator was not approved at once; AUTO_APPROVE must be true");
    const auth = { authorization: `Bearer ${onboarded.apiKey.secret}` };

    // --- Accounts: takers (USDC + Permit2 approval) and a fresh set of signer keys per case --------
    const signerKeys = cases.map((benchCase) => Array.from({ length: benchCase.signers }, () => generatePrivateKey()));
    const takers = Array.from({ length: TAKER_COUNT }, () => privateKeyToAccount(generatePrivateKey()));
    log(`${kind}: funding ${signerKeys.flat().length} signer keys and ${takers.length} takers (USDC from the deployer, Permit2 approved once each)`);
    const perTaker = BigInt(Math.ceil((Math.max(...RATES) * DURATION_SECONDS) / TAKER_COUNT) + 1);
    const mintEach = SELL_USDC * perTaker * 10n + parseUnits("1000", 6);
    await mapLimit(signerKeys.flat(), 8, (key) => rpc("hardhat_setBalance", [privateKeyToAccount(key).address, toHex(parseEther("1000"))]));
    await fundTakers({ chain, rpcUrl, client, rpc, deployer, usdc, permit2, takers, usdcEach: mintEach });
    const blockGasLimit = (await client.getBlock({ blockTag: "latest" })).gasLimit;
    let snapshot = (await rpc("evm_snapshot")) as string;

    const results: CaseResult[] = [];
    for (const [index, benchCase] of cases.entries()) {
      if (index > 0) {
        if ((await rpc("evm_revert", [snapshot])) !== true) throw new Error("could not revert to the bench's starting snapshot");
        snapshot = (await rpc("evm_snapshot")) as string;
      }
      results.push(
        await runCase({
          ...benchCase,
          chain: kind,
          controls,
          apiMetricsUrl: `${api.metricsUrl!}/metrics`,
          keys: signerKeys[index]!,
          caseDir: join(directory, `case-${index}`),
          rpc,
          watcherRpc,
          client,
          apiUrl,
          auth,
          takers,
          relayerPort,
          relayerToken,
          rpcUrl,
          directory,
          blockGasLimit,
        }),
      );
    }
    return { results, blockGasLimit };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`cleanup: ${String(error)}`));
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const directory = mkdtempSync(join(tmpdir(), "bench-relayer-"));
  try {
    const cases = BATCHING.flatMap((batching) => RATES.flatMap((rate) => SIGNER_COUNTS.map((signers) => ({ batching, rate, signers }))));
    const effectiveRelayer = loadRelayerConfig({ ...env, RELAYER_INTERNAL_TOKEN: "bench-settings-only-0123456789", RELAYER_PRIVATE_KEYS: generatePrivateKey() });
    const settings = {
      chains: CHAINS,
      batching: BATCHING,
      durationSeconds: DURATION_SECONDS,
      rates: RATES,
      signerCounts: SIGNER_COUNTS,
      takers: TAKER_COUNT,
      blockMs: BLOCK_MS,
      drainSeconds: DRAIN_SECONDS,
      sellUsdc: Number(SELL_USDC) / 1e6,
      quick: QUICK,
      relayer: {
        maxPendingPerSigner: effectiveRelayer.maxPendingPerSigner,
        pollMs: effectiveRelayer.pollMs,
        confirmations: effectiveRelayer.confirmations,
        resubmitSeconds: effectiveRelayer.resubmitSeconds,
        priorityFeeGwei: Number(effectiveRelayer.priorityFeeWei) / 1e9,
        batchMaxWhenOn: env.RELAYER_BATCH_MAX ?? "the relayer's default",
      },
      blockGasLimit: {} as Record<string, number>,
      relayerEntry: RELAYER_ENTRY,
    };
    log(`settings ${JSON.stringify(settings)}; ${CHAINS.length * cases.length} cases`);

    const results: CaseResult[] = [];
    for (const kind of CHAINS) {
      const chainDirectory = join(directory, kind);
      mkdirSync(chainDirectory, { recursive: true });
      const onChain = await benchOnChain(kind, chainDirectory, cases);
      results.push(...onChain.results);
      settings.blockGasLimit[kind] = Number(onChain.blockGasLimit);
    }

    // --- Report ----------------------------------------------------------------------------------
    const relayerSettings = `RELAYER_MAX_PENDING_PER_SIGNER=${settings.relayer.maxPendingPerSigner}, RELAYER_POLL_MS=${settings.relayer.pollMs}, RELAYER_CONFIRMATIONS=${settings.relayer.confirmations}${RELAYER_ENTRY === "relayer/main.ts" ? "" : `; relayer ${RELAYER_ENTRY}`}`;
    const stages = stagesTable(results, STAGE_RATES);
    process.stdout.write(
      `\nGasless relayer under open-loop load (${DURATION_SECONDS} s per case, ${BLOCK_MS} ms interval mining on each chain, ${TAKER_COUNT} takers, ${settings.sellUsdc} USDC→WETH per relay; ${relayerSettings}${QUICK ? "; --quick: a check, not a measurement" : ""})\n\n` +
        `${resultsTable(results)}\n\n` +
        "batching: on is the relayer's RELAYER_BATCH_MAX (default 32), off is RELAYER_BATCH_MAX=1. relays/tx: landed relays per distinct swap transaction.\n" +
        "landed: relays confirmed with the relayer's own transaction, counted over the offered relays; landed/s over the span from the first to the last block holding one (plus one block).\n" +
        "blocks: the relay's block minus the head when it was submitted (1 = the next block). gas/swap: each transaction's gas shared among the relays it carried. ceiling: block gas limit ÷ gas per swap, per second at the block interval.\n" +
        `goal (issue 19), on each chain: at ${GOAL.rates.join("/s and ")}/s with ${GOAL.signers} signers, ≥ ${GOAL.withinTwoBlocks * 100} % mined within 2 blocks of submission and landed/offered ≥ ${GOAL.landedRatio}; ` +
        `(issue 34) the same at ${GOAL_200.rate}/s with ${GOAL_200.signers} signers on ${GOAL_200.chain === "anvil" ? "Anvil" : GOAL_200.chain}.\n\n` +
        `As the load generator saw it (submission → accepted by the API, → first broadcast, → mined, → confirmed by the relayer)\n\n${breakdownTable(results)}\n\n` +
        (stages === undefined
          ? `Where the time goes: no case at ${STAGE_RATES.join(" or ")}/s (BENCH_STAGE_RATES).\n\n`
          : `Where the time goes between submission and broadcast, at ${STAGE_RATES.join("/s and ")}/s (p50 / p99 ms per stage, from api_gasless_submit_stage_seconds and relayer_relay_stage_seconds over each case, interpolated in their buckets)\n\n${stages}\n\n`),
    );
    const out = join(ROOT, "bench-results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "relayer.json"), benchJson(startedAt, settings, results));
    process.stdout.write("written to bench-results/relayer.json\n");
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
