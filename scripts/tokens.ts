/**
 * Operator CLI for the supported-token set, on the API's database (PostgreSQL at DATABASE_URL when set,
 * else the SQLite file API_DB_PATH, default data/api.sqlite):
 *
 *   npm run tokens -- list [--chain N]               supported tokens (manifest, promoted, enabled), disabled and demoted ones, with why
 *   npm run tokens -- demand [--chain N]             unsupported-token demand within PROMOTION_WINDOW_HOURS (all and operator-approved integrators)
 *   npm run tokens -- enable <address> [--chain N]   add a token after the on-chain checks promotion uses
 *   npm run tokens -- disable <address> [--chain N]  remove a token from the set
 *
 * `--chain` defaults to CHAIN_ID. Every command reads the chain's deployment manifest (DEPLOYMENTS_DIR,
 * or API_CHAINS for other chains) and only shows and applies decisions of the chain run it describes;
 * `enable` (and `disable`, for the token's symbol) also reads the chain over its RPC (RPC_URL, or
 * API_CHAINS). The running API picks changes up within SNAPSHOT_REFRESH_SECONDS: every write is
 * one transaction (SQLite is in WAL mode).
 */
import { parseArgs } from "node:util";
import { erc20Abi, isAddress, parseUnits, type Address, type PublicClient } from "viem";
import { isNativeToken, type DeploymentManifest } from "../sdk";
import { createChainClient, readChainManifest, servedChainEndpoints, type ChainEndpoint } from "../api/chains/loadChains";
import { loadApiConfig, type ApiConfig } from "../api/config";
import { openStore } from "../api/store/openStore";
import type { Store, TokenDemandSummary, TokenOverride } from "../api/store/store";
import { ChainSupportedTokens } from "../api/tokens/chainSupportedTokens";
import { checkTokenOnChain } from "../api/tokens/tokenOnChainCheck";
import { isTaxed, type TransferTax } from "../api/tokens/transferTax";
import { openApiDatabase } from "./apiDatabase";
import { printTable } from "./textTable";

const USAGE = "usage: npm run tokens -- list [--chain N] | demand [--chain N] | enable <address> [--chain N] | disable <address> [--chain N]";

export type TokensCommandContext = Readonly<{
  store: Store;
  config: ApiConfig;
  print: (line: string) => void;
  now: Date;
  /** The client `enable` reads the chain with; by default a JSON-RPC client on the chain's configured URL. */
  connect?: (endpoint: ChainEndpoint) => PublicClient;
}>;

/** Runs one command and returns the process exit code (0 done, 1 refused, 2 usage). */
export async function runTokensCommand(args: readonly string[], context: TokensCommandContext): Promise<number> {
  let parsed: { positionals: string[]; chain: string | undefined };
  try {
    const { positionals, values } = parseArgs({ args: [...args], options: { chain: { type: "string" } }, allowPositionals: true, strict: true });
    parsed = { positionals, chain: values.chain };
  } catch (error) {
    context.print(error instanceof Error ? error.message : String(error));
    context.print(USAGE);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  const endpoints = servedChainEndpoints(context.config);
  let endpoint: ChainEndpoint | undefined;
  if (parsed.chain !== undefined) {
    endpoint = /^[1-9][0-9]{0,15}$/.test(parsed.chain) ? endpoints.find((candidate) => candidate.chainId === Number(parsed.chain)) : undefined;
    if (endpoint === undefined) {
      context.print(`--chain ${parsed.chain} is not a configured chain (configured: ${endpoints.map((candidate) => candidate.chainId).join(", ")})`);
      return 2;
    }
  }

  if (command === "list" && rest.length === 0) return list(context, endpoint ? [endpoint] : endpoints);
  if (command === "demand" && rest.length === 0) return demand(context, endpoint?.chainId);
  if ((command === "enable" || command === "disable") && rest.length === 1) {
    const token = rest[0]!;
    if (!isAddress(token, { strict: false })) {
      context.print(`${token} is not a token address (0x + 40 hex digits)`);
      return 2;
    }
    const target = endpoint ?? endpoints[0]!;
    const address = token.toLowerCase() as Address;
    return command === "enable" ? enable(context, target, address) : disable(context, target, address);
  }
  context.print(USAGE);
  return 2;
}

async function list(context: TokensCommandContext, endpoints: readonly ChainEndpoint[]): Promise<number> {
  const rows: string[][] = [["CHAIN", "TOKEN", "SYMBOL", "DECIMALS", "STATUS", "POOL", "UPDATED", "REASON"]];
  for (const endpoint of endpoints) {
    const stored = await context.store.listTokenOverrides(endpoint.chainId);
    const manifest = readManifestOrReport(context, endpoint);
    // Without a manifest the chain run is unknown: every stored decision is listed as it is.
    const overrides = manifest === undefined ? stored : decisionsOfRun(stored, manifest);
    if (manifest !== undefined) {
      const set = new ChainSupportedTokens(endpoint.chainId, manifest, overrides);
      const decided = new Map(overrides.map((override) => [override.token, override]));
      for (const entry of set.entries()) {
        const override = decided.get(entry.address);
        rows.push([
          String(endpoint.chainId),
          entry.address,
          entry.symbol,
          String(entry.decimals),
          entry.origin,
          override?.pool?.address ?? "",
          override?.updatedAt.toISOString() ?? "",
          override?.reason ?? "",
        ]);
      }
    }
    for (const override of overrides.filter((candidate) => candidate.status === "disabled" || manifest === undefined)) rows.push(overrideRow(override, manifest));
  }
  printTable(context.print, rows);
  return 0;
}

async function demand(context: TokensCommandContext, chainId: number | undefined): Promise<number> {
  const { config, store, now } = context;
  const since = new Date(now.getTime() - config.promotionWindowHours * 3_600_000);
  const summaries = await store.listTokenDemand({ chainId, since });
  // Promotion counts only integrators an operator approved or confirmed (`npm run integrators -- confirm`).
  const approved = new Map(
    (await store.listTokenDemand({ chainId, since, operatorApprovedOnly: true })).map((summary) => [`${summary.chainId}:${summary.token}`, summary.integrators]),
  );
  const approvedOf = (summary: TokenDemandSummary) => approved.get(`${summary.chainId}:${summary.token}`) ?? 0;
  context.print(
    `demand within the last ${config.promotionWindowHours} h; promotion needs ${config.promotionMinIntegrators} distinct operator-approved integrators and passing on-chain checks`,
  );
  if (summaries.length === 0) {
    context.print("no demand");
    return 0;
  }
  // The status is what the API's set would say now: the manifest plus this run's decisions.
  const overrides = await store.listTokenOverrides(chainId);
  const sets = new Map<number, ChainSupportedTokens>();
  for (const endpoint of servedChainEndpoints(config)) {
    if (chainId !== undefined && endpoint.chainId !== chainId) continue;
    const manifest = readManifestOrReport(context, endpoint);
    if (manifest !== undefined) sets.set(endpoint.chainId, new ChainSupportedTokens(endpoint.chainId, manifest, decisionsOfRun(overrides, manifest)));
  }
  const statusOf = (summary: TokenDemandSummary): string => {
    const set = sets.get(summary.chainId);
    const supported = set?.entries().find((entry) => entry.address === summary.token);
    if (supported !== undefined) return `supported (${supported.origin})`;
    const decision = set === undefined ? overrides.find((override) => override.chainId === summary.chainId && override.token === summary.token) : undefined;
    const demoted = overrides.find(
      (override) => override.chainId === summary.chainId && override.token === summary.token && override.status === "disabled" && override.source === "demand",
    );
    if (demoted !== undefined && (set === undefined || set.disabledAddresses().includes(summary.token))) return `demoted (${demoted.reason ?? "no reason recorded"})`;
    if (decision !== undefined || (set !== undefined && set.disabledAddresses().includes(summary.token))) return "disabled";
    if (approvedOf(summary) >= config.promotionMinIntegrators) return "due for checks";
    return summary.integrators >= config.promotionMinIntegrators ? "unsupported (too few operator-approved integrators)" : "unsupported";
  };
  const rows = [
    ["CHAIN", "TOKEN", "INTEGRATORS", "APPROVED", "FIRST_SEEN", "LAST_SEEN", "STATUS"],
    ...summaries.map((summary) => [
      String(summary.chainId),
      summary.token,
      String(summary.integrators),
      String(approvedOf(summary)),
      summary.firstSeen.toISOString(),
      summary.lastSeen.toISOString(),
      statusOf(summary),
    ]),
  ];
  printTable(context.print, rows);
  return 0;
}

async function enable(context: TokensCommandContext, endpoint: ChainEndpoint, token: Address): Promise<number> {
  const { store, config, now, print } = context;
  if (isNativeToken(token)) {
    print("the native placeholder is always supported");
    return 0;
  }
  const manifest = readManifestOrReport(context, endpoint);
  if (manifest === undefined) return 1;
  const overrides = await store.listTokenOverrides(endpoint.chainId);
  const existing = overrides.find((override) => override.token === token);
  if (manifest.tokens.some((candidate) => candidate.address.toLowerCase() === token)) {
    if (existing?.status === "disabled") {
      await store.removeTokenOverride(endpoint.chainId, token);
      print(`re-enabled manifest token ${token} on chain ${endpoint.chainId}`);
    } else {
      print(`${token} is a manifest token of chain ${endpoint.chainId}; it is already supported`);
    }
    return 0;
  }
  const set = new ChainSupportedTokens(endpoint.chainId, manifest, overrides);
  const bases = set
    .entries()
    .filter((entry) => entry.origin === "manifest")
    .map((entry) => entry.address);
  const client = connectTo(context, endpoint);
  // Say which URL failed, rather than a check result that blames the token.
  const reachable = await client.getChainId().then(
    () => true,
    () => false,
  );
  if (!reachable) {
    print(`cannot reach chain ${endpoint.chainId} at ${endpoint.rpcUrl}; start the devnet with npm start, or set RPC_URL (API_CHAINS for other chains)`);
    return 1;
  }
  const check = await checkTokenOnChain({ client, manifest, token, bases, minLiquidityWei: parseUnits(config.promotionMinLiquidityWeth, 18) });
  if (!check.ok) {
    print(`not enabled: ${token} ${check.reason}`);
    return 1;
  }
  await store.saveTokenOverride(
    {
      chainId: endpoint.chainId,
      token,
      status: "enabled",
      source: "operator",
      symbol: check.symbol,
      decimals: check.decimals,
      pool: check.pool,
      tax: check.tax,
      reason: "enabled by the operator",
      chainRun: manifest.deployBlockHash,
      at: now,
    },
    "replace",
  );
  print(`enabled ${token} (${check.symbol}, ${check.decimals} decimals) on chain ${endpoint.chainId}, routed through pool ${check.pool.address}${taxNote(check.tax)}`);
  return 0;
}

async function disable(context: TokensCommandContext, endpoint: ChainEndpoint, token: Address): Promise<number> {
  const { store, now, print } = context;
  if (isNativeToken(token)) {
    print("refused: the native placeholder cannot be disabled");
    return 1;
  }
  const manifest = readManifestOrReport(context, endpoint);
  // The decision belongs to the chain run the manifest describes.
  if (manifest === undefined) return 1;
  // Native sells and buys route through WETH; without it the native placeholder would be listed but unroutable.
  if (manifest.contracts.weth.toLowerCase() === token) {
    print("refused: WETH carries every native-asset route and cannot be disabled");
    return 1;
  }
  const described = await describeToken(context, endpoint, manifest, token);
  await store.saveTokenOverride(
    {
      chainId: endpoint.chainId,
      token,
      status: "disabled",
      source: "operator",
      symbol: described.symbol,
      decimals: described.decimals,
      pool: undefined,
      reason: "disabled by the operator",
      chainRun: manifest.deployBlockHash,
      at: now,
    },
    "replace",
  );
  const wasManifest = manifest.tokens.some((candidate) => candidate.address.toLowerCase() === token);
  print(`disabled ${token} on chain ${endpoint.chainId}${wasManifest ? " (a manifest token: `enable` restores it)" : ""}`);
  return 0;
}

/**
 * The symbol and decimals a disabled token is listed with: the manifest's, an earlier decision's, or
 * read from the chain. Best effort: disabling must work for a token that is broken or unreachable.
 */
async function describeToken(
  context: TokensCommandContext,
  endpoint: ChainEndpoint,
  manifest: DeploymentManifest,
  token: Address,
): Promise<{ symbol: string | undefined; decimals: number | undefined }> {
  const known = manifest.tokens.find((candidate) => candidate.address.toLowerCase() === token);
  if (known !== undefined) return { symbol: known.symbol, decimals: known.decimals };
  const earlier = (await context.store.listTokenOverrides(endpoint.chainId)).find((override) => override.token === token && override.symbol !== undefined);
  if (earlier !== undefined) return { symbol: earlier.symbol, decimals: earlier.decimals };
  const client = connectTo(context, endpoint);
  const [symbol, decimals] = await Promise.all([
    client.readContract({ address: token, abi: erc20Abi, functionName: "symbol" }).catch(() => undefined),
    client.readContract({ address: token, abi: erc20Abi, functionName: "decimals" }).catch(() => undefined),
  ]);
  return { symbol, decimals };
}

function connectTo(context: TokensCommandContext, endpoint: ChainEndpoint): PublicClient {
  return (context.connect ?? ((target: ChainEndpoint) => createChainClient(target.chainId, target.rpcUrl)))(endpoint);
}

function readManifestOrReport(context: TokensCommandContext, endpoint: ChainEndpoint): DeploymentManifest | undefined {
  try {
    return readChainManifest(endpoint);
  } catch (error) {
    context.print(error instanceof Error ? error.message : String(error));
    return undefined;
  }
}

/** The decisions made on the chain run `manifest` describes; those of earlier runs no longer apply. */
function decisionsOfRun(overrides: readonly TokenOverride[], manifest: DeploymentManifest): TokenOverride[] {
  return overrides.filter((override) => override.chainRun?.toLowerCase() === manifest.deployBlockHash.toLowerCase());
}

/** A decision as a row; a disabled manifest token shows its manifest symbol and decimals, a demoted one why. */
function overrideRow(override: TokenOverride, manifest: DeploymentManifest | undefined): string[] {
  const known = manifest?.tokens.find((token) => token.address.toLowerCase() === override.token);
  const symbol = known?.symbol ?? override.symbol;
  const decimals = known?.decimals ?? override.decimals;
  return [
    String(override.chainId),
    override.token,
    symbol ?? "?",
    decimals === undefined ? "?" : String(decimals),
    // Disabled by the recheck of a promoted token rather than by the operator.
    override.status === "disabled" && override.source === "demand" ? "demoted" : override.status,
    override.pool?.address ?? "",
    override.updatedAt.toISOString(),
    override.reason ?? "",
  ];
}

async function main(): Promise<void> {
  const config = loadApiConfig();
  const store = await openApiDatabase(config, () => openStore(config));
  try {
    process.exitCode = await runTokensCommand(process.argv.slice(2), { store, config, print: (line) => process.stdout.write(`${line}\n`), now: new Date() });
  } finally {
    await store.close();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error("tokens:", error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}

/** What `enable` says of a taxed token: its taxes, and that sells of it are refused. */
function taxNote(tax: TransferTax): string {
  if (!isTaxed(tax)) return "";
  return `; it taxes transfers (buy ${tax.buyTaxBps} bps, sell ${tax.sellTaxBps} bps, transfer ${tax.transferTaxBps} bps): quotes selling it are refused with token_taxed`;
}
