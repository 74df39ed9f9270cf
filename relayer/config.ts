import { resolve } from "node:path";
import { z } from "zod";
import { isHex, keccak256, parseEther, parseUnits, stringToHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { booleanFlag } from "../sdk/config/booleanFlag";
import { httpUrlList, readEndpointConfigOf, readEndpointSettings } from "../sdk/config/readEndpointSettings";
import { webhookLoopbackAllowed, webhookLoopbackSettings } from "../sdk/config/webhookLoopbackSetting";
import { httpServerLimitSettings, httpServerLimitsOf, type HttpServerLimits } from "../sdk/server/httpServerLimits";
import { DEVNET_CHAIN_ID, devnetRpcUrl, feeTokenListSchema, MAX_GASLESS_BATCH_ORDERS } from "../sdk";
import { describeSignerSpec, parseSignerSpecs, SignerSpecError, type SignerSpec } from "./signing/signerSpecs";

const positiveInt = z.coerce.number().int().positive();

const gwei = z.string().trim().regex(/^[0-9]{1,9}(\.[0-9]{1,9})?$/, "must be a decimal amount of gwei such as 1 or 0.5");

const privateKeys = z
  .string()
  .trim()
  .min(1, "must list at least one key")
  .transform((text) => text.split(",").map((key) => key.trim()))
  .pipe(z.array(z.string().refine((key) => isHex(key) && key.length === 66, "each key must be 0x + 64 hex digits")).min(1))
  .transform((keys) => keys as Hex[])
  .refine((keys) => new Set(keys.map((key) => key.toLowerCase())).size === keys.length, "a key is listed twice");

const signerSpecs = z.string().transform((text, context) => {
  try {
    return parseSignerSpecs(text);
  } catch (error) {
    if (!(error instanceof SignerSpecError)) throw error;
    context.addIssue({ code: "custom", message: error.message });
    return z.NEVER;
  }
});

const ethAmount = z.string().trim().regex(/^[0-9]+(\.[0-9]{1,18})?$/, "must be a decimal amount of ETH such as 1 or 0.5");


/**
 * Gas budgets of the unpaid-gas ledger (SECURITY.md, "Unpaid gas: the ledger and its budgets"), in gas
 * per rolling 24 hours. Declared apart so the operator CLI (scripts/gasBudgets.ts) reads the same
 * settings with the same defaults. A single relayed swap's gas limit is about 150k-300k
 * (`relayGasLimit`: the estimate with 50 % headroom, plus native payouts' worst case):
 * - `RELAYER_TAKER_GAS_BUDGET`, default 750,000: about three worst-case swaps, so a taker whose swap
 *   failed once or twice by mistake (its balance spent meanwhile) keeps gasless quotes, and one that
 *   griefs stops after about three;
 * - `RELAYER_INTEGRATOR_GAS_BUDGET`, default 5,000,000: about twenty reverted swaps over all its takers
 *   and keys, or about 230 cancels of broadcast swaps (21,000 gas each), in a day.
 */
export const gasBudgetSettings = {
  RELAYER_TAKER_GAS_BUDGET: z.coerce.number().int().min(21_000).max(1_000_000_000).default(750_000),
  RELAYER_INTEGRATOR_GAS_BUDGET: z.coerce.number().int().min(21_000).max(10_000_000_000).default(5_000_000),
};

/** The budgets of the unpaid-gas ledger, in gas per BUDGET_WINDOW_HOURS (relayer/intake/gaslessStanding.ts). */
export type GasBudgets = Readonly<{ taker: bigint; integrator: bigint }>;

export function gasBudgetsOf(values: { RELAYER_TAKER_GAS_BUDGET: number; RELAYER_INTEGRATOR_GAS_BUDGET: number }): GasBudgets {
  return { taker: BigInt(values.RELAYER_TAKER_GAS_BUDGET), integrator: BigInt(values.RELAYER_INTEGRATOR_GAS_BUDGET) };
}

/** The relayer's environment, declared once (each variable's meaning is the doc comment of the RelayerConfig field naming it; npm run docs:reference lists them). */
export const relayerEnvironmentSchema = z.object({
  RELAYER_HOST: z.string().min(1).default("127.0.0.1"),
  RELAYER_PORT: z.coerce.number().int().min(0).max(65535).default(8090),
  // HTTP_MAX_HEADER_BYTES, HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS.
  ...httpServerLimitSettings,
  RELAYER_METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  RELAYER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  RELAYER_DB_PATH: z.string().min(1).default("data/relayer.sqlite"),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" }).optional(),
  RELAYER_ID: z.string().trim().min(1).max(100).optional(),
  RELAYER_LEASE_SECONDS: z.coerce.number().positive().default(30),
  RELAYER_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  RELAYER_INTERNAL_TOKEN: z.string().min(16, "must be at least 16 characters (a shared secret with the API)"),
  RELAYER_PRIVATE_KEYS: privateKeys.optional(),
  RELAYER_SIGNERS: signerSpecs.optional(),
  RELAYER_MAX_VALUE_PER_TX_ETH: ethAmount.default("1"),
  RELAYER_DAILY_SPEND_CAP_ETH: ethAmount.default("10"),
  NODE_ENV: z.string().optional(),
  CHAIN_ID: positiveInt.default(DEVNET_CHAIN_ID),
  // Absent: the devnet's own URL (DEVNET_HOST, DEVNET_PORT), as every tool of the project defaults.
  RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  // RPC_URLS, RPC_MAX_HEAD_LAG_BLOCKS, RPC_PROBE_MS.
  ...readEndpointSettings,
  DEPLOYMENTS_DIR: z.string().min(1).default("deployments"),
  RELAYER_CONFIRMATIONS: positiveInt.default(1),
  RELAYER_RESUBMIT_SECONDS: z.coerce.number().positive().default(15),
  RELAYER_ATTRIBUTION_PATIENCE_BLOCKS: positiveInt.default(256),
  RELAYER_PRIORITY_FEE_GWEI: gwei.default("1"),
  RELAYER_MAX_FEE_GWEI: gwei.default("500"),
  RELAYER_MAX_PENDING_PER_SIGNER: positiveInt.max(256).default(32),
  RELAYER_POLL_MS: positiveInt.default(250),
  RELAYER_NONCE_RECONCILE_MS: positiveInt.max(600_000).default(2_000),
  RELAYER_SEND_URLS: httpUrlList.optional(),
  RELAYER_MIN_SIGNER_BALANCE_ETH: z.string().trim().regex(/^[0-9]+(\.[0-9]{1,18})?$/).default("0.1"),
  RELAYER_SIGNER_STATE_POLL_MS: positiveInt.max(60_000).default(2_000),
  RELAYER_TREASURY_SIGNER: signerSpecs.optional(),
  RELAYER_TOPUP_TARGET_ETH: ethAmount.optional(),
  RELAYER_TREASURY_DAILY_CAP_ETH: ethAmount.default("1"),
  RELAYER_MAX_LOSS_BPS: z.coerce.number().int().min(0).max(100_000).default(0),
  ...gasBudgetSettings,
  RELAYER_FEE_TOKENS: feeTokenListSchema.optional(),
  RELAYER_BATCH_MAX: positiveInt.max(MAX_GASLESS_BATCH_ORDERS).default(32),
  RELAYER_BATCH_GAS: z.coerce.number().int().min(1_000_000).max(1_000_000_000).optional(),
  RELAYER_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  WEBHOOK_RETRY_BASE_MS: positiveInt.default(5_000),
  WEBHOOK_RETRY_MAX_MS: positiveInt.default(3_600_000),
  WEBHOOK_RETRY_WINDOW_HOURS: z.coerce.number().positive().default(24),
  WEBHOOK_TIMEOUT_MS: positiveInt.default(10_000),
  WEBHOOK_CONNECT_TIMEOUT_MS: positiveInt.max(60_000).default(3_000),
  WEBHOOK_HEADERS_TIMEOUT_MS: positiveInt.max(60_000).default(5_000),
  WEBHOOK_CONCURRENCY: positiveInt.max(256).default(8),
  WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR: positiveInt.max(256).default(2),
  WEBHOOK_BREAKER_FAILURES: positiveInt.max(1000).default(5),
  WEBHOOK_BREAKER_COOLDOWN_SECONDS: positiveInt.max(86_400).default(60),
  ...webhookLoopbackSettings,
  WEBHOOK_POLL_MS: positiveInt.default(500),
  RELAY_EVENT_RETENTION_HOURS: z.coerce.number().positive().default(72),
});

/** The relayer's settings, parsed once at start and passed in; nothing else reads the environment. */
export type RelayerConfig = Readonly<{
  /** Interface of the internal endpoint the API hands relays to. `RELAYER_HOST`, default 127.0.0.1. */
  host: string;
  /** Its port; 0 picks a free one. `RELAYER_PORT`, default 8090. */
  port: number;
  /**
   * The internal endpoint's header size and header, request and keep-alive timeouts, the same
   * settings as the API's (`HTTP_MAX_HEADER_BYTES`, `HTTP_HEADERS_TIMEOUT_MS`, `HTTP_REQUEST_TIMEOUT_MS`,
   * `HTTP_KEEP_ALIVE_TIMEOUT_MS`; sdk/server/httpServerLimits.ts). Absent (tests): their defaults.
   */
  httpLimits?: HttpServerLimits;
  /**
   * GET /metrics (relays, signer balances, nonces) is served only on this port, apart from the
   * internal endpoint every API instance reaches; absent: not served. `RELAYER_METRICS_PORT` (0 picks
   * a free one), default unset; `RELAYER_METRICS_HOST`, default 127.0.0.1.
   */
  metrics: Readonly<{ host: string; port: number }> | undefined;
  /** SQLite file of relays and their transactions. `RELAYER_DB_PATH`, default data/relayer.sqlite. */
  dbPath: string;
  /**
   * PostgreSQL instead of the SQLite file: relayers on one URL share the relay queue, each claiming
   * relays with a lease. `DATABASE_URL` (`postgres://…`), default unset (SQLite, one relayer).
   */
  databaseUrl: string | undefined;
  /** This relayer's name on the relays it claims. `RELAYER_ID`, default `relayer-<first signer address>` (stable across restarts). */
  relayerId: string;
  /** A claim lasts this long unless renewed; a dead relayer's relays are taken over after it. `RELAYER_LEASE_SECONDS`, default 30. */
  leaseSeconds: number;
  /** pino level. `RELAYER_LOG_LEVEL`, default info. */
  logLevel: string;
  /** Bearer secret the API must present. `RELAYER_INTERNAL_TOKEN`, required. */
  internalToken: string;
  /**
   * Raw signer keys, one per pipeline, for the devnet. `RELAYER_PRIVATE_KEYS`, comma-separated; give it
   * or RELAYER_SIGNERS, not both. Refused when NODE_ENV=production. Empty when RELAYER_SIGNERS is used.
   */
  privateKeys: readonly Hex[];
  /**
   * The signer keys and where each lives: `RELAYER_SIGNERS`, whitespace-separated entries
   * `pkcs11:<RFC 7512 URI>?module-path=<lib>&pin-source=file:<pin file>`,
   * `keystore:<file|name>?password-file=<file>` or `unsafe:0x<key>` (relayer/signing/signerSpecs.ts;
   * docs/operators/keys.md). Raw devnet keys given instead become `unsafe:` entries here.
   */
  signers: readonly SignerSpec[];
  /** `NODE_ENV=production`: raw keys (`unsafe:` entries, raw devnet keys) are refused. */
  production: boolean;
  /** The signing policy's cap on one transaction's value (only top-ups carry any), held in wei. `RELAYER_MAX_VALUE_PER_TX_ETH` (ETH), default 1. */
  maxValuePerTxWei: bigint;
  /**
   * Each signer's spend in a rolling 24 hours, counted at signing as gas limit × max fee + value per
   * nonce; past it the signer takes no new relays and /ready says so. `RELAYER_DAILY_SPEND_CAP_ETH`, default 10.
   */
  dailySpendCapWei: bigint;
  /**
   * The optional treasury key that tops signers up: `RELAYER_TREASURY_SIGNER`, one entry in
   * RELAYER_SIGNERS' format (any backend). When a signer's balance is below RELAYER_MIN_SIGNER_BALANCE_ETH
   * it sends it `RELAYER_TOPUP_TARGET_ETH` (required with it, above the floor) minus its balance, at most
   * RELAYER_MAX_VALUE_PER_TX_ETH per transfer and `RELAYER_TREASURY_DAILY_CAP_ETH` (default 1) in all
   * per rolling 24 h. Each top-up is recorded before it is sent (`relayer-admin topups list`).
   */
  treasury?: Readonly<{ signer: SignerSpec; targetWei: bigint; dailyCapWei: bigint }>;
  /** `CHAIN_ID`, default 4663. */
  chainId: number;
  /** `RPC_URL`, default the devnet's `http://<DEVNET_HOST>:<DEVNET_PORT>` (http://127.0.0.1:8545); with `RPC_URLS`, the first of them (named in start-up errors). */
  rpcUrl: string;
  /**
   * Where reads go: `RPC_URLS`, comma-separated, at most 8 (several nodes or providers of one chain),
   * else RPC_URL alone. With several, each request goes to the best-ranked endpoint (latency, requests
   * without an answer, head height) and fails over to the next when it gets no answer; a node whose head
   * is more than RPC_MAX_HEAD_LAG_BLOCKS behind the others is set aside until it catches up. Refused together with RPC_URL.
   */
  rpcUrls: readonly string[];
  /** A read endpoint more than this many blocks behind the highest head of the others is set aside. `RPC_MAX_HEAD_LAG_BLOCKS`, default 3. */
  rpcMaxHeadLagBlocks: number;
  /** How often each read endpoint's head is read to rank them (with several RPC_URLS). `RPC_PROBE_MS`, default 1000. */
  rpcProbeMs: number;
  /** The chain's manifest is `<dir>/<CHAIN_ID>.json`. `DEPLOYMENTS_DIR`, default deployments. */
  deploymentsDir: string;
  /** Blocks a successful swap needs (its own included) before it is `confirmed`. `RELAYER_CONFIRMATIONS`, default 1. */
  confirmations: number;
  /** Without a receipt this long, a transaction is rebroadcast with bumped fees. `RELAYER_RESUBMIT_SECONDS`, default 15. */
  resubmitSeconds: number;
  /**
   * A failed relay whose attribution reads keep failing this many blocks after the block it was mined in
   * is settled as unattributable: counted against nobody (the operator's cost), ended `failed`. A node
   * that prunes state can never answer the parent-block reads after that. `RELAYER_ATTRIBUTION_PATIENCE_BLOCKS`, default 256.
   */
  attributionPatienceBlocks: number;
  /** Priority fee of a first broadcast, in wei. `RELAYER_PRIORITY_FEE_GWEI`, default 1. */
  priorityFeeWei: bigint;
  /** No bump goes above this maxFeePerGas, in wei. `RELAYER_MAX_FEE_GWEI`, default 500. */
  maxFeeWei: bigint;
  /** Unmined transactions one signer may have in flight (pipelining). `RELAYER_MAX_PENDING_PER_SIGNER`, default 32. */
  maxPendingPerSigner: number;
  /** How often receipts, deadlines and stuck transactions are checked. `RELAYER_POLL_MS`, default 250. */
  pollMs: number;
  /**
   * How often each signer's nonces are checked against the chain's (gaps filled, lost transactions
   * sent again, a key used elsewhere caught up); an ambiguous answer from the node asks for a check at
   * once. `RELAYER_NONCE_RECONCILE_MS`, default 2000.
   */
  nonceReconcileMs: number;
  /**
   * Where signed transactions go instead of the read endpoint (RPC_URL, RPC_URLS): all of them at once (a
   * sequencer endpoint and a provider, say); accepted when any one takes it. Reads stay where they were.
   * `RELAYER_SEND_URLS`, comma-separated, at most 8; default unset (the read endpoint).
   */
  sendUrls: readonly string[] | undefined;
  /** A signer below this balance is not given new work (it finishes what it has); logged once at warn when it drops below. `RELAYER_MIN_SIGNER_BALANCE_ETH`, default 0.1. */
  minSignerBalanceWei: bigint;
  /**
   * How often the relayer reads the operator's drain/resume decisions from the store (`npm run
   * relayer-admin -- signers drain|resume`) and reports its signers (`signers list`): a drained signer
   * gets no new relays at most this long after the command. `RELAYER_SIGNER_STATE_POLL_MS`, default 2000.
   */
  signerStatePollMs: number;
  /**
   * A first broadcast waits while the gas limit's cost at the current base fee plus tip exceeds the
   * signed fee's worth by more than this, in bps (sponsored relays are not checked); at the deadline
   * the relay ends `expired` / `fee_below_cost`. `RELAYER_MAX_LOSS_BPS`, default 0.
   */
  maxLossBps: number;
  /**
   * Gas the operator pays with no fee that a taker (`RELAYER_TAKER_GAS_BUDGET`, default 750,000) and
   * an integrator (`RELAYER_INTEGRATOR_GAS_BUDGET`, default 5,000,000) may cause in 24 hours; at it,
   * gasless quotes, submissions and cancels of broadcast swaps are refused until it frees up
   * (`gasBudgetSettings` says why these defaults).
   */
  gasBudgets: GasBudgets;
  /**
   * Tokens a relay's fee may be paid in (its order's sell token): addresses or symbols of the
   * manifest's tokens. A hand-off whose fee token is not one of them is refused before it is stored.
   * `RELAYER_FEE_TOKENS`, comma-separated, as the API's; default (undefined) every manifest token.
   */
  feeTokens: readonly string[] | undefined;
  /**
   * Batching of first broadcasts (see "Batches" in docs/operators/relayer.md). `max`: orders per transaction
   * (`RELAYER_BATCH_MAX`, default 32, at most 64; 1 turns batching off). `gas`: the most gas one
   * batch's limit may take (`RELAYER_BATCH_GAS`; default undefined: a quarter of the latest block's gas
   * limit, read at start). `waitMs`: how long a signer with room waits for more relays before sending
   * a batch that is not full (`RELAYER_BATCH_WAIT_MS`, default 0: whatever accumulated meanwhile).
   */
  batch: Readonly<{ max: number; gas: bigint | undefined; waitMs: number }>;
  /** Webhook deliveries and relay events (docs/integrators/webhooks-and-events.md). */
  pushed: PushedStatusConfig;
}>;

export type PushedStatusConfig = Readonly<{
  /** First retry delay of a failed webhook delivery, doubled per attempt. `WEBHOOK_RETRY_BASE_MS`, default 5000. */
  retryBaseMs: number;
  /** Longest delay between two attempts. `WEBHOOK_RETRY_MAX_MS`, default 3600000 (1 h). */
  retryMaxMs: number;
  /** A delivery is tried this long after its event, then given up (`failed`). `WEBHOOK_RETRY_WINDOW_HOURS`, default 24. */
  retryWindowMs: number;
  /** One attempt's timeout, whatever stage it is in (its "one attempt's time"). `WEBHOOK_TIMEOUT_MS`, default 10000. */
  timeoutMs: number;
  /** Resolving the endpoint's name and the TCP (and TLS) handshake must end within this. `WEBHOOK_CONNECT_TIMEOUT_MS`, default 3000. */
  connectTimeoutMs: number;
  /** After the request is sent, the response's headers must start within this (first byte). `WEBHOOK_HEADERS_TIMEOUT_MS`, default 5000. */
  headersTimeoutMs: number;
  /** Attempts one relayer has in flight at once. `WEBHOOK_CONCURRENCY`, default 8. */
  concurrency: number;
  /**
   * Attempts one integrator's endpoint may have in flight, across every relayer on the database; the
   * claim also takes turns between integrators. Keep it below WEBHOOK_CONCURRENCY, so integrators
   * with silent endpoints cannot hold every slot. `WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR`, default 2.
   */
  maxInFlightPerIntegrator: number;
  /**
   * An endpoint whose attempts fail this many times in a row has its circuit opened: nothing is sent
   * to it for the cool-down, then one delivery at a time probes it (a success closes the circuit, a
   * failure opens it again). `WEBHOOK_BREAKER_FAILURES`, default 5; `WEBHOOK_BREAKER_COOLDOWN_SECONDS`, default 60.
   */
  breakerFailures: number;
  breakerCooldownMs: number;
  /**
   * Deliveries may go to loopback addresses (the devnet's receivers); otherwise only to global
   * unicast addresses, checked on every address the name resolves to at delivery, and connected to
   * exactly. The API's setting of the same name governs registration. `WEBHOOK_ALLOW_LOOPBACK_HTTP`,
   * default true on the devnet (CHAIN_ID 4663), false elsewhere.
   */
  allowLoopback: boolean;
  /** How often the outbox is read for due deliveries. `WEBHOOK_POLL_MS`, default 500. */
  pollMs: number;
  /** Events (and settled deliveries) are deleted after this long: the reach of a Last-Event-ID resume. `RELAY_EVENT_RETENTION_HOURS`, default 72. */
  retentionMs: number;
}>;

/**
 * A relayer's name when RELAYER_ID is unset, stable across restarts: its first signer's address for a
 * raw key (as before RELAYER_SIGNERS), else a digest of its first signer's entry (a module's key is
 * not read while the settings are).
 */
function defaultRelayerId(first: SignerSpec): string {
  if (first.kind === "unsafe") return `relayer-${privateKeyToAccount(first.privateKey).address.toLowerCase()}`;
  return `relayer-${keccak256(stringToHex(describeSignerSpec(first))).slice(2, 18)}`;
}

/** RELAYER_TREASURY_SIGNER with its target and cap, checked against the balance floor. */
function treasuryOf(values: z.infer<typeof relayerEnvironmentSchema>, production: boolean): RelayerConfig["treasury"] {
  const specs = values.RELAYER_TREASURY_SIGNER;
  if (specs === undefined) {
    if (values.RELAYER_TOPUP_TARGET_ETH !== undefined) throw new Error("invalid RELAYER_TOPUP_TARGET_ETH: it needs RELAYER_TREASURY_SIGNER (the key that pays the top-ups)");
    return undefined;
  }
  if (specs.length !== 1) throw new Error("invalid RELAYER_TREASURY_SIGNER: give exactly one key entry (pkcs11:, keystore: or unsafe:)");
  if (production && specs[0]!.kind === "unsafe") throw new Error("invalid RELAYER_TREASURY_SIGNER: raw keys are refused when NODE_ENV=production; use pkcs11: or keystore: (docs/operators/keys.md)");
  if (values.RELAYER_TOPUP_TARGET_ETH === undefined) throw new Error("invalid RELAYER_TOPUP_TARGET_ETH: give the balance a treasury top-up brings a signer to (above RELAYER_MIN_SIGNER_BALANCE_ETH)");
  const targetWei = parseEther(values.RELAYER_TOPUP_TARGET_ETH);
  if (targetWei <= parseEther(values.RELAYER_MIN_SIGNER_BALANCE_ETH)) throw new Error("invalid RELAYER_TOPUP_TARGET_ETH: must be above RELAYER_MIN_SIGNER_BALANCE_ETH");
  return { signer: specs[0]!, targetWei, dailyCapWei: parseEther(values.RELAYER_TREASURY_DAILY_CAP_ETH) };
}

/** Reads the relayer's settings once; an invalid value stops the start with its name. */
export function loadRelayerConfig(env: NodeJS.ProcessEnv = process.env): RelayerConfig {
  const parsed = relayerEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? ""}`);
  }
  const values = parsed.data;
  if ((values.RELAYER_PRIVATE_KEYS === undefined) === (values.RELAYER_SIGNERS === undefined)) {
    throw new Error(
      values.RELAYER_SIGNERS === undefined
        ? "invalid RELAYER_SIGNERS: give the relayer's signers (pkcs11:, keystore: or unsafe: entries), or RELAYER_PRIVATE_KEYS on a devnet"
        : "invalid RELAYER_PRIVATE_KEYS: give RELAYER_SIGNERS or RELAYER_PRIVATE_KEYS, not both",
    );
  }
  const signers: SignerSpec[] = values.RELAYER_SIGNERS ?? values.RELAYER_PRIVATE_KEYS!.map((privateKey) => ({ kind: "unsafe", privateKey }));
  const production = values.NODE_ENV === "production";
  if (production && signers.some((signer) => signer.kind === "unsafe")) {
    throw new Error(`invalid ${values.RELAYER_SIGNERS === undefined ? "RELAYER_PRIVATE_KEYS" : "RELAYER_SIGNERS"}: raw keys are refused when NODE_ENV=production; use pkcs11: or keystore: signers (docs/operators/keys.md)`);
  }
  const treasury = treasuryOf(values, production);
  const reads = readEndpointConfigOf(values, devnetRpcUrl(env));
  const priorityFeeWei = parseUnits(values.RELAYER_PRIORITY_FEE_GWEI, 9);
  const maxFeeWei = parseUnits(values.RELAYER_MAX_FEE_GWEI, 9);
  if (maxFeeWei < priorityFeeWei) throw new Error("invalid RELAYER_MAX_FEE_GWEI: must be at least RELAYER_PRIORITY_FEE_GWEI");
  if (values.WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR >= values.WEBHOOK_CONCURRENCY) {
    throw new Error("invalid WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR: must be below WEBHOOK_CONCURRENCY, so one integrator's endpoints cannot hold every delivery slot");
  }
  // A delivery still being retried must keep its event.
  if (values.RELAY_EVENT_RETENTION_HOURS < values.WEBHOOK_RETRY_WINDOW_HOURS) throw new Error("invalid RELAY_EVENT_RETENTION_HOURS: must be at least WEBHOOK_RETRY_WINDOW_HOURS");
  return {
    host: values.RELAYER_HOST,
    port: values.RELAYER_PORT,
    httpLimits: httpServerLimitsOf(values),
    metrics: values.RELAYER_METRICS_PORT === undefined ? undefined : { host: values.RELAYER_METRICS_HOST, port: values.RELAYER_METRICS_PORT },
    dbPath: resolve(values.RELAYER_DB_PATH),
    databaseUrl: values.DATABASE_URL,
    relayerId: values.RELAYER_ID ?? defaultRelayerId(signers[0]!),
    leaseSeconds: values.RELAYER_LEASE_SECONDS,
    logLevel: values.RELAYER_LOG_LEVEL,
    internalToken: values.RELAYER_INTERNAL_TOKEN,
    privateKeys: values.RELAYER_PRIVATE_KEYS ?? [],
    signers,
    production,
    maxValuePerTxWei: parseEther(values.RELAYER_MAX_VALUE_PER_TX_ETH),
    dailySpendCapWei: parseEther(values.RELAYER_DAILY_SPEND_CAP_ETH),
    ...(treasury === undefined ? {} : { treasury }),
    chainId: values.CHAIN_ID,
    rpcUrl: reads.rpcUrls[0]!,
    ...reads,
    deploymentsDir: resolve(values.DEPLOYMENTS_DIR),
    confirmations: values.RELAYER_CONFIRMATIONS,
    resubmitSeconds: values.RELAYER_RESUBMIT_SECONDS,
    attributionPatienceBlocks: values.RELAYER_ATTRIBUTION_PATIENCE_BLOCKS,
    priorityFeeWei,
    maxFeeWei,
    maxPendingPerSigner: values.RELAYER_MAX_PENDING_PER_SIGNER,
    pollMs: values.RELAYER_POLL_MS,
    nonceReconcileMs: values.RELAYER_NONCE_RECONCILE_MS,
    sendUrls: values.RELAYER_SEND_URLS,
    minSignerBalanceWei: parseEther(values.RELAYER_MIN_SIGNER_BALANCE_ETH),
    signerStatePollMs: values.RELAYER_SIGNER_STATE_POLL_MS,
    maxLossBps: values.RELAYER_MAX_LOSS_BPS,
    gasBudgets: gasBudgetsOf(values),
    feeTokens: values.RELAYER_FEE_TOKENS,
    batch: {
      max: values.RELAYER_BATCH_MAX,
      gas: values.RELAYER_BATCH_GAS === undefined ? undefined : BigInt(values.RELAYER_BATCH_GAS),
      waitMs: values.RELAYER_BATCH_WAIT_MS,
    },
    pushed: {
      retryBaseMs: values.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: values.WEBHOOK_RETRY_MAX_MS,
      retryWindowMs: values.WEBHOOK_RETRY_WINDOW_HOURS * 3_600_000,
      timeoutMs: values.WEBHOOK_TIMEOUT_MS,
      connectTimeoutMs: values.WEBHOOK_CONNECT_TIMEOUT_MS,
      headersTimeoutMs: values.WEBHOOK_HEADERS_TIMEOUT_MS,
      concurrency: values.WEBHOOK_CONCURRENCY,
      maxInFlightPerIntegrator: values.WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR,
      breakerFailures: values.WEBHOOK_BREAKER_FAILURES,
      breakerCooldownMs: values.WEBHOOK_BREAKER_COOLDOWN_SECONDS * 1000,
      allowLoopback: webhookLoopbackAllowed(values),
      pollMs: values.WEBHOOK_POLL_MS,
      retentionMs: values.RELAY_EVENT_RETENTION_HOURS * 3_600_000,
    },
  };
}
