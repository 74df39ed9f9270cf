import { resolve } from "node:path";
import { z } from "zod";
import { zeroAddress } from "viem";
import { createOnboardingMessage, DEVNET_CHAIN_ID, DEVNET_DEFAULT_HOST, DEVNET_DEFAULT_RPC_PORT, OnboardingAction } from "../sdk";

/** `true`/`false`/`1`/`0` (any case); anything else is a configuration error, not a silent false. */
const booleanFlag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(["true", "false", "1", "0"]))
  .transform((value) => value === "true" || value === "1");

const positiveInt = z.coerce.number().int().positive();

const schema = z.object({
  API_HOST: z.string().min(1).default("127.0.0.1"),
  API_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  API_DB_PATH: z.string().min(1).default("data/api.sqlite"),
  API_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  API_MAX_BODY_BYTES: positiveInt.default(16_384),
  NONCE_TTL_SECONDS: positiveInt.default(600),
  AUTO_APPROVE: booleanFlag.default(true),
  DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE: positiveInt.default(10),
  MAX_FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(1000),
  SIWE_DOMAIN: z.string().min(1).default("localhost"),
  SIWE_URI: z.string().min(1).optional(),
  CHAIN_ID: positiveInt.default(DEVNET_CHAIN_ID),
  RPC_URL: z.url({ protocol: /^https?$/ }).default(`http://${DEVNET_DEFAULT_HOST}:${DEVNET_DEFAULT_RPC_PORT}`),
});

/** The API's settings, parsed once at start and passed in; no handler reads the environment. */
export type ApiConfig = Readonly<{
  /** Interface the HTTP server binds to. `API_HOST`, default 127.0.0.1. */
  host: string;
  /** HTTP port; 0 picks a free one. `API_PORT`, default 8080. */
  port: number;
  /** SQLite database file (created with its folder). `API_DB_PATH`, default data/api.sqlite. */
  dbPath: string;
  /** pino level. `API_LOG_LEVEL`, default info. */
  logLevel: string;
  /** Largest accepted request body; larger ones get 413. `API_MAX_BODY_BYTES`, default 16384. */
  maxBodyBytes: number;
  /** Lifetime of an onboarding nonce. `NONCE_TTL_SECONDS`, default 600. */
  nonceTtlSeconds: number;
  /** New applications are `active` at once when true, else `pending` until approved. `AUTO_APPROVE`, default true. */
  autoApprove: boolean;
  /** Limits given to new API keys. `DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE` (60), `DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE` (10). */
  defaultQuoteRateLimitPerMinute: number;
  defaultSwapRateLimitPerMinute: number;
  /** Upper bound of requested_max_fee_bps. `MAX_FEE_BPS`, default 1000 (10%). */
  maxFeeBps: number;
  /** EIP-4361 domain of nonce messages. `SIWE_DOMAIN`, default localhost. */
  siweDomain: string;
  /** EIP-4361 URI of nonce messages. `SIWE_URI`, default `http://<SIWE_DOMAIN>`. */
  siweUri: string;
  /** The one chain this API serves. `CHAIN_ID`, default 4663. */
  chainId: number;
  /** JSON-RPC endpoint used to verify contract-wallet signatures. `RPC_URL`, default http://127.0.0.1:8545. */
  rpcUrl: string;
}>;

/** Reads the API's settings from the environment once; an invalid value stops the start with its name. */
export function loadApiConfig(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? ""}`);
  }
  const values = parsed.data;
  const siweUri = values.SIWE_URI ?? `http://${values.SIWE_DOMAIN}`;
  assertSiweSettings(values.SIWE_DOMAIN, siweUri);
  return {
    host: values.API_HOST,
    port: values.API_PORT,
    dbPath: resolve(values.API_DB_PATH),
    logLevel: values.API_LOG_LEVEL,
    maxBodyBytes: values.API_MAX_BODY_BYTES,
    nonceTtlSeconds: values.NONCE_TTL_SECONDS,
    autoApprove: values.AUTO_APPROVE,
    defaultQuoteRateLimitPerMinute: values.DEFAULT_QUOTE_RATE_LIMIT_PER_MINUTE,
    defaultSwapRateLimitPerMinute: values.DEFAULT_SWAP_RATE_LIMIT_PER_MINUTE,
    maxFeeBps: values.MAX_FEE_BPS,
    siweDomain: values.SIWE_DOMAIN,
    siweUri,
    chainId: values.CHAIN_ID,
    rpcUrl: values.RPC_URL,
  };
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
