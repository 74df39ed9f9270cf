/** One case of `npm run bench:relayer`: a fresh relayer process under an open-loop load at one rate, on one chain, batching on or off. */
import { join } from "node:path";
import { createPublicClient, type Hex } from "viem";
import { type PrivateKeyAccount } from "viem/accounts";
import { isFinalRelayStatus, type RelayJson } from "../../sdk";
import { spawnService, type SpawnedService } from "../devnet/spawnService";
import { freePort } from "../devnet/freePort";
import type { ChainControls } from "./benchChainControls";
import { parseStageHistograms, subtractHistograms, summariseStages, type StageHistograms, type StageSummary } from "./stageHistogram";
import { relaysPerTransaction, gasPerRelay } from "./relayerBenchReport";
import { mapLimit, mean, percentile, sleep, summary } from "./relayerStats";
import { BlockWatcher } from "./blockWatcher";
import { signedGaslessQuotes } from "./signedGaslessQuotes";
import { BLOCK_MS, CHAIN_ID, DRAIN_SECONDS, DURATION_SECONDS, QUOTE_CONCURRENCY, RELAYER_ENTRY, SELL_USDC, SLIPPAGE_BPS, env, log, type Batching, type ChainKind } from "./relayerBenchSettings";
import { RELAYER_READY_WITH_METRICS } from "../../relayer/readyLines";

/** One scheduled submission and what became of it. */
type Submission = {
  quoteId: string;
  signature: Hex;
  dueMs: number;
  /** Epoch ms the POST was sent (comparable with the relayer's timestamps: same machine clock). */
  sentAt?: number;
  lagMs?: number;
  headAtSend?: bigint;
  httpStatus?: number;
  responseMs?: number;
  submitError?: string;
  submitErrorDetail?: string;
  relay?: RelayJson;
  minedBlock?: bigint;
  gasUsed?: bigint;
  receiptOk?: boolean;
  ours?: boolean;
};

export type CaseInput = {
  chain: ChainKind;
  batching: Batching;
  controls: ChainControls;
  /** The API's GET /metrics (it runs in the bench's process, across cases: its stage histograms are read before and after). */
  apiMetricsUrl: string;
  rate: number;
  signers: number;
  keys: Hex[];
  caseDir: string;
  rpc: (method: string, params?: unknown[]) => Promise<unknown>;
  watcherRpc: (method: string, params?: unknown[]) => Promise<unknown>;
  client: ReturnType<typeof createPublicClient>;
  apiUrl: string;
  auth: Record<string, string>;
  takers: PrivateKeyAccount[];
  relayerPort: number;
  relayerToken: string;
  rpcUrl: string;
  directory: string;
  blockGasLimit: bigint;
};

export type CaseResult = {
  chain: ChainKind;
  batching: Batching;
  rate: number;
  signers: number;
  offered: number;
  offeredPerSecond: number;
  accepted: number;
  non2xx: number;
  submitErrors: Record<string, number>;
  /** One message per error code, as the API gave it. */
  submitErrorSamples: Record<string, string>;
  landed: number;
  landedRatio: number;
  landedPerSecond: number;
  withinTwoBlocks: number;
  confirmMs: ReturnType<typeof summary>;
  minedMs: ReturnType<typeof summary>;
  broadcastMs: ReturnType<typeof summary>;
  minedToConfirmedMs: ReturnType<typeof summary>;
  blocks: ReturnType<typeof summary>;
  submitResponseMs: ReturnType<typeof summary>;
  sendLagMs: ReturnType<typeof summary>;
  /** Distinct swap transactions that carried the landed relays. */
  transactions: number;
  /** Landed relays per distinct swap transaction (1 without batching). */
  relaysPerTransaction: number | undefined;
  /** Gas of the landed relays' transactions, each shared evenly among the relays it carried, per relay. */
  gasPerSwap: number | undefined;
  gasPerSwapP50: number | undefined;
  ceilingPerSecond: number | undefined;
  bumped: number;
  statuses: Record<string, number>;
  reasons: Record<string, number>;
  blockIntervalMs: number | undefined;
  maxSwapsPerBlock: number;
  blocksSeen: number;
  quoteSeconds: number;
  relayerLog: Record<string, number>;
  /** Where the time goes: per-stage timings from the API's and the relayer's histograms over this case. */
  stages: { api: Record<string, StageSummary>; relayer: Record<string, StageSummary> };
};

export async function runCase(input: CaseInput): Promise<CaseResult> {
  const { rate, signers, client, apiUrl, auth, takers } = input;
  const label = `${input.chain}, batching ${input.batching}, ${rate}/s × ${signers} signer${signers === 1 ? "" : "s"}`;
  const count = Math.round(rate * DURATION_SECONDS);
  let relayer: SpawnedService | undefined;
  const watcher = new BlockWatcher(input.watcherRpc);
  try {
    // 1-second blocks with a real mempool.
    await input.controls.intervalMining(BLOCK_MS);
    const metricsPort = await freePort();
    log(`${label}: starting a fresh relayer (${signers} new signer key${signers === 1 ? "" : "s"}, its own SQLite file)`);
    relayer = await spawnService(
      RELAYER_ENTRY,
      {
        RELAYER_PRIVATE_KEYS: input.keys.join(","),
        RELAYER_INTERNAL_TOKEN: input.relayerToken,
        RELAYER_HOST: "127.0.0.1",
        RELAYER_PORT: String(input.relayerPort),
        RELAYER_DB_PATH: join(input.caseDir, "relayer.sqlite"),
        RELAYER_LOG_LEVEL: env.BENCH_RELAYER_LOG_LEVEL ?? "warn",
        RPC_URL: input.rpcUrl,
        CHAIN_ID: String(CHAIN_ID),
        DEPLOYMENTS_DIR: input.directory,
        RELAYER_METRICS_PORT: String(metricsPort),
        // Off: one order a transaction. On: the relayer's default (or RELAYER_BATCH_MAX from the environment).
        ...(input.batching === "off" ? { RELAYER_BATCH_MAX: "1" } : {}),
      },
      RELAYER_READY_WITH_METRICS,
    );

    // Quotes and signatures before the timed window: quoting is not what this measures.
    const quoteStart = Date.now();
    const signed = await signedGaslessQuotes({
      apiUrl,
      auth,
      chainId: CHAIN_ID,
      takers,
      count,
      sellUsdc: SELL_USDC,
      slippageBps: SLIPPAGE_BPS,
      concurrency: QUOTE_CONCURRENCY,
      progress: (quoted) => {
        if (quoted % 500 === 0) log(`${label}: ${quoted}/${count} quotes signed`);
      },
    });
    const submissions: Submission[] = signed.map(({ quoteId, signature }, index) => ({ quoteId, signature, dueMs: (index * 1000) / rate }));
    const quoteSeconds = (Date.now() - quoteStart) / 1000;
    log(`${label}: ${count} gasless quotes fetched and signed in ${quoteSeconds.toFixed(1)} s; submitting at ${rate}/s for ${DURATION_SECONDS} s`);

    // Open loop: each submission at its time, whatever happened to the earlier ones.
    const apiStagesBefore = await scrapeStages(input.apiMetricsUrl, API_STAGE_METRIC);
    await watcher.start();
    const startBlock = watcher.head;
    const t0 = performance.now() + 100;
    const epoch0 = Date.now() + 100;
    const inFlight: Promise<void>[] = [];
    const submit = async (submission: Submission) => {
      const sentPerf = performance.now();
      submission.sentAt = epoch0 + (sentPerf - t0);
      submission.lagMs = sentPerf - t0 - submission.dueMs;
      submission.headAtSend = watcher.head;
      try {
        const response = await fetch(`${apiUrl}/gasless/submit`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ quote_id: submission.quoteId, signature: submission.signature }),
          signal: AbortSignal.timeout(60_000),
        });
        submission.httpStatus = response.status;
        const body = (await response.json()) as RelayJson & { code?: string; error?: string };
        submission.responseMs = performance.now() - sentPerf;
        if (response.status === 202 || response.status === 200) submission.relay = body;
        else {
          submission.submitError = body.code ?? String(response.status);
          submission.submitErrorDetail = body.error;
        }
      } catch (error) {
        // fetch's TypeError ("fetch failed") carries the socket error as its cause.
        submission.submitError = error instanceof Error ? error.name : "error";
        const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
        submission.submitErrorDetail = error instanceof Error ? `${error.message}${cause === undefined ? "" : `: ${cause.code ?? ""} ${cause.message ?? ""}`}` : String(error);
      }
    };
    let next = 0;
    let lastProgress = performance.now();
    while (next < submissions.length) {
      const elapsed = performance.now() - t0;
      while (next < submissions.length && submissions[next]!.dueMs <= elapsed) inFlight.push(submit(submissions[next++]!));
      if (performance.now() - lastProgress >= 5000) {
        lastProgress = performance.now();
        const answered = submissions.filter((submission) => submission.httpStatus !== undefined || submission.submitError !== undefined).length;
        log(`${label}: ${next}/${count} submitted, ${answered} answered, head ${watcher.head - startBlock} blocks in`);
      }
      if (next < submissions.length) await sleep(Math.max(0, Math.min(20, submissions[next]!.dueMs - (performance.now() - t0))));
    }
    const windowEnd = Date.now();
    await Promise.all(inFlight);
    const accepted = submissions.filter((submission) => submission.relay !== undefined);
    log(`${label}: all ${count} submitted; ${accepted.length} accepted; following them until final (at most ${DRAIN_SECONDS} s after the window)`);

    // Follow every accepted relay until it is final, or the drain time (from the window's end, or from
    // the last answer when answers trailed it) is up; every open relay is read at least once.
    const deadline = Math.max(windowEnd, Date.now()) + DRAIN_SECONDS * 1000;
    for (;;) {
      const open = accepted.filter((submission) => !isFinalRelayStatus(submission.relay!.status));
      if (open.length === 0) break;
      await mapLimit(open, 16, async (submission) => {
        const response = await fetch(`${apiUrl}/gasless/status/${submission.relay!.relay_id}`, { headers: auth });
        if (response.status === 200) submission.relay = (await response.json()) as RelayJson;
      });
      const stillOpen = accepted.filter((submission) => !isFinalRelayStatus(submission.relay!.status)).length;
      if (stillOpen === 0 || Date.now() >= deadline) break;
      log(`${label}: ${accepted.length - stillOpen}/${accepted.length} final, head ${watcher.head - startBlock} blocks in`);
      await sleep(2000);
    }
    await watcher.stop();
    const endBlock = watcher.head;
    const apiStages = subtractHistograms(await scrapeStages(input.apiMetricsUrl, API_STAGE_METRIC), apiStagesBefore);
    const relayerStages = await scrapeStages(`${relayer.ready[2]!}/metrics`, RELAYER_STAGE_METRIC);

    // Receipts of every confirmed relay: its block and gas, and that it was the relayer's transaction.
    const confirmed = accepted.filter((submission) => submission.relay!.status === "confirmed" && submission.relay!.tx_hash !== null);
    await mapLimit(confirmed, 32, async (submission) => {
      const relay = submission.relay!;
      const receipt = await client.getTransactionReceipt({ hash: relay.tx_hash! });
      submission.minedBlock = receipt.blockNumber;
      submission.gasUsed = receipt.gasUsed;
      submission.receiptOk = receipt.status === "success";
      // Any transaction of the relay's own but a cancel: a single swap, or a batch that carried it.
      submission.ours = relay.transactions.some((transaction) => transaction.hash.toLowerCase() === receipt.transactionHash.toLowerCase() && transaction.kind !== "cancel");
    });
    const landed = confirmed.filter((submission) => submission.receiptOk === true && submission.ours === true);

    // Blocks of the case: how full they were and how regular the interval was.
    const blockNumbers: bigint[] = [];
    for (let block = startBlock + 1n; block <= endBlock; block++) blockNumbers.push(block);
    const blocks = await mapLimit(blockNumbers, 16, (blockNumber) => client.getBlock({ blockNumber }));
    const swapsPerBlock = new Map<bigint, number>();
    for (const submission of landed) swapsPerBlock.set(submission.minedBlock!, (swapsPerBlock.get(submission.minedBlock!) ?? 0) + 1);
    const intervals = blocks.slice(1).map((block, index) => Number(block.timestamp - blocks[index]!.timestamp) * 1000);
    const seen = blockNumbers.map((block) => watcher.firstSeen.get(block)).filter((at): at is number => at !== undefined);
    const seenIntervals = seen.slice(1).map((at, index) => at - seen[index]!);

    const landedBlocks = landed.map((submission) => submission.minedBlock!);
    const firstLanded = landedBlocks.length === 0 ? undefined : landedBlocks.reduce((a, b) => (a < b ? a : b));
    const lastLanded = landedBlocks.length === 0 ? undefined : landedBlocks.reduce((a, b) => (a > b ? a : b));
    const spanMs =
      firstLanded === undefined || lastLanded === undefined
        ? undefined
        : (watcher.firstSeen.get(lastLanded) ?? 0) - (watcher.firstSeen.get(firstLanded) ?? 0) + BLOCK_MS;
    const blocksOf = (submission: Submission) => Number(submission.minedBlock! - submission.headAtSend!);
    const carried = landed.map((submission) => ({ hash: submission.relay!.tx_hash!, gasUsed: submission.gasUsed! }));
    const gas = gasPerRelay(carried);
    const gasPerSwap = mean(gas);
    const sentTimes = submissions.map((submission) => submission.sentAt!).filter((at) => at !== undefined);
    const sendSpan = (Math.max(...sentTimes) - Math.min(...sentTimes)) / 1000;
    const countBy = (values: string[]) => values.reduce<Record<string, number>>((counts, value) => ({ ...counts, [value]: (counts[value] ?? 0) + 1 }), {});

    // The relayer's warnings and errors (it runs at warn), counted by message.
    const relayerLog: Record<string, number> = {};
    for (const line of relayer.output().split("\n")) {
      if (!line.startsWith("{")) continue;
      try {
        const entry = JSON.parse(line) as { msg?: string; level?: number };
        const key = `${entry.level === 40 ? "warn" : entry.level === 50 ? "error" : String(entry.level)}: ${entry.msg ?? ""}`;
        relayerLog[key] = (relayerLog[key] ?? 0) + 1;
      } catch {
        // Not a log line.
      }
    }

    const result: CaseResult = {
      chain: input.chain,
      batching: input.batching,
      rate,
      signers,
      offered: count,
      offeredPerSecond: count > 1 && sendSpan > 0 ? (count - 1) / sendSpan : rate,
      accepted: accepted.length,
      non2xx: submissions.filter((submission) => submission.relay === undefined).length,
      submitErrorSamples: Object.fromEntries(submissions.filter((submission) => submission.submitError !== undefined).map((submission) => [submission.submitError!, submission.submitErrorDetail ?? ""])),
      submitErrors: countBy(submissions.filter((submission) => submission.submitError !== undefined).map((submission) => submission.submitError!)),
      landed: landed.length,
      landedRatio: landed.length / count,
      landedPerSecond: spanMs === undefined ? 0 : landed.length / (spanMs / 1000),
      withinTwoBlocks: landed.filter((submission) => blocksOf(submission) <= 2).length / count,
      confirmMs: summary(landed.map((submission) => Date.parse(submission.relay!.updated_at) - submission.sentAt!)),
      minedMs: summary(landed.map((submission) => (watcher.firstSeen.get(submission.minedBlock!) ?? NaN) - submission.sentAt!).filter(Number.isFinite)),
      broadcastMs: summary(
        accepted
          .filter((submission) => submission.relay!.transactions.length > 0)
          .map((submission) => Math.min(...submission.relay!.transactions.map((transaction) => Date.parse(transaction.sent_at))) - submission.sentAt!),
      ),
      minedToConfirmedMs: summary(
        landed.map((submission) => Date.parse(submission.relay!.updated_at) - (watcher.firstSeen.get(submission.minedBlock!) ?? NaN)).filter(Number.isFinite),
      ),
      blocks: summary(landed.map(blocksOf)),
      submitResponseMs: summary(submissions.filter((submission) => submission.responseMs !== undefined).map((submission) => submission.responseMs!)),
      sendLagMs: summary(submissions.map((submission) => submission.lagMs ?? 0)),
      transactions: new Set(carried.map((relay) => relay.hash.toLowerCase())).size,
      relaysPerTransaction: relaysPerTransaction(carried.map((relay) => relay.hash)),
      gasPerSwap,
      gasPerSwapP50: percentile(gas, 50),
      ceilingPerSecond: gasPerSwap === undefined ? undefined : Number(input.blockGasLimit) / gasPerSwap / (BLOCK_MS / 1000),
      bumped: accepted.filter((submission) => submission.relay!.transactions.length > 1).length,
      statuses: countBy(accepted.map((submission) => submission.relay!.status)),
      reasons: countBy(accepted.filter((submission) => submission.relay!.reason !== null).map((submission) => submission.relay!.reason!)),
      blockIntervalMs: mean(seenIntervals.length > 0 ? seenIntervals : intervals),
      maxSwapsPerBlock: Math.max(0, ...swapsPerBlock.values()),
      blocksSeen: blockNumbers.length,
      quoteSeconds,
      relayerLog,
      stages: { api: summariseStages(apiStages), relayer: summariseStages(relayerStages) },
    };
    log(
      `${label}: landed ${result.landed}/${count} in ${result.transactions} transactions, ${result.landedPerSecond.toFixed(1)}/s, ≤2 blocks ${(result.withinTwoBlocks * 100).toFixed(1)} %, ` +
        `confirm p50 ${result.confirmMs.p50 ?? "n/a"} ms p99 ${result.confirmMs.p99 ?? "n/a"} ms, statuses ${JSON.stringify(result.statuses)}` +
        (Object.keys(result.submitErrors).length > 0 ? `, submit errors ${JSON.stringify(result.submitErrors)}` : "") +
        (Object.keys(relayerLog).length > 0 ? `, relayer log ${JSON.stringify(relayerLog)}` : ""),
    );
    return result;
  } finally {
    await watcher.stop();
    if (relayer !== undefined) {
      // SIGTERM lets it finish in-flight broadcasts; a relayer stuck behind a saturated node gets SIGKILL.
      const running = relayer;
      const code = await Promise.race([running.stop(), sleep(20_000).then(() => running.stop("SIGKILL"))]);
      if (code !== 0 && code !== null) log(`${label}: the relayer exited with ${code}:\n${running.output().slice(-4000)}`);
    }
    await input.controls.automine();
    const dropped = await input.controls.clearMempool();
    if (dropped > 0) log(`${label}: dropped ${dropped} transactions still pending in the node's mempool`);
  }
}

const API_STAGE_METRIC = "api_gasless_submit_stage_seconds";
const RELAYER_STAGE_METRIC = "relayer_relay_stage_seconds";

/** A stage histogram from a GET /metrics; empty when the endpoint cannot be read (the table then says n/a). */
async function scrapeStages(url: string, metric: string): Promise<StageHistograms> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    return parseStageHistograms(await response.text(), metric);
  } catch (error) {
    log(`could not read ${metric} from ${url}: ${String(error)}`);
    return {};
  }
}
