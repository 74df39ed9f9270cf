import { resolve } from "node:path";
import { z } from "zod";
import { httpUrl } from "../sdk/config/httpUrl";
import { isHex, keccak256, parseEther, parseUnits, stringToHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { environmentSchemaOf, readSettings, setting, settingsFrom, type SettingValues } from "../sdk/config/settingDeclaration";
import { httpUrlList, readEndpointConfigOf, readEndpointSettingDocs, readEndpointSettings } from "../sdk/config/readEndpointSettings";
import { webhookLoopbackAllowed, webhookLoopbackSettingDocs, webhookLoopbackSettings } from "../sdk/config/webhookLoopbackSetting";
import { httpServerLimitSettingDocs, httpServerLimitSettings, httpServerLimitsOf, type HttpServerLimits } from "../sdk/server/httpServerLimits";
import { positiveInt } from "../sdk/config/positiveInt";
import { logLevel } from "../sdk/config/logLevel";
import { postgresUrl } from "../sdk/config/postgresUrl";
import { portNumber } from "../sdk/config/portNumber";
import { gweiAmount } from "../sdk/config/gweiAmount";
import { DEVNET_CHAIN_ID, devnetRpcUrl, feeTokenListSchema, MAX_GASLESS_BATCH_ORDERS } from "../sdk";
import { describeSignerSpec, parseSignerSpecs, SignerSpecError, type SignerSpec } from "./signing/signerSpecs";


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
 * (`relayGasLimit`: the estimate with 50 % headroom, plus native payouts' worst case).
 */
export const gasBudgetSettings = {
  RELAYER_TAKER_GAS_BUDGET: z.coerce.number().int().min(21_000).max(1_000_000_000).default(750_000),
  RELAYER_INTEGRATOR_GAS_BUDGET: z.coerce.number().int().min(21_000).max(10_000_000_000).default(5_000_000),
};

const gasBudgetSettingDocs = {
  RELAYER_TAKER_GAS_BUDGET:
    "Gas the operator pays with no fee that one taker may cause in 24 hours; at it, its gasless quotes, submissions and cancels of broadcast swaps are refused until it frees up. 750,000 is about three worst-case swaps: a taker whose swap failed once or twice by mistake keeps gasless quotes, one that griefs stops after about three.",
  RELAYER_INTEGRATOR_GAS_BUDGET:
    "The same for an integrator, over all its takers and keys: 5,000,000 is about twenty reverted swaps, or about 230 cancels of broadcast swaps (21,000 gas each), in a day.",
} as const satisfies Record<keyof typeof gasBudgetSettings, string>;

/** The budgets of the unpaid-gas ledger, in gas per BUDGET_WINDOW_HOURS (relayer/intake/gaslessStanding.ts). */
export type GasBudgets = Readonly<{ taker: bigint; integrator: bigint }>;

export function gasBudgetsOf(values: { RELAYER_TAKER_GAS_BUDGET: number; RELAYER_INTEGRATOR_GAS_BUDGET: number }): GasBudgets {
  return { taker: BigInt(values.RELAYER_TAKER_GAS_BUDGET), integrator: BigInt(values.RELAYER_INTEGRATOR_GAS_BUDGET) };
}

/**
 * The relayer's environment, declared once: each variable's parser (with its default) and its meaning.
 * `loadRelayerConfig` parses them, `npm run docs:reference` lists them (docs/reference/environment.md).
 */
export const relayerSettings = {
  RELAYER_HOST: setting(z.string().min(1).default("127.0.0.1"), "Interface of the internal endpoint the API hands relays to."),
  RELAYER_PORT: setting(portNumber.default(8090), "Its port; 0 picks a free one."),
  ...settingsFrom(httpServerLimitSettings, httpServerLimitSettingDocs),
  RELAYER_METRICS_HOST: setting(z.string().min(1).default("127.0.0.1"), "Interface GET /metrics is served on, when RELAYER_METRICS_PORT is set."),
  RELAYER_METRICS_PORT: setting(
    portNumber.optional(),
    "GET /metrics (relays, signer balances, nonces) is served only on this port, apart from the internal endpoint every API instance reaches (0 picks a free one); unset: not served.",
  ),
  RELAYER_DB_PATH: setting(z.string().min(1).default("data/relayer.sqlite"), "SQLite file of relays and their transactions."),
  DATABASE_URL: setting(
    postgresUrl.optional(),
    "PostgreSQL instead of the SQLite file (`postgres://…`): relayers on one URL share the relay queue, each claiming relays with a lease; unset: SQLite, one relayer.",
  ),
  RELAYER_ID: setting(z.string().trim().min(1).max(100).optional(), "This relayer's name on the relays it claims; unset: `relayer-<first signer address>` (stable across restarts)."),
  RELAYER_LEASE_SECONDS: setting(z.coerce.number().positive().default(30), "A claim lasts this long unless renewed; a dead relayer's relays are taken over after it."),
  RELAYER_LOG_LEVEL: setting(logLevel.default("info"), "pino level."),
  RELAYER_INTERNAL_TOKEN: setting(z.string().min(16, "must be at least 16 characters (a shared secret with the API)"), "Bearer secret the API must present."),
  RELAYER_PRIVATE_KEYS: setting(
    privateKeys.optional(),
    "Raw signer keys, comma-separated, one per pipeline, for the devnet; give it or RELAYER_SIGNERS, not both. Refused when NODE_ENV=production.",
  ),
  RELAYER_SIGNERS: setting(
    signerSpecs.optional(),
    "The signer keys and where each lives, whitespace-separated entries: `pkcs11:<RFC 7512 URI>?module-path=<lib>&pin-source=file:<pin file>`, `keystore:<file|name>?password-file=<file>` or `unsafe:0x<key>` (docs/operators/keys.md).",
  ),
  RELAYER_MAX_VALUE_PER_TX_ETH: setting(ethAmount.default("1"), "The signing policy's cap on one transaction's value (only top-ups carry any), in ETH."),
  RELAYER_DAILY_SPEND_CAP_ETH: setting(
    ethAmount.default("10"),
    "Each signer's spend in a rolling 24 hours, counted at signing as gas limit × max fee + value per nonce, in ETH; past it the signer takes no new relays and /ready says so.",
  ),
  NODE_ENV: setting(z.string().optional(), "`production`: raw keys (`unsafe:` entries, RELAYER_PRIVATE_KEYS) are refused."),
  CHAIN_ID: setting(positiveInt.default(DEVNET_CHAIN_ID), "The chain the relayer sends to."),
  RPC_URL: setting(
    httpUrl.optional(),
    "JSON-RPC endpoint of the chain; unset: the devnet's `http://<DEVNET_HOST>:<DEVNET_PORT>` (http://127.0.0.1:8545), as every tool of the project defaults.",
  ),
  ...settingsFrom(readEndpointSettings, readEndpointSettingDocs),
  DEPLOYMENTS_DIR: setting(z.string().min(1).default("deployments"), "The chain's manifest is `<dir>/<CHAIN_ID>.json`."),
  RELAYER_CONFIRMATIONS: setting(positiveInt.default(1), "Blocks a successful swap needs (its own included) before it is `confirmed`."),
  RELAYER_RESUBMIT_SECONDS: setting(z.coerce.number().positive().default(15), "Without a receipt this long, a transaction is rebroadcast with bumped fees."),
  RELAYER_ATTRIBUTION_PATIENCE_BLOCKS: setting(
    positiveInt.default(256),
    "A failed relay whose attribution reads keep failing this many blocks after the block it was mined in is settled as unattributable: counted against nobody (the operator's cost), ended `failed`. A node that prunes state can never answer the parent-block reads after that.",
  ),
  RELAYER_PRIORITY_FEE_GWEI: setting(gweiAmount.default("1"), "Priority fee of a first broadcast, in gwei."),
  RELAYER_MAX_FEE_GWEI: setting(gweiAmount.default("500"), "No bump goes above this maxFeePerGas, in gwei; at least RELAYER_PRIORITY_FEE_GWEI."),
  RELAYER_MAX_PENDING_PER_SIGNER: setting(positiveInt.max(256).default(32), "Unmined transactions one signer may have in flight (pipelining)."),
  RELAYER_POLL_MS: setting(positiveInt.default(250), "How often receipts, deadlines and stuck transactions are checked."),
  RELAYER_NONCE_RECONCILE_MS: setting(
    positiveInt.max(600_000).default(2_000),
    "How often each signer's nonces are checked against the chain's (gaps filled, lost transactions sent again, a key used elsewhere caught up); an ambiguous answer from the node asks for a check at once.",
  ),
  RELAYER_SEND_URLS: setting(
    httpUrlList.optional(),
    "Where signed transactions go instead of the read endpoint (RPC_URL, RPC_URLS), comma-separated, at most 8: all of them at once (a sequencer endpoint and a provider, say); accepted when any one takes it. Reads stay where they were.",
  ),
  RELAYER_MIN_SIGNER_BALANCE_ETH: setting(
    z.string().trim().regex(/^[0-9]+(\.[0-9]{1,18})?$/).default("0.1"),
    "A signer below this balance is not given new work (it finishes what it has); logged once at warn when it drops below.",
  ),
  RELAYER_SIGNER_STATE_POLL_MS: setting(
    positiveInt.max(60_000).default(2_000),
    "How often the relayer reads the operator's decisions from the store (`npm run relayer-admin -- signers add|drain|retire|resume`), opens added or resumed keys, lets idle retired ones go, and reports its signers (`signers list`): a drained signer gets no new relays at most this long after the command.",
  ),
  RELAYER_TREASURY_SIGNER: setting(
    signerSpecs.optional(),
    "The optional treasury key that tops signers up, one entry in RELAYER_SIGNERS' format (any backend): when a signer's balance is below RELAYER_MIN_SIGNER_BALANCE_ETH it sends it RELAYER_TOPUP_TARGET_ETH minus its balance, at most RELAYER_MAX_VALUE_PER_TX_ETH per transfer. Each top-up is recorded before it is sent (`relayer-admin topups list`).",
  ),
  RELAYER_TOPUP_TARGET_ETH: setting(ethAmount.optional(), "The balance a treasury top-up brings a signer to, above RELAYER_MIN_SIGNER_BALANCE_ETH; required with RELAYER_TREASURY_SIGNER."),
  RELAYER_TREASURY_DAILY_CAP_ETH: setting(ethAmount.default("1"), "The most the treasury sends in all per rolling 24 hours, in ETH."),
  RELAYER_MAX_LOSS_BPS: setting(
    z.coerce.number().int().min(0).max(100_000).default(0),
    "A first broadcast waits while the gas limit's cost at the current base fee plus tip exceeds the signed fee's worth by more than this, in bps (sponsored relays are not checked); at the deadline the relay ends `expired` / `fee_below_cost`.",
  ),
  ...settingsFrom(gasBudgetSettings, gasBudgetSettingDocs),
  RELAYER_FEE_TOKENS: setting(
    feeTokenListSchema.optional(),
    "Tokens a relay's fee may be paid in (its order's sell token): addresses or symbols of the manifest's tokens, comma-separated, as the API's. A hand-off whose fee token is not one of them is refused before it is stored; unset: every manifest token.",
  ),
  RELAYER_BATCH_MAX: setting(positiveInt.max(MAX_GASLESS_BATCH_ORDERS).default(32), "Orders per batch transaction (at most 64; 1 turns batching off; see \"Batches\" in docs/operators/relayer.md)."),
  RELAYER_BATCH_GAS: setting(
    z.coerce.number().int().min(1_000_000).max(1_000_000_000).optional(),
    "The most gas one batch's limit may take; unset: a quarter of the latest block's gas limit, read at start.",
  ),
  RELAYER_BATCH_WAIT_MS: setting(
    z.coerce.number().int().min(0).max(60_000).default(0),
    "How long a signer with room waits for more relays before sending a batch that is not full (0: whatever accumulated meanwhile).",
  ),
  WEBHOOK_RETRY_BASE_MS: setting(positiveInt.default(5_000), "First retry delay of a failed webhook delivery, doubled per attempt."),
  WEBHOOK_RETRY_MAX_MS: setting(positiveInt.default(3_600_000), "Longest delay between two attempts (3600000: 1 h)."),
  WEBHOOK_RETRY_WINDOW_HOURS: setting(z.coerce.number().positive().default(24), "A delivery is tried this long after its event, then given up (`failed`)."),
  WEBHOOK_TIMEOUT_MS: setting(positiveInt.default(10_000), "One attempt's timeout, whatever stage it is in."),
  WEBHOOK_CONNECT_TIMEOUT_MS: setting(positiveInt.max(60_000).default(3_000), "Resolving the endpoint's name and the TCP (and TLS) handshake must end within this."),
  WEBHOOK_HEADERS_TIMEOUT_MS: setting(positiveInt.max(60_000).default(5_000), "After the request is sent, the response's headers must start within this (first byte)."),
  WEBHOOK_CONCURRENCY: setting(positiveInt.max(256).default(8), "Attempts one relayer has in flight at once."),
  WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR: setting(
    positiveInt.max(256).default(2),
    "Attempts one integrator's endpoint may have in flight, across every relayer on the database; the claim also takes turns between integrators. Below WEBHOOK_CONCURRENCY, so integrators with silent endpoints cannot hold every slot.",
  ),
  WEBHOOK_BREAKER_FAILURES: setting(
    positiveInt.max(1000).default(5),
    "An endpoint whose attempts fail this many times in a row has its circuit opened: nothing is sent to it for the cool-down, then one delivery at a time probes it (a success closes the circuit, a failure opens it again).",
  ),
  WEBHOOK_BREAKER_COOLDOWN_SECONDS: setting(positiveInt.max(86_400).default(60), "The circuit's cool-down."),
  ...settingsFrom(webhookLoopbackSettings, webhookLoopbackSettingDocs),
  WEBHOOK_POLL_MS: setting(positiveInt.default(500), "How often the outbox is read for due deliveries."),
  RELAY_EVENT_RETENTION_HOURS: setting(
    z.coerce.number().positive().default(72),
    "Events (and settled deliveries) are deleted after this long: the reach of a Last-Event-ID resume; at least WEBHOOK_RETRY_WINDOW_HOURS.",
  ),
};

/** The relayer's environment as one zod object (the settings' parsers). */
export const relayerEnvironmentSchema = environmentSchemaOf(relayerSettings);

type RelayerSettingValues = SettingValues<typeof relayerSettings>;

/** The relayer's settings, parsed once at start and passed in; nothing else reads the environment. What each means: `relayerSettings`. */
export type RelayerConfig = Readonly<
  Omit<ReturnType<typeof relayerConfigOf>, "httpLimits" | "treasury"> & {
    httpLimits?: HttpServerLimits;
    treasury?: TreasuryConfig;
  }
>;

/** The treasury key that tops signers up (RELAYER_TREASURY_SIGNER), the balance it tops them up to, and its daily cap. */
export type TreasuryConfig = Readonly<{ signer: SignerSpec; targetWei: bigint; dailyCapWei: bigint }>;

/** Webhook deliveries and relay events (docs/integrators/webhooks-and-events.md). */
export type PushedStatusConfig = RelayerConfig["pushed"];

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
function treasuryOf(values: RelayerSettingValues, production: boolean): TreasuryConfig | undefined {
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

/** Reads the relayer's settings once; invalid values stop the start, each named. */
export function loadRelayerConfig(env: NodeJS.ProcessEnv = process.env): RelayerConfig {
  return relayerConfigOf(readSettings(relayerSettings, env), env);
}

/** The settings as the relayer's parts take them: grouped, resolved against each other, and checked together. */
function relayerConfigOf(values: RelayerSettingValues, env: NodeJS.ProcessEnv) {
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
    logLevel: values.RELAYER_LOG_LEVEL as string,
    internalToken: values.RELAYER_INTERNAL_TOKEN,
    privateKeys: (values.RELAYER_PRIVATE_KEYS ?? []) as readonly Hex[],
    signers: signers as readonly SignerSpec[],
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
    sendUrls: values.RELAYER_SEND_URLS as readonly string[] | undefined,
    minSignerBalanceWei: parseEther(values.RELAYER_MIN_SIGNER_BALANCE_ETH),
    signerStatePollMs: values.RELAYER_SIGNER_STATE_POLL_MS,
    maxLossBps: values.RELAYER_MAX_LOSS_BPS,
    gasBudgets: gasBudgetsOf(values),
    feeTokens: values.RELAYER_FEE_TOKENS as readonly string[] | undefined,
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
