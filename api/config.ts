import { isIP } from "node:net";
import { resolve } from "node:path";
import { z } from "zod";
import { getAddress, isAddress, parseUnits, zeroAddress, type Address } from "viem";
import { booleanFlag } from "../sdk/config/booleanFlag";
import { webhookLoopbackAllowed, webhookLoopbackSettings } from "../sdk/config/webhookLoopbackSetting";
import { httpServerLimitSettings, httpServerLimitsOf, type HttpServerLimits } from "../sdk/server/httpServerLimits";
import { createOnboardingMessage, DEVNET_CHAIN_ID, devnetRpcUrl, OnboardingAction, feeTokenListSchema } from "../sdk";
import { l1FeeModels, type L1FeeModel } from "../sdk/chain/networkFeeModel";
import { readEndpointConfigOf, readEndpointSettings } from "../sdk/config/readEndpointSettings";


const positiveInt = z.coerce.number().int().positive();

/** A non-negative decimal amount of whole tokens, such as `1` or `0.5`; kept as text for parseUnits. */
const decimalAmount = z.string().trim().regex(/^(0|[1-9][0-9]{0,17})(\.[0-9]{1,18})?$/, "must be a non-negative decimal number such as 1 or 0.5");

/** The names express's `trust proxy` accepts for address ranges, besides addresses and CIDR blocks. */
const PROXY_RANGE_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** One entry of an `API_TRUST_PROXY` list: an address, a CIDR block, or a range name. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = "", prefix, ...rest] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  if (!/^[0-9]{1,3}$/.test(prefix)) return family === 4 && isIP(prefix) === 4; // an IPv4 netmask
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * `API_TRUST_PROXY`, passed to express's `trust proxy`: `false` (the socket's address is the client),
 * a hop count, or a comma-separated list of the proxies' addresses. `true` (trust every hop) is
 * refused: any client could then choose its own address by sending X-Forwarded-For.
 */
const trustProxy = z
  .string()
  .trim()
  .transform((text, context): false | number | string[] => {
    if (text === "" || text.toLowerCase() === "false") return false;
    if (/^[0-9]{1,3}$/.test(text)) return Number(text);
    if (text.toLowerCase() === "true") {
      context.addIssue({ code: "custom", message: "true would trust an X-Forwarded-For any client can write; give the number of proxies in front (e.g. 1) or their addresses" });
      return z.NEVER;
    }
    const entries = text.split(",").map((entry) => entry.trim());
    const bad = entries.find((entry) => !isProxyAddress(entry));
    if (bad !== undefined) {
      context.addIssue({ code: "custom", message: `${JSON.stringify(bad)} is not a hop count, an IP address, a CIDR block, loopback, linklocal or uniquelocal` });
      return z.NEVER;
    }
    return entries;
  });

/** One more chain of `API_CHAINS`: its id, JSON-RPC URL, and deployment manifest file. */
const additionalChain = z.strictObject({
  chainId: z.number().int().positive(),
  rpcUrl: z.url({ protocol: /^https?$/ }),
  manifest: z.string().min(1),
});

/** `API_CHAINS`: a JSON array of additional chains; absent or empty means the default chain only. */
const additionalChains = z
  .string()
  .trim()
  .transform((text, context) => {
    if (text === "") return [];
    try {
      return JSON.parse(text) as unknown;
    } catch {
      context.addIssue({ code: "custom", message: "must be a JSON array of {chainId, rpcUrl, manifest}" });
      return z.NEVER;
    }
  })
  .pipe(z.array(additionalChain));


/** The API's environment, declared once (each variable's meaning is the doc comment of the ApiConfig field naming it; npm run docs:reference lists them). */
export const apiEnvironmentSchema = z.object({
  API_HOST: z.string().min(1).default("127.0.0.1"),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  API_TRUST_PROXY: trustProxy.default(false),
  METRICS_HOST: z.string().min(1).default("127.0.0.1"),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  API_DB_PATH: z.string().min(1).default("data/api.sqlite"),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" }).optional(),
  API_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  API_MAX_BODY_BYTES: positiveInt.default(16_384),
  // HTTP_MAX_HEADER_BYTES, HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS.
  ...httpServerLimitSettings,
  NONCE_TTL_SECONDS: positiveInt.default(600),
  AUTO_APPROVE: booleanFlag.default(false),
  DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: positiveInt.default(10),
  MAX_FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(1000),
  MAX_COMBINED_FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(100),
  SIWE_DOMAIN: z.string().min(1).default("localhost"),
  SIWE_URI: z.string().min(1).optional(),
  CHAIN_ID: positiveInt.default(DEVNET_CHAIN_ID),
  ...webhookLoopbackSettings,
  SSE_MAX_STREAMS_PER_KEY: positiveInt.max(1000).default(5),
  SSE_MAX_STREAMS_PER_INTEGRATOR: positiveInt.max(100_000).default(10),
  SSE_MAX_STREAMS: positiveInt.max(1_000_000).default(1000),
  SSE_MAX_LIFETIME_SECONDS: positiveInt.max(86_400).default(300),
  MAX_API_KEYS_PER_INTEGRATOR: positiveInt.max(10_000).default(10),
  // At most 30: the relayer holds an event read open that long at most (its wait_ms bound).
  SSE_KEEPALIVE_SECONDS: positiveInt.max(30).default(15),
  // Absent: the devnet's own URL (DEVNET_HOST, DEVNET_PORT), as every tool of the project defaults.
  RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  // RPC_URLS, RPC_MAX_HEAD_LAG_BLOCKS, RPC_PROBE_MS.
  ...readEndpointSettings,
  DEPLOYMENTS_DIR: z.string().min(1).default("deployments"),
  API_CHAINS: additionalChains.default([]),
  SNAPSHOT_RATE_LIMIT_PER_MINUTE: positiveInt.default(120),
  ONBOARDING_RATE_LIMIT_PER_MINUTE: positiveInt.default(120),
  ONBOARDING_WALLET_RATE_LIMIT_PER_MINUTE: positiveInt.default(30),
  ONBOARDING_1271_GAS: positiveInt.min(30_000).max(10_000_000).default(300_000),
  ONBOARDING_1271_TIMEOUT_MS: positiveInt.max(60_000).default(3_000),
  SNAPSHOT_REFRESH_SECONDS: positiveInt.default(5),
  DEMAND_FLUSH_SECONDS: positiveInt.default(5),
  DEMAND_MAX_TRACKED: positiveInt.default(10_000),
  PROMOTION_MIN_INTEGRATORS: positiveInt.default(3),
  PROMOTION_WINDOW_HOURS: positiveInt.default(24),
  PROMOTION_MIN_LIQUIDITY_WETH: decimalAmount.default("1"),
  PROMOTION_RECHECK_MINUTES: positiveInt.default(10),
  QUOTE_TTL_SECONDS: positiveInt.default(300),
  // The spec allows the probe bucket "up to 10 times" the quote allowance.
  QUOTE_PROBE_MULTIPLIER: positiveInt.max(10).default(10),
  STATUS_RATE_LIMIT_MULTIPLIER: positiveInt.max(1000).default(10),
  PRICE_RATE_LIMIT_MULTIPLIER: positiveInt.max(1000).default(5),
  L1_FEE_MODEL: z.enum(l1FeeModels).default("none"),
  RELAYER_URL: z
    .string()
    .default("http://127.0.0.1:8090")
    .transform((text) => text.split(",").map((url) => url.trim().replace(/\/+$/, "")))
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1)),
  RELAYER_INTERNAL_TOKEN: z.string().min(16, "must be at least 16 characters (a shared secret with the relayer)").optional(),
  RELAYER_FEE_RECIPIENT: z
    .string()
    .refine((value) => isAddress(value, { strict: false }), "must be an address")
    .transform((value) => getAddress(value.toLowerCase()))
    .optional(),
  RELAYER_FEE_MARGIN_BPS: z.coerce.number().int().min(0).max(100_000).default(2000),
  RELAYER_SPONSOR_GAS: booleanFlag.default(false),
  RELAYER_FEE_TOKENS: feeTokenListSchema.optional(),
  RELAYER_PRIORITY_FEE_GWEI: z.string().trim().regex(/^[0-9]{1,9}(\.[0-9]{1,9})?$/, "must be a decimal amount of gwei such as 1 or 0.5").default("1"),
  RELAYER_STANDING_CACHE_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
});

/** A chain served besides the default one (`API_CHAINS`). */
export type AdditionalChain = Readonly<{ chainId: number; rpcUrl: string; manifestPath: string }>;

/** The API's settings, parsed once at start and passed in; no handler reads the environment. */
export type ApiConfig = Readonly<{
  /** Interface the HTTP server binds to. `API_HOST`, default 127.0.0.1. */
  host: string;
  /** HTTP port; 0 picks a free one. `API_PORT`, default 8080. */
  port: number;
  /**
   * Header size and the header, request and keep-alive timeouts (slow clients): `HTTP_MAX_HEADER_BYTES`
   * 16384, `HTTP_HEADERS_TIMEOUT_MS` 10000, `HTTP_REQUEST_TIMEOUT_MS` 30000, `HTTP_KEEP_ALIVE_TIMEOUT_MS`
   * 5000 (sdk/server/httpServerLimits.ts). Optional for apps built in tests; absent: those defaults.
   */
  httpLimits?: HttpServerLimits;
  /**
   * express's `trust proxy`: which hops in front of the API may name the client in X-Forwarded-For,
   * for the per-IP limits. `API_TRUST_PROXY`: `false` (default; the socket's address), a hop count,
   * or a comma-separated list of addresses / CIDR blocks / `loopback`, `linklocal`, `uniquelocal`.
   */
  trustProxy: false | number | readonly string[];
  /**
   * GET /metrics is served only on this port, apart from the public API (absent: not served).
   * `METRICS_PORT` (0 picks a free one), default unset; `METRICS_HOST`, default 127.0.0.1.
   */
  metrics: Readonly<{ host: string; port: number }> | undefined;
  /** SQLite database file (created with its folder). `API_DB_PATH`, default data/api.sqlite. */
  dbPath: string;
  /**
   * PostgreSQL instead of the SQLite file: every API instance on this URL shares profiles, keys,
   * quotes, token decisions and rate limits. `DATABASE_URL` (`postgres://…`), default unset (SQLite).
   */
  databaseUrl: string | undefined;
  /** pino level. `API_LOG_LEVEL`, default info. */
  logLevel: string;
  /** Largest accepted request body; larger ones get 413. `API_MAX_BODY_BYTES`, default 16384. */
  maxBodyBytes: number;
  /** Lifetime of an onboarding nonce. `NONCE_TTL_SECONDS`, default 600. */
  nonceTtlSeconds: number;
  /**
   * New applications are `active` at once when true, else `pending` until approved. Either way only
   * profiles an operator approved or confirmed count toward token promotion. `AUTO_APPROVE`, default
   * false (`npm start` turns it on for the devnet).
   */
  autoApprove: boolean;
  /**
   * Keys a profile may hold that are not revoked; creating one more is refused (409
   * api_key_limit_reached). Every per-key limit (rate buckets, streams) is per key, so free keys would
   * multiply them. `MAX_API_KEYS_PER_INTEGRATOR`, default 10.
   */
  maxApiKeysPerIntegrator: number;
  /** Limits given to new API keys. `DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE` (60), `DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE` (10). */
  defaultQuoteRateLimitPerMinute: number;
  defaultSwapRateLimitPerMinute: number;
  /** Upper bound of requested_max_fee_bps. `MAX_FEE_BPS`, default 1000 (10%). */
  maxFeeBps: number;
  /**
   * Cap on the fees a quote takes from the output: the platform's own (none today) plus the
   * integrator's `fee_bps`, whatever the key's cap. `MAX_COMBINED_FEE_BPS`, default 100, as the live service.
   */
  maxCombinedFeeBps: number;
  /** EIP-4361 domain of nonce messages. `SIWE_DOMAIN`, default localhost. */
  siweDomain: string;
  /** EIP-4361 URI of nonce messages. `SIWE_URI`, default `http://<SIWE_DOMAIN>`. */
  siweUri: string;
  /** The one chain this API serves. `CHAIN_ID`, default 4663. */
  chainId: number;
  /**
   * JSON-RPC endpoint of the default chain: quote-time reads, and verification of contract-wallet
   * signatures. `RPC_URL`, default the devnet's `http://<DEVNET_HOST>:<DEVNET_PORT>` (http://127.0.0.1:8545).
   */
  rpcUrl: string;
  /**
   * Several JSON-RPC endpoints of the default chain for its reads: `RPC_URLS`, comma-separated, at most
   * 8, instead of RPC_URL (refused together). Each request goes to the best-ranked endpoint (latency,
   * requests without an answer, head height) and fails over to the next when it gets no answer; one
   * whose head is more than RPC_MAX_HEAD_LAG_BLOCKS behind the others is set aside until it catches up.
   * API_CHAINS' chains keep one URL each. Default: RPC_URL alone.
   */
  rpcUrls: readonly string[];
  /** With several RPC_URLS, an endpoint more than this many blocks behind the highest head is set aside. `RPC_MAX_HEAD_LAG_BLOCKS`, default 3. */
  rpcMaxHeadLagBlocks: number;
  /** With several RPC_URLS, how often each endpoint's head is read to rank them. `RPC_PROBE_MS`, default 1000. */
  rpcProbeMs: number;
  /** Folder of deployment manifests; the default chain's is `<dir>/<CHAIN_ID>.json`. `DEPLOYMENTS_DIR`, default deployments. */
  deploymentsDir: string;
  /**
   * Chains served besides the default one. `API_CHAINS`, a JSON array of `{"chainId", "rpcUrl",
   * "manifest"}` (manifest: a file path); default none. The default chain is always served.
   */
  additionalChains: readonly AdditionalChain[];
  /** GET /tokens/supported-tokens requests per client IP per minute. `SNAPSHOT_RATE_LIMIT_PER_MINUTE`, default 120. */
  snapshotRateLimitPerMinute: number;
  /** Requests per client IP per minute on each onboarding endpoint. `ONBOARDING_RATE_LIMIT_PER_MINUTE`, default 120. */
  onboardingRateLimitPerMinute: number;
  /** POST /integrators/nonce requests per wallet per minute (each stores a challenge). `ONBOARDING_WALLET_RATE_LIMIT_PER_MINUTE`, default 30. */
  onboardingWalletRateLimitPerMinute: number;
  /**
   * Gas given to a contract wallet's ERC-1271 `isValidSignature` call (an eth_call of code the
   * requester chose). `ONBOARDING_1271_GAS`, default 300000.
   */
  onboarding1271Gas: number;
  /** How long that call may take before the answer is 503 signature_verification_unavailable. `ONBOARDING_1271_TIMEOUT_MS`, default 3000. */
  onboarding1271TimeoutMs: number;
  /** How often the running API re-reads operator and promotion changes from the database. `SNAPSHOT_REFRESH_SECONDS`, default 5. */
  snapshotRefreshSeconds: number;
  /** How often buffered unsupported-token demand is written to the database. `DEMAND_FLUSH_SECONDS`, default 5. */
  demandFlushSeconds: number;
  /** Most (chain, token, integrator) observations buffered between flushes; more are dropped and counted. `DEMAND_MAX_TRACKED`, default 10000. */
  demandMaxTracked: number;
  /** Distinct integrators that must ask for a token within the window to promote it. `PROMOTION_MIN_INTEGRATORS`, default 3. */
  promotionMinIntegrators: number;
  /** The demand window. `PROMOTION_WINDOW_HOURS`, default 24. */
  promotionWindowHours: number;
  /**
   * Least value of the known side of a promoted token's pool, in whole WETH (the known token valued at
   * its manifest pool's spot price against WETH). `PROMOTION_MIN_LIQUIDITY_WETH`, default 1.
   */
  promotionMinLiquidityWeth: string;
  /**
   * A token that failed its on-chain checks is checked again after this long at the earliest, and a
   * promoted token's checks (its pool's liquidity) are run again this often: one below the minimum is
   * demoted. `PROMOTION_RECHECK_MINUTES`, default 10.
   */
  promotionRecheckMinutes: number;
  /** Lifetime of a quote (its `expires_at` and permit deadline). `QUOTE_TTL_SECONDS`, default 300. */
  quoteTtlSeconds: number;
  /** The `quote_probe` bucket allows this many times the key's quote_rate_limit_per_minute. `QUOTE_PROBE_MULTIPLIER`, default 10. */
  quoteProbeMultiplier: number;
  /**
   * A key's GET /gasless/status reads per minute are this many times its swap_rate_limit_per_minute
   * (its `status_rate_limit_per_minute`). `STATUS_RATE_LIMIT_MULTIPLIER`, default 10.
   */
  statusRateLimitMultiplier: number;
  /**
   * A key's GET /price requests per minute (its `price_rate_limit_per_minute`) are this many times its
   * quote_rate_limit_per_minute. `PRICE_RATE_LIMIT_MULTIPLIER`, default 5.
   */
  priceRateLimitMultiplier: number;
  /** The L1 data cost network_fee and relayer fees add (`arbitrum`: ArbGasInfo), or none. `L1_FEE_MODEL`, default none. */
  l1FeeModel: L1FeeModel;
  /** Gasless trading; absent when `RELAYER_INTERNAL_TOKEN` or `RELAYER_FEE_RECIPIENT` is unset (gasless requests then get 503). */
  gasless: GaslessConfig | undefined;
  /** Webhook registration and server-sent events (docs/integrators/webhooks-and-events.md). */
  pushed: PushedStatusApiConfig;
}>;

export type PushedStatusApiConfig = Readonly<{
  /**
   * A webhook URL may be plain http on a loopback host (127.0.0.0/8, ::1, localhost), and https on
   * one too; otherwise only https to a public host. `WEBHOOK_ALLOW_LOOPBACK_HTTP`, default true on the
   * devnet (CHAIN_ID 4663), false elsewhere.
   */
  allowLoopbackWebhooks: boolean;
  /** Open GET /gasless/events streams per API key and API process; one more gets 429 too_many_streams. `SSE_MAX_STREAMS_PER_KEY`, default 5. */
  maxStreamsPerKey: number;
  /**
   * Open streams per integrator (all its keys together) and API process; one more gets 429
   * too_many_integrator_streams. `SSE_MAX_STREAMS_PER_INTEGRATOR`, default 10.
   */
  maxStreamsPerIntegrator: number;
  /** Open streams per API process, all integrators together; one more gets 503 stream_capacity_reached. `SSE_MAX_STREAMS`, default 1000. */
  maxStreams: number;
  /**
   * A stream is ended by the server after this long (a final `stream.end` event carries the id to
   * resume from): the client reconnects with Last-Event-ID and loses or repeats nothing, and no stream
   * holds its place for ever. `SSE_MAX_LIFETIME_SECONDS`, default 300.
   */
  maxLifetimeSeconds: number;
  /** A comment line is sent on an idle stream this often, so proxies keep it open. `SSE_KEEPALIVE_SECONDS`, default 15. */
  keepAliveSeconds: number;
}>;

/** How the API prices gasless quotes and reaches the relayer. */
export type GaslessConfig = Readonly<{
  /**
   * The relayers' internal endpoints, tried in turn (round-robin; an unreachable one is skipped): with
   * PostgreSQL every relayer sees every relay. `RELAYER_URL`, comma-separated, default http://127.0.0.1:8090.
   */
  relayerUrls: readonly string[];
  /** Shared secret presented to the relayer. `RELAYER_INTERNAL_TOKEN`. */
  relayerToken: string;
  /** The relayer operator's address that receives the fee, signed by the taker. `RELAYER_FEE_RECIPIENT`. */
  feeRecipient: Address;
  /** Added to the fee's gas cost, in bps. `RELAYER_FEE_MARGIN_BPS`, default 2000 (20 %). */
  feeMarginBps: number;
  /** The operator pays the gas: every relayer fee is zero. `RELAYER_SPONSOR_GAS`, default false. */
  sponsorGas: boolean;
  /** Tip the relayer pays above the base fee, in wei (the fee prices it). `RELAYER_PRIORITY_FEE_GWEI`, default 1. */
  priorityFeeWei: bigint;
  /**
   * How long the relayer's answer about a taker's and an integrator's gas budgets is reused before
   * the next gasless quote asks again. `RELAYER_STANDING_CACHE_MS`, default 5000.
   */
  standingCacheMs: number;
  /**
   * Tokens the relayer takes its fee in, so the only tokens a gasless quote may sell: addresses or
   * manifest symbols (`acceptedFeeTokens`). `RELAYER_FEE_TOKENS`, comma-separated; default (undefined)
   * every token of the chain's manifest.
   */
  feeTokens?: readonly string[] | undefined;
}>;

/** Reads the API's settings from the environment once; an invalid value stops the start with its name. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = apiEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? ""}`);
  }
  const values = parsed.data;
  const siweUri = values.SIWE_URI ?? `http://${values.SIWE_DOMAIN}`;
  assertSiweSettings(values.SIWE_DOMAIN, siweUri);
  const reads = readEndpointConfigOf(values, devnetRpcUrl(env));
  return {
    host: values.API_HOST,
    port: values.API_PORT,
    httpLimits: httpServerLimitsOf(values),
    trustProxy: values.API_TRUST_PROXY,
    metrics: values.METRICS_PORT === undefined ? undefined : { host: values.METRICS_HOST, port: values.METRICS_PORT },
    dbPath: resolve(values.API_DB_PATH),
    databaseUrl: values.DATABASE_URL,
    logLevel: values.API_LOG_LEVEL,
    maxBodyBytes: values.API_MAX_BODY_BYTES,
    nonceTtlSeconds: values.NONCE_TTL_SECONDS,
    autoApprove: values.AUTO_APPROVE,
    maxApiKeysPerIntegrator: values.MAX_API_KEYS_PER_INTEGRATOR,
    defaultQuoteRateLimitPerMinute: values.DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE,
    defaultSwapRateLimitPerMinute: values.DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE,
    maxFeeBps: values.MAX_FEE_BPS,
    maxCombinedFeeBps: values.MAX_COMBINED_FEE_BPS,
    siweDomain: values.SIWE_DOMAIN,
    siweUri,
    chainId: values.CHAIN_ID,
    rpcUrl: reads.rpcUrls[0]!,
    ...reads,
    deploymentsDir: resolve(values.DEPLOYMENTS_DIR),
    additionalChains: additionalChainsOf(values.CHAIN_ID, values.API_CHAINS),
    snapshotRateLimitPerMinute: values.SNAPSHOT_RATE_LIMIT_PER_MINUTE,
    onboardingRateLimitPerMinute: values.ONBOARDING_RATE_LIMIT_PER_MINUTE,
    onboardingWalletRateLimitPerMinute: values.ONBOARDING_WALLET_RATE_LIMIT_PER_MINUTE,
    onboarding1271Gas: values.ONBOARDING_1271_GAS,
    onboarding1271TimeoutMs: values.ONBOARDING_1271_TIMEOUT_MS,
    snapshotRefreshSeconds: values.SNAPSHOT_REFRESH_SECONDS,
    demandFlushSeconds: values.DEMAND_FLUSH_SECONDS,
    demandMaxTracked: values.DEMAND_MAX_TRACKED,
    promotionMinIntegrators: values.PROMOTION_MIN_INTEGRATORS,
    promotionWindowHours: values.PROMOTION_WINDOW_HOURS,
    promotionMinLiquidityWeth: values.PROMOTION_MIN_LIQUIDITY_WETH,
    promotionRecheckMinutes: values.PROMOTION_RECHECK_MINUTES,
    quoteTtlSeconds: values.QUOTE_TTL_SECONDS,
    quoteProbeMultiplier: values.QUOTE_PROBE_MULTIPLIER,
    statusRateLimitMultiplier: values.STATUS_RATE_LIMIT_MULTIPLIER,
    priceRateLimitMultiplier: values.PRICE_RATE_LIMIT_MULTIPLIER,
    l1FeeModel: values.L1_FEE_MODEL,
    pushed: {
      allowLoopbackWebhooks: webhookLoopbackAllowed(values),
      maxStreamsPerKey: values.SSE_MAX_STREAMS_PER_KEY,
      maxStreamsPerIntegrator: values.SSE_MAX_STREAMS_PER_INTEGRATOR,
      maxStreams: values.SSE_MAX_STREAMS,
      maxLifetimeSeconds: values.SSE_MAX_LIFETIME_SECONDS,
      keepAliveSeconds: values.SSE_KEEPALIVE_SECONDS,
    },
    gasless:
      values.RELAYER_INTERNAL_TOKEN === undefined || values.RELAYER_FEE_RECIPIENT === undefined
        ? undefined
        : {
            relayerUrls: values.RELAYER_URL,
            relayerToken: values.RELAYER_INTERNAL_TOKEN,
            feeRecipient: values.RELAYER_FEE_RECIPIENT,
            feeMarginBps: values.RELAYER_FEE_MARGIN_BPS,
            sponsorGas: values.RELAYER_SPONSOR_GAS,
            priorityFeeWei: parseUnits(values.RELAYER_PRIORITY_FEE_GWEI, 9),
            standingCacheMs: values.RELAYER_STANDING_CACHE_MS,
            feeTokens: values.RELAYER_FEE_TOKENS,
          },
  };
}

/** Each chain once: a second entry for a chain (or one for the default chain) is a configuration error. */
function additionalChainsOf(defaultChainId: number, entries: readonly z.output<typeof additionalChain>[]): AdditionalChain[] {
  const seen = new Set([defaultChainId]);
  return entries.map((entry, index) => {
    if (seen.has(entry.chainId)) {
      throw new Error(`invalid API_CHAINS.${index}.chainId: chain ${entry.chainId} is configured twice (CHAIN_ID is always served)`);
    }
    seen.add(entry.chainId);
    return { chainId: entry.chainId, rpcUrl: entry.rpcUrl, manifestPath: resolve(entry.manifest) };
  });
}

/** Fails at start, not at the first nonce request, when EIP-4361 would refuse the domain or URI. */
function assertSiweSettings(domain: string, uri: string): void {
  try {
    createOnboardingMessage({
      domain,
      uri,
      wallet: zeroAddress,
      chainId: 1,
      action: OnboardingAction.ViewProfile,
      nonce: "configcheck",
      issuedAt: new Date(0),
      expirationTime: new Date(1),
    });
  } catch {
    throw new Error(`invalid SIWE_DOMAIN (${domain}) or SIWE_URI (${uri}): the domain must be an RFC 3986 authority such as localhost:8080 and the URI an RFC 3986 URI`);
  }
}
