import { isIP } from "node:net";
import { resolve } from "node:path";
import { z } from "zod";
import { httpUrl } from "../sdk/config/httpUrl";
import { parseUnits, zeroAddress, type Address } from "viem";
import { booleanFlag } from "../sdk/config/booleanFlag";
import { environmentSchemaOf, readSettings, setting, settingsFrom, type SettingValues } from "../sdk/config/settingDeclaration";
import { webhookLoopbackAllowed, webhookLoopbackSettingDocs, webhookLoopbackSettings } from "../sdk/config/webhookLoopbackSetting";
import { httpServerLimitSettingDocs, httpServerLimitSettings, httpServerLimitsOf, type HttpServerLimits } from "../sdk/server/httpServerLimits";
import { createOnboardingMessage, DEVNET_CHAIN_ID, devnetRpcUrl, OnboardingAction, feeTokenListSchema } from "../sdk";
import { l1FeeModels, type L1FeeModel } from "../sdk/chain/networkFeeModel";
import { readEndpointConfigOf, readEndpointSettingDocs, readEndpointSettings } from "../sdk/config/readEndpointSettings";
import { positiveInt } from "../sdk/config/positiveInt";
import { logLevel } from "../sdk/config/logLevel";
import { postgresUrl } from "../sdk/config/postgresUrl";
import { portNumber } from "../sdk/config/portNumber";
import { gweiAmount } from "../sdk/config/gweiAmount";
import { addressField } from "../sdk/wire/addressField";

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
  rpcUrl: httpUrl,
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


/**
 * The API's environment, declared once: each variable's parser (with its default) and its meaning.
 * `loadApiConfig` parses them, `npm run docs:reference` lists them (docs/reference/environment.md).
 */
export const apiSettings = {
  API_HOST: setting(z.string().min(1).default("127.0.0.1"), "Interface the HTTP server binds to."),
  API_PORT: setting(portNumber.default(8080), "HTTP port; 0 picks a free one."),
  API_TRUST_PROXY: setting(
    trustProxy.default(false),
    "express's `trust proxy`: which hops in front of the API may name the client in X-Forwarded-For, for the per-IP limits: `false` (the socket's address), a hop count, or a comma-separated list of addresses / CIDR blocks / `loopback`, `linklocal`, `uniquelocal`. `true` is refused (any client could choose its address).",
  ),
  METRICS_HOST: setting(z.string().min(1).default("127.0.0.1"), "Interface GET /metrics is served on, when METRICS_PORT is set."),
  METRICS_PORT: setting(portNumber.optional(), "GET /metrics is served only on this port, apart from the public API (0 picks a free one); unset: not served."),
  API_DB_PATH: setting(z.string().min(1).default("data/api.sqlite"), "SQLite database file (created with its folder)."),
  DATABASE_URL: setting(
    postgresUrl.optional(),
    "PostgreSQL instead of the SQLite file (`postgres://…`): every API instance on this URL shares profiles, keys, quotes, token decisions and rate limits.",
  ),
  API_LOG_LEVEL: setting(logLevel.default("info"), "pino level."),
  API_MAX_BODY_BYTES: setting(positiveInt.default(16_384), "Largest accepted request body; larger ones get 413."),
  ...settingsFrom(httpServerLimitSettings, httpServerLimitSettingDocs),
  NONCE_TTL_SECONDS: setting(positiveInt.default(600), "Lifetime of an onboarding nonce."),
  AUTO_APPROVE: setting(
    booleanFlag.default(false),
    "New applications are `active` at once when true, else `pending` until approved. Either way only profiles an operator approved or confirmed count toward token promotion (`npm start` turns it on for the devnet).",
  ),
  DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: setting(positiveInt.default(60), "Quote requests per minute given to new API keys."),
  DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: setting(positiveInt.default(10), "Gasless submissions per minute given to new API keys."),
  MAX_FEE_BPS: setting(z.coerce.number().int().min(0).max(10_000).default(1000), "Upper bound of requested_max_fee_bps (1000: 10 %)."),
  MAX_COMBINED_FEE_BPS: setting(
    z.coerce.number().int().min(0).max(10_000).default(100),
    "Cap on the fees a quote takes from the output: the platform's own (none today) plus the integrator's `fee_bps`, whatever the key's cap; 100 as the live service.",
  ),
  SIWE_DOMAIN: setting(z.string().min(1).default("localhost"), "EIP-4361 domain of nonce messages (an RFC 3986 authority such as localhost:8080)."),
  SIWE_URI: setting(z.string().min(1).optional(), "EIP-4361 URI of nonce messages; unset: `http://<SIWE_DOMAIN>`."),
  CHAIN_ID: setting(positiveInt.default(DEVNET_CHAIN_ID), "The default chain this API serves."),
  ...settingsFrom(webhookLoopbackSettings, webhookLoopbackSettingDocs),
  SSE_MAX_STREAMS_PER_KEY: setting(positiveInt.max(1000).default(5), "Open GET /gasless/events streams per API key and API process; one more gets 429 too_many_streams."),
  SSE_MAX_STREAMS_PER_INTEGRATOR: setting(
    positiveInt.max(100_000).default(10),
    "Open streams per integrator (all its keys together) and API process; one more gets 429 too_many_integrator_streams.",
  ),
  SSE_MAX_STREAMS: setting(positiveInt.max(1_000_000).default(1000), "Open streams per API process, all integrators together; one more gets 503 stream_capacity_reached."),
  SSE_MAX_LIFETIME_SECONDS: setting(
    positiveInt.max(86_400).default(300),
    "A stream is ended by the server after this long (a final `stream.end` event carries the id to resume from): the client reconnects with Last-Event-ID and loses or repeats nothing, and no stream holds its place for ever.",
  ),
  MAX_API_KEYS_PER_INTEGRATOR: setting(
    positiveInt.max(10_000).default(10),
    "Keys a profile may hold that are not revoked; creating one more is refused (409 api_key_limit_reached). Every per-key limit (rate buckets, streams) is per key, so free keys would multiply them.",
  ),
  // At most 30: the relayer holds an event read open that long at most (its wait_ms bound).
  SSE_KEEPALIVE_SECONDS: setting(positiveInt.max(30).default(15), "A comment line is sent on an idle stream this often, so proxies keep it open."),
  RPC_URL: setting(
    httpUrl.optional(),
    "JSON-RPC endpoint of the default chain: quote-time reads, and verification of contract-wallet signatures. Unset: the devnet's `http://<DEVNET_HOST>:<DEVNET_PORT>` (http://127.0.0.1:8545), as every tool of the project defaults.",
  ),
  ...settingsFrom(readEndpointSettings, readEndpointSettingDocs),
  DEPLOYMENTS_DIR: setting(z.string().min(1).default("deployments"), "Folder of deployment manifests; the default chain's is `<dir>/<CHAIN_ID>.json`."),
  API_CHAINS: setting(
    additionalChains.default([]),
    'Chains served besides the default one (which is always served): a JSON array of `{"chainId", "rpcUrl", "manifest"}` (manifest: a file path).',
  ),
  SNAPSHOT_RATE_LIMIT_PER_MINUTE: setting(positiveInt.default(120), "GET /tokens/supported-tokens requests per client IP per minute."),
  ONBOARDING_RATE_LIMIT_PER_MINUTE: setting(positiveInt.default(120), "Requests per client IP per minute on each onboarding endpoint."),
  ONBOARDING_WALLET_RATE_LIMIT_PER_MINUTE: setting(positiveInt.default(30), "POST /integrators/nonce requests per wallet per minute (each stores a challenge)."),
  ONBOARDING_1271_GAS: setting(
    positiveInt.min(30_000).max(10_000_000).default(300_000),
    "Gas given to a contract wallet's ERC-1271 `isValidSignature` call (an eth_call of code the requester chose).",
  ),
  ONBOARDING_1271_TIMEOUT_MS: setting(positiveInt.max(60_000).default(3_000), "How long that call may take before the answer is 503 signature_verification_unavailable."),
  SNAPSHOT_REFRESH_SECONDS: setting(positiveInt.default(5), "How often the running API re-reads operator and promotion changes from the database."),
  DEMAND_FLUSH_SECONDS: setting(positiveInt.default(5), "How often buffered unsupported-token demand is written to the database."),
  DEMAND_MAX_TRACKED: setting(positiveInt.default(10_000), "Most (chain, token, integrator) observations buffered between flushes; more are dropped and counted."),
  PROMOTION_MIN_INTEGRATORS: setting(positiveInt.default(3), "Distinct integrators that must ask for a token within the window to promote it."),
  PROMOTION_WINDOW_HOURS: setting(positiveInt.default(24), "The demand window."),
  PROMOTION_MIN_LIQUIDITY_WETH: setting(
    decimalAmount.default("1"),
    "Least value of the known side of a promoted token's pool, in whole WETH (the known token valued at its manifest pool's spot price against WETH).",
  ),
  PROMOTION_RECHECK_MINUTES: setting(
    positiveInt.default(10),
    "A token that failed its on-chain checks is checked again after this long at the earliest, and a promoted token's checks (its pool's liquidity) are run again this often: one below the minimum is demoted.",
  ),
  QUOTE_TTL_SECONDS: setting(positiveInt.default(300), "Lifetime of a quote (its `expires_at` and permit deadline)."),
  // The spec allows the probe bucket "up to 10 times" the quote allowance.
  QUOTE_PROBE_MULTIPLIER: setting(positiveInt.max(10).default(10), "The `quote_probe` bucket allows this many times the key's quote_rate_limit_per_minute."),
  STATUS_RATE_LIMIT_MULTIPLIER: setting(
    positiveInt.max(1000).default(10),
    "A key's GET /gasless/status reads per minute are this many times its swap_rate_limit_per_minute (its `status_rate_limit_per_minute`).",
  ),
  PRICE_RATE_LIMIT_MULTIPLIER: setting(
    positiveInt.max(1000).default(5),
    "A key's GET /price requests per minute (its `price_rate_limit_per_minute`) are this many times its quote_rate_limit_per_minute.",
  ),
  L1_FEE_MODEL: setting(z.enum(l1FeeModels).default("none"), "The L1 data cost network_fee and relayer fees add (`arbitrum`: ArbGasInfo), or none."),
  RELAYER_URL: setting(
    z
      .string()
      .default("http://127.0.0.1:8090")
      .transform((text) => text.split(",").map((url) => url.trim().replace(/\/+$/, "")))
      .pipe(z.array(httpUrl).min(1)),
    "The relayers' internal endpoints, comma-separated, tried in turn (round-robin; an unreachable one is skipped): with PostgreSQL every relayer sees every relay.",
  ),
  RELAYER_INTERNAL_TOKEN: setting(
    z.string().min(16, "must be at least 16 characters (a shared secret with the relayer)").optional(),
    "Shared secret presented to the relayer. Gasless trading is off (its requests get 503) unless it and RELAYER_FEE_RECIPIENT are set.",
  ),
  RELAYER_FEE_RECIPIENT: setting(
    addressField.optional(),
    "The relayer operator's address that receives the fee, signed by the taker.",
  ),
  RELAYER_FEE_MARGIN_BPS: setting(z.coerce.number().int().min(0).max(100_000).default(2000), "Added to the fee's gas cost, in bps (2000: 20 %)."),
  RELAYER_SPONSOR_GAS: setting(booleanFlag.default(false), "The operator pays the gas: every relayer fee is zero."),
  RELAYER_FEE_TOKENS: setting(
    feeTokenListSchema.optional(),
    "Tokens the relayer takes its fee in, so the only tokens a gasless quote may sell: addresses or manifest symbols, comma-separated; unset: every token of the chain's manifest.",
  ),
  RELAYER_PRIORITY_FEE_GWEI: setting(
    gweiAmount.default("1"),
    "Tip the relayer pays above the base fee, in gwei (the fee prices it).",
  ),
  RELAYER_STANDING_CACHE_MS: setting(
    z.coerce.number().int().min(0).max(600_000).default(5000),
    "How long the relayer's answer about a taker's and an integrator's gas budgets is reused before the next gasless quote asks again.",
  ),
};

/** The API's environment as one zod object (the settings' parsers). */
export const apiEnvironmentSchema = environmentSchemaOf(apiSettings);

/** A chain served besides the default one (`API_CHAINS`). */
export type AdditionalChain = Readonly<{ chainId: number; rpcUrl: string; manifestPath: string }>;

/** The API's settings, parsed once at start and passed in; no handler reads the environment. What each means: `apiSettings`. */
export type ApiConfig = Readonly<Omit<ReturnType<typeof apiConfigOf>, "httpLimits" | "gasless"> & { httpLimits?: HttpServerLimits; gasless: GaslessConfig | undefined }>;

/** Webhook registration and server-sent events (docs/integrators/webhooks-and-events.md). */
export type PushedStatusApiConfig = ApiConfig["pushed"];

/** How the API prices gasless quotes and reaches the relayer; absent from ApiConfig unless RELAYER_INTERNAL_TOKEN and RELAYER_FEE_RECIPIENT are set. */
export type GaslessConfig = Readonly<Omit<NonNullable<ReturnType<typeof apiConfigOf>["gasless"]>, "feeTokens"> & { feeTokens?: readonly string[] | undefined }>;

/** Reads the API's settings from the environment once; invalid values stop the start, each named. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  return apiConfigOf(readSettings(apiSettings, env), env);
}

/** The settings as the API's parts take them: grouped, resolved against each other, and checked together. */
function apiConfigOf(values: SettingValues<typeof apiSettings>, env: NodeJS.ProcessEnv) {
  const siweUri = values.SIWE_URI ?? `http://${values.SIWE_DOMAIN}`;
  assertSiweSettings(values.SIWE_DOMAIN, siweUri);
  const reads = readEndpointConfigOf(values, devnetRpcUrl(env));
  return {
    host: values.API_HOST,
    port: values.API_PORT,
    httpLimits: httpServerLimitsOf(values),
    trustProxy: values.API_TRUST_PROXY as false | number | readonly string[],
    metrics: values.METRICS_PORT === undefined ? undefined : { host: values.METRICS_HOST, port: values.METRICS_PORT },
    dbPath: resolve(values.API_DB_PATH),
    databaseUrl: values.DATABASE_URL,
    logLevel: values.API_LOG_LEVEL as string,
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
    additionalChains: additionalChainsOf(values.CHAIN_ID, values.API_CHAINS) as readonly AdditionalChain[],
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
    l1FeeModel: values.L1_FEE_MODEL as L1FeeModel,
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
            relayerUrls: values.RELAYER_URL as readonly string[],
            relayerToken: values.RELAYER_INTERNAL_TOKEN,
            feeRecipient: values.RELAYER_FEE_RECIPIENT as Address,
            feeMarginBps: values.RELAYER_FEE_MARGIN_BPS,
            sponsorGas: values.RELAYER_SPONSOR_GAS,
            priorityFeeWei: parseUnits(values.RELAYER_PRIORITY_FEE_GWEI, 9),
            standingCacheMs: values.RELAYER_STANDING_CACHE_MS,
            feeTokens: values.RELAYER_FEE_TOKENS as readonly string[] | undefined,
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
