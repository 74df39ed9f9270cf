/**
 * `npm run bench:relayer`: the gasless relayer under an open-loop load, on a devnet with interval
 * mining (1-second blocks). For each offered rate (`BENCH_RATES`, default 10,50,100 relays/s) and each
 * signer count (`BENCH_SIGNERS`, default 1,4), for `BENCH_DURATION_SECONDS` (default 20):
 *
 * - a fresh relayer, `relayer/main.ts` in its own process as in production, with its own SQLite file
 *   and its own signer keys (fresh keys funded for the bench, used by nothing else);
 * - every case starts from the same chain state: the chain is set up once (takers funded, USDC
 *   minted, Permit2 approved), snapshotted, and reverted to that snapshot before each case, so pool
 *   prices, base fee, Permit2 nonce words and signer nonces are identical and cases are comparable
 *   (and one case's leftovers, such as a stuck transaction, cannot leak into the next);
 * - gasless quotes are fetched and signed before the timed window (quoting is not what is measured),
 *   then every relay is submitted through the real `POST /gasless/submit` at its scheduled time, without
 *   waiting for earlier responses;
 * - after the window, relays are followed with `GET /gasless/status` until final (or
 *   `BENCH_DRAIN_SECONDS`, default 30), and their receipts are read from the chain.
 *
 * Processes: the chain (scripts/bench/relayerChain.ts), the relayer (one per case), and this one (the
 * API in-process, reading the chain over JSON-RPC like `npm run api`, plus the load generator). Progress
 * goes to stderr; the table to stdout and `bench-results/relayer.json`.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createPublicClient, createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseEther, parseUnits, toHex, type Address, type Hex, type TypedDataDefinition } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { devnetChain, onboardIntegrator } from "../../sdk";
import { readManifest } from "../../sdk/chain/manifest";
import { loadApiConfig } from "../../api/config";
import { startApi } from "../../api/startApi";
import { loadRelayerConfig } from "../../relayer/config";
import { spawnService, type SpawnedService } from "../devnet/spawnService";
import { formatTable } from "./printTable";
import { mapLimit, mean, percentile, sleep, summary } from "./relayerStats";

const ROOT = join(__dirname, "..", "..");
const env = process.env;
const DURATION_SECONDS = Number(env.BENCH_DURATION_SECONDS ?? 20);
const RATES = (env.BENCH_RATES ?? "10,50,100").split(",").map((rate) => Number(rate.trim()));
const SIGNER_COUNTS = (env.BENCH_SIGNERS ?? "1,4").split(",").map((count) => Number(count.trim()));
const TAKER_COUNT = Number(env.BENCH_TAKERS ?? 200);
const DRAIN_SECONDS = Number(env.BENCH_DRAIN_SECONDS ?? 30);
const BLOCK_MS = Number(env.BENCH_BLOCK_MS ?? 1000);
const QUOTE_CONCURRENCY = Number(env.BENCH_QUOTE_CONCURRENCY ?? 8);
/** Each relay sells this much USDC for WETH: small against the 3M-a-side pool, so 2,000 swaps in one direction stay inside the slippage. */
const SELL_USDC = parseUnits(env.BENCH_SELL_USDC ?? "10", 6);
const SLIPPAGE_BPS = 300;
/** The goal of the issue: at 50/s with 4 signers. */
const GOAL = { rate: 50, signers: 4, withinTwoBlocks: 0.95, landedRatio: 0.95 };
const FINAL = new Set(["confirmed", "failed", "expired", "rejected"]);
const CHAIN_ID = devnetChain.id;
/** The relayer's entry point; another one (a patched copy) can be measured against the same load. */
const RELAYER_ENTRY = env.BENCH_RELAYER_ENTRY ?? "relayer/main.ts";

const log = (message: string) => process.stderr.write(`[bench:relayer ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

for (const [name, values] of [["BENCH_RATES", RATES], ["BENCH_SIGNERS", SIGNER_COUNTS], ["BENCH_DURATION_SECONDS", [DURATION_SECONDS]], ["BENCH_TAKERS", [TAKER_COUNT]]] as const) {
  if (values.some((value) => !Number.isFinite(value) || value <= 0)) throw new Error(`invalid ${name}: positive numbers expected`);
}

type QuoteJson = {
  quote_id: string;
  permit2: TypedDataDefinition & { types: Record<string, unknown> };
  relayer_fee?: { amount: string };
  issues: { allowance: unknown; balance: unknown };
};

type RelayJson = {
  relay_id: string;
  status: string;
  tx_hash: Hex | null;
  reason: string | null;
  error: string | null;
  transactions: { hash: Hex; kind: string; signer: string; nonce: number; sent_at: string; mined: boolean }[];
  created_at: string;
  updated_at: string;
};

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

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Records the head as the bench sees it and the wall-clock time each block was first seen. */
class BlockWatcher {
  head = 0n;
  readonly firstSeen = new Map<bigint, number>();
  #running = false;
  #loop: Promise<void> | undefined;

  constructor(private readonly rpc: (method: string, params?: unknown[]) => Promise<unknown>) {}

  async start(): Promise<void> {
    this.head = BigInt((await this.rpc("eth_blockNumber")) as string);
    this.firstSeen.set(this.head, Date.now());
    this.#running = true;
    this.#loop = (async () => {
      while (this.#running) {
        try {
          const head = BigInt((await this.rpc("eth_blockNumber")) as string);
          const now = Date.now();
          for (let block = this.head + 1n; block <= head; block++) this.firstSeen.set(block, now);
          if (head > this.head) this.head = head;
        } catch {
          // The chain is busy or briefly unreachable; the next poll catches up.
        }
        await sleep(50);
      }
    })();
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const directory = mkdtempSync(join(tmpdir(), "bench-relayer-"));
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    // --- The chain, in its own process -----------------------------------------------------------
    log("starting the chain (compile, deploy)");
    const chainProcess = await spawnService("scripts/bench/relayerChain.ts", { DEVNET_PORT: "0", DEPLOYMENTS_DIR: directory }, /^Chain on (\S+)$/m, {
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

    // --- The API, in this process ---------------------------------------------------------------
    const relayerPort = await freePort();
    const relayerToken = randomBytes(24).toString("hex");
    const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;
    const apiConfig = loadApiConfig({
      ...env,
      API_PORT: "0",
      API_DB_PATH: join(directory, "api.sqlite"),
      API_LOG_LEVEL: env.BENCH_API_LOG_LEVEL ?? "warn",
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
    const api = await startApi(apiConfig, pino({ name: "api", level: apiConfig.logLevel }));
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
    const cases = RATES.flatMap((rate) => SIGNER_COUNTS.map((signers) => ({ rate, signers })));
    const signerKeys = cases.map((benchCase) => Array.from({ length: benchCase.signers }, () => generatePrivateKey()));
    const takers = Array.from({ length: TAKER_COUNT }, () => privateKeyToAccount(generatePrivateKey()));
    log(`funding ${signerKeys.flat().length} signer keys and ${takers.length} takers (USDC from the deployer, Permit2 approved once each)`);
    const perTaker = BigInt(Math.ceil((Math.max(...RATES) * DURATION_SECONDS) / TAKER_COUNT) + 1);
    const mintEach = SELL_USDC * perTaker * 10n + parseUnits("1000", 6);
    await mapLimit(signerKeys.flat(), 8, (key) => rpc("hardhat_setBalance", [privateKeyToAccount(key).address, toHex(parseEther("1000"))]));
    await mapLimit(takers, 8, (taker) => rpc("hardhat_setBalance", [taker.address, toHex(parseEther("1"))]));
    await mapLimit(takers, 8, (taker) =>
      rpc("eth_sendTransaction", [{ from: deployer, to: usdc, data: encodeFunctionData({ abi: [mintAbi], functionName: "mint", args: [taker.address, mintEach] }) }]),
    );
    await mapLimit(takers, 8, async (taker) => {
      const wallet = createWalletClient({ account: taker, chain, transport: http(rpcUrl) });
      const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [permit2, maxUint256] });
      const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== "success") throw new Error(`approve of ${taker.address} reverted`);
    });
    const blockGasLimit = (await client.getBlock({ blockTag: "latest" })).gasLimit;
    let snapshot = (await rpc("evm_snapshot")) as string;

    const effectiveRelayer = loadRelayerConfig({ ...env, RELAYER_INTERNAL_TOKEN: relayerToken, RELAYER_PRIVATE_KEYS: signerKeys[0]!.join(",") });
    const settings = {
      durationSeconds: DURATION_SECONDS,
      rates: RATES,
      signerCounts: SIGNER_COUNTS,
      takers: TAKER_COUNT,
      blockMs: BLOCK_MS,
      drainSeconds: DRAIN_SECONDS,
      sellUsdc: Number(SELL_USDC) / 1e6,
      relayer: {
        maxPendingPerSigner: effectiveRelayer.maxPendingPerSigner,
        pollMs: effectiveRelayer.pollMs,
        confirmations: effectiveRelayer.confirmations,
        resubmitSeconds: effectiveRelayer.resubmitSeconds,
        priorityFeeGwei: Number(effectiveRelayer.priorityFeeWei) / 1e9,
      },
      blockGasLimit: Number(blockGasLimit),
      relayerEntry: RELAYER_ENTRY,
    };
    log(`settings ${JSON.stringify(settings)}`);

    const results: CaseResult[] = [];
    for (const [index, benchCase] of cases.entries()) {
      if (index > 0) {
        if ((await rpc("evm_revert", [snapshot])) !== true) throw new Error("could not revert to the bench's starting snapshot");
        snapshot = (await rpc("evm_snapshot")) as string;
      }
      results.push(
        await runCase({ ...benchCase, keys: signerKeys[index]!, caseDir: join(directory, `case-${index}`), rpc, watcherRpc, client, apiUrl, auth, takers, relayerPort, relayerToken, rpcUrl, directory, blockGasLimit }),
      );
    }

    // --- Report ----------------------------------------------------------------------------------
    const fmt = (value: number | undefined, digits = 0) => (value === undefined || !Number.isFinite(value) ? "n/a" : value.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits }));
    const pct = (value: number) => `${(value * 100).toFixed(1)} %`;
    const goalOf = (result: CaseResult) => {
      if (result.rate !== GOAL.rate || result.signers !== GOAL.signers) return "";
      const met = result.withinTwoBlocks >= GOAL.withinTwoBlocks && result.landedRatio >= GOAL.landedRatio;
      return `≤2 blk ≥ 95 %, landed ≥ 0.95: ${met ? "met" : "MISSED"}`;
    };
    const rows = results.map((result) => [
      `${result.rate}/s × ${result.signers}`,
      fmt(result.offeredPerSecond, 1),
      fmt(result.landedPerSecond, 1),
      result.landedRatio.toFixed(3),
      fmt(result.confirmMs.p50),
      fmt(result.confirmMs.p99),
      fmt(result.blocks.p50),
      fmt(result.blocks.p99),
      pct(result.withinTwoBlocks),
      fmt(result.gasPerSwap),
      fmt(result.ceilingPerSecond),
      goalOf(result),
    ]);
    const table = formatTable(
      ["rate × signers", "offered/s", "landed/s", "landed/offered", "confirm p50 ms", "p99 ms", "p50 blocks", "p99 blocks", "mined ≤2 blocks", "gas/swap", "ceiling/s", "goal"],
      rows,
    );
    const breakdown = formatTable(
      ["rate × signers", "submit HTTP p50/p99 ms", "non-2xx", "→broadcast p50/p99 ms", "→mined p50/p99 ms", "mined→confirmed p50 ms", "bumped", "final statuses", "block interval ms", "max swaps/block", "send lag max ms"],
      results.map((result) => [
        `${result.rate}/s × ${result.signers}`,
        `${fmt(result.submitResponseMs.p50)} / ${fmt(result.submitResponseMs.p99)}`,
        String(result.non2xx),
        `${fmt(result.broadcastMs.p50)} / ${fmt(result.broadcastMs.p99)}`,
        `${fmt(result.minedMs.p50)} / ${fmt(result.minedMs.p99)}`,
        fmt(result.minedToConfirmedMs.p50),
        String(result.bumped),
        Object.entries(result.statuses).map(([status, count]) => `${status} ${count}`).join(", "),
        fmt(result.blockIntervalMs),
        String(result.maxSwapsPerBlock),
        fmt(result.sendLagMs.max),
      ]),
    );
    const relayerSettings = `RELAYER_MAX_PENDING_PER_SIGNER=${settings.relayer.maxPendingPerSigner}, RELAYER_POLL_MS=${settings.relayer.pollMs}, RELAYER_CONFIRMATIONS=${settings.relayer.confirmations}${RELAYER_ENTRY === "relayer/main.ts" ? "" : `; relayer ${RELAYER_ENTRY}`}`;
    process.stdout.write(
      `\nGasless relayer under open-loop load (${DURATION_SECONDS} s per case, ${BLOCK_MS} ms interval mining, ${TAKER_COUNT} takers, ${settings.sellUsdc} USDC→WETH per relay; ${relayerSettings})\n\n` +
        `${table}\n\n` +
        "landed: relays confirmed with the relayer's own transaction, counted over the offered relays; landed/s over the span from the first to the last block holding one (plus one block).\n" +
        "blocks: the relay's block minus the head when it was submitted (1 = the next block). ceiling: block gas limit ÷ gas per swap, per second at 1-s blocks.\n" +
        `goal (issue 8): at ${GOAL.rate}/s with ${GOAL.signers} signers, ≥ ${GOAL.withinTwoBlocks * 100} % mined within 2 blocks of submission and landed/offered ≥ ${GOAL.landedRatio}.\n\n` +
        `Where the time goes (submission → accepted by the API, → first broadcast, → mined, → confirmed by the relayer)\n\n${breakdown}\n\n`,
    );
    const out = join(ROOT, "bench-results");
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, "relayer.json"), `${JSON.stringify({ measuredAt: startedAt.toISOString(), settings, goal: GOAL, results }, null, 2)}\n`);
    process.stdout.write("written to bench-results/relayer.json\n");
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => log(`cleanup: ${String(error)}`));
    rmSync(directory, { recursive: true, force: true });
  }
}

const mintAbi = {
  type: "function",
  name: "mint",
  stateMutability: "nonpayable",
  inputs: [
    { name: "to", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  outputs: [],
} as const;

/** Drops whatever the node still holds in its mempool (a case's unmined transactions), so no case inherits another's. */
async function clearMempool(rpc: (method: string, params?: unknown[]) => Promise<unknown>): Promise<number> {
  let dropped = 0;
  for (;;) {
    const pending = (await rpc("eth_getBlockByNumber", ["pending", false])) as { transactions: Hex[] } | null;
    const hashes = pending?.transactions ?? [];
    if (hashes.length === 0) return dropped;
    for (const hash of hashes) if ((await rpc("hardhat_dropTransaction", [hash])) === true) dropped++;
  }
}

type CaseInput = {
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

type CaseResult = {
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
};

async function runCase(input: CaseInput): Promise<CaseResult> {
  const { rate, signers, rpc, client, apiUrl, auth, takers } = input;
  const label = `${rate}/s × ${signers} signer${signers === 1 ? "" : "s"}`;
  const count = Math.round(rate * DURATION_SECONDS);
  let relayer: SpawnedService | undefined;
  const watcher = new BlockWatcher(input.watcherRpc);
  try {
    // 1-second blocks with a real mempool.
    await rpc("evm_setAutomine", [false]);
    await rpc("evm_setIntervalMining", [BLOCK_MS]);
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
      },
      /^Relayer on (\S+)$/m,
    );

    // Quotes and signatures before the timed window: quoting is not what this measures.
    const quoteStart = Date.now();
    let quoted = 0;
    const submissions: Submission[] = await mapLimit(
      Array.from({ length: count }, (_, index) => index),
      QUOTE_CONCURRENCY,
      async (index) => {
        const taker = takers[index % takers.length]!;
        const query = new URLSearchParams({
          chain_id: String(CHAIN_ID),
          sell_token: "USDC",
          buy_token: "WETH",
          sell_amount: SELL_USDC.toString(),
          taker: taker.address,
          permit2_owner: taker.address,
          slippage_bps: String(SLIPPAGE_BPS),
        });
        const response = await fetch(`${apiUrl}/quote?${query}`, { headers: auth });
        if (response.status !== 200) throw new Error(`gasless quote: ${response.status} ${await response.text()}`);
        const quote = (await response.json()) as QuoteJson;
        if (quote.issues.allowance !== null || quote.issues.balance !== null) throw new Error(`taker ${taker.address} is not ready: ${JSON.stringify(quote.issues)}`);
        const { EIP712Domain: _domain, ...types } = quote.permit2.types;
        const signature = await taker.signTypedData({ ...quote.permit2, types } as TypedDataDefinition);
        if (++quoted % 500 === 0) log(`${label}: ${quoted}/${count} quotes signed`);
        return { quoteId: quote.quote_id, signature, dueMs: (index * 1000) / rate };
      },
    );
    const quoteSeconds = (Date.now() - quoteStart) / 1000;
    log(`${label}: ${count} gasless quotes fetched and signed in ${quoteSeconds.toFixed(1)} s; submitting at ${rate}/s for ${DURATION_SECONDS} s`);

    // Open loop: each submission at its time, whatever happened to the earlier ones.
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
      const open = accepted.filter((submission) => !FINAL.has(submission.relay!.status));
      if (open.length === 0) break;
      await mapLimit(open, 16, async (submission) => {
        const response = await fetch(`${apiUrl}/gasless/status/${submission.relay!.relay_id}`, { headers: auth });
        if (response.status === 200) submission.relay = (await response.json()) as RelayJson;
      });
      const stillOpen = accepted.filter((submission) => !FINAL.has(submission.relay!.status)).length;
      if (stillOpen === 0 || Date.now() >= deadline) break;
      log(`${label}: ${accepted.length - stillOpen}/${accepted.length} final, head ${watcher.head - startBlock} blocks in`);
      await sleep(2000);
    }
    await watcher.stop();
    const endBlock = watcher.head;

    // Receipts of every confirmed relay: its block and gas, and that it was the relayer's transaction.
    const confirmed = accepted.filter((submission) => submission.relay!.status === "confirmed" && submission.relay!.tx_hash !== null);
    await mapLimit(confirmed, 32, async (submission) => {
      const relay = submission.relay!;
      const receipt = await client.getTransactionReceipt({ hash: relay.tx_hash! });
      submission.minedBlock = receipt.blockNumber;
      submission.gasUsed = receipt.gasUsed;
      submission.receiptOk = receipt.status === "success";
      submission.ours = relay.transactions.some((transaction) => transaction.hash.toLowerCase() === receipt.transactionHash.toLowerCase() && transaction.kind === "swap");
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
    const gas = landed.map((submission) => Number(submission.gasUsed!));
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
    };
    log(
      `${label}: landed ${result.landed}/${count}, ${result.landedPerSecond.toFixed(1)}/s, ≤2 blocks ${(result.withinTwoBlocks * 100).toFixed(1)} %, ` +
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
    await rpc("evm_setIntervalMining", [0]);
    await rpc("evm_setAutomine", [true]);
    const dropped = await clearMempool(rpc);
    if (dropped > 0) log(`${label}: dropped ${dropped} transactions still pending in the node's mempool`);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
