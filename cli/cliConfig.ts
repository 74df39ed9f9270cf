import { existsSync } from "node:fs";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, isAddress, isHex, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createTradingClient, devnetApiUrl, devnetChain, devnetRpcUrl, manifestPath, readManifest, type DeploymentManifest, type TradingClient, type TradingWallet } from "../sdk";
import { CliError, ExitCode } from "./exitCodes";

/** Global options, as commander parses them. */
export type GlobalOptions = {
  apiUrl?: string;
  apiKey?: string;
  rpcUrl?: string;
  privateKey?: string;
  chainId?: string;
  registry?: string;
  feeRecipient?: string;
  deploymentsDir?: string;
  manifest?: string;
  json?: boolean;
  retries?: string;
  timeout?: string;
};

/**
 * Configuration, parsed once from flags, then the environment, then the devnet's defaults. The chain
 * and the API are found as every tool of the project finds them: `RPC_URL`, else the devnet's
 * `DEVNET_HOST`/`DEVNET_PORT`; `SWAP_API_URL`, else the API's `API_HOST`/`API_PORT`.
 */
export type CliConfig = Readonly<{
  apiUrl: string;
  apiKey: string | undefined;
  rpcUrl: string;
  privateKey: Hex | undefined;
  chainId: number;
  manifest: DeploymentManifest | undefined;
  registry: Address | undefined;
  allowanceHolder: Address | undefined;
  /** The integrator's fee recipient: the only address a quote's fee may go to (else the quote's own platform_fee.recipient). */
  feeRecipient: Address | undefined;
  json: boolean;
  retries: number;
  timeoutSeconds: number | undefined;
}>;

export const DEFAULTS = { apiUrl: devnetApiUrl({}), rpcUrl: devnetRpcUrl({}), chainId: 4663, deploymentsDir: "deployments" } as const;

function integer(name: string, text: string, min: number): number {
  if (!/^[0-9]+$/.test(text) || Number(text) < min) throw new CliError(`${name} must be an integer ≥ ${min}, got ${text}`, ExitCode.usage);
  return Number(text);
}

export function loadCliConfig(options: GlobalOptions, env: NodeJS.ProcessEnv): CliConfig {
  const chainId = integer("--chain-id", options.chainId ?? env.CHAIN_ID ?? String(DEFAULTS.chainId), 1);
  // One manifest named by its path (what the integrator examples use), else the chain's file in a folder.
  const named = options.manifest ?? env.DEPLOYMENT_MANIFEST;
  if (named !== undefined && !existsSync(named)) throw new CliError(`--manifest (DEPLOYMENT_MANIFEST) ${named} does not exist: pass the file npm start printed as "Manifest"`, ExitCode.usage);
  const deploymentsDir = options.deploymentsDir ?? env.DEPLOYMENTS_DIR ?? join(__dirname, "..", DEFAULTS.deploymentsDir);
  const file = named ?? manifestPath(deploymentsDir, chainId);
  const manifest = existsSync(file) ? readManifest(file) : undefined;
  const registry = options.registry ?? env.ROUTER_REGISTRY ?? manifest?.contracts.routerRegistry;
  if (registry !== undefined && !isAddress(registry)) throw new CliError(`--registry must be an address, got ${registry}`, ExitCode.usage);
  const feeRecipient = options.feeRecipient ?? env.SWAP_FEE_RECIPIENT;
  if (feeRecipient !== undefined && !isAddress(feeRecipient)) throw new CliError(`--fee-recipient must be an address, got ${feeRecipient}`, ExitCode.usage);
  const privateKey = options.privateKey ?? env.PRIVATE_KEY;
  if (privateKey !== undefined && !(isHex(privateKey) && privateKey.length === 66)) throw new CliError("PRIVATE_KEY (--private-key) must be 0x + 64 hex digits", ExitCode.usage);
  return {
    apiUrl: options.apiUrl ?? devnetApiUrl(env),
    apiKey: options.apiKey ?? env.SWAP_API_KEY,
    rpcUrl: options.rpcUrl ?? devnetRpcUrl(env),
    privateKey: privateKey as Hex | undefined,
    chainId,
    manifest,
    registry: registry as Address | undefined,
    allowanceHolder: manifest?.contracts.allowanceHolder,
    feeRecipient: feeRecipient as Address | undefined,
    json: options.json === true,
    retries: integer("--retries", options.retries ?? "3", 0),
    timeoutSeconds: options.timeout === undefined ? undefined : integer("--timeout", options.timeout, 1),
  };
}

export function publicClientOf(config: CliConfig) {
  return createPublicClient({ chain: { ...devnetChain, id: config.chainId }, transport: http(config.rpcUrl, { retryCount: 0 }) });
}

export function walletOf(config: CliConfig): TradingWallet {
  if (config.privateKey === undefined) throw new CliError("this command signs: set PRIVATE_KEY (or pass --private-key)", ExitCode.usage);
  return createWalletClient({ account: privateKeyToAccount(config.privateKey), chain: { ...devnetChain, id: config.chainId }, transport: http(config.rpcUrl, { retryCount: 0 }) });
}

export function clientOf(config: CliConfig, log: (message: string) => void): TradingClient {
  return createTradingClient({
    apiUrl: config.apiUrl,
    apiKey: config.apiKey,
    chainId: config.chainId,
    publicClient: publicClientOf(config),
    contracts: config.registry === undefined ? undefined : { routerRegistry: config.registry, allowanceHolder: config.allowanceHolder },
    integratorFeeRecipient: config.feeRecipient,
    maxAttempts: config.retries + 1,
    requestTimeoutMs: config.timeoutSeconds === undefined ? undefined : config.timeoutSeconds * 1000,
    logger: { info: log, warn: log },
  });
}

/** A token argument: an address, "ETH", or a symbol the deployment manifest knows (else sent as is). */
export function resolveToken(config: CliConfig, token: string): string {
  if (isAddress(token, { strict: false }) || token.toUpperCase() === "ETH") return token;
  const known = config.manifest?.tokens.find((candidate) => candidate.symbol.toLowerCase() === token.toLowerCase());
  return known?.address ?? token;
}

/** The symbol of a token address when the manifest knows it. */
export function symbolOf(config: CliConfig, address: string): string {
  if (address.toLowerCase() === "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee") return "ETH";
  return config.manifest?.tokens.find((token) => token.address.toLowerCase() === address.toLowerCase())?.symbol ?? "";
}
