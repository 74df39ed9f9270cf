import type { Logger } from "pino";
import { parseUnits, type PublicClient } from "viem";
import type { DeploymentManifest } from "../../sdk";
import type { Clock } from "../clock";
import type { ApiConfig } from "../config";
import { DatabaseOutage, type DatabaseOutageMessages } from "../store/databaseOutage";
import type { Store } from "../store/store";
import { UnreadablePools } from "../quote/market/unreadablePools";
import { RouterVenuesOutage, type RouterVenuesOutageMetrics } from "../quote/venues/routerVenuesOutage";
import { BufferedDemandRecorder } from "../tokens/bufferedDemandRecorder";
import { ChainSupportedTokens } from "../tokens/chainSupportedTokens";
import { SupportedTokenJobs } from "../tokens/supportedTokenJobs";
import { PromotedTokenRecheck } from "../tokens/promotedTokenRecheck";
import { TokenPromoter } from "../tokens/tokenPromoter";
import { TokenTaxes } from "../tokens/tokenTaxes";
import type { ChainContext, ChainRegistry } from "./chainContext";
import { createChainRegistry } from "./chainRegistry";

/** What the supported-token jobs log, once each, when PostgreSQL goes out and comes back. */
const SUPPORTED_TOKEN_JOBS_OUTAGE: DatabaseOutageMessages = {
  down: "supported-token jobs cannot reach the database (PostgreSQL): demand stays buffered and token decisions unchanged until it answers again",
  up: "supported-token jobs reach the database again (PostgreSQL)",
};

/** One chain to serve: its id, a client for quote-time reads, and its deployment manifest. */
export type ChainSource = Readonly<{ chainId: number; client: PublicClient; manifest: DeploymentManifest; manifestPath?: string }>;

export type ServedChainsDependencies = Readonly<{
  config: Pick<
    ApiConfig,
    | "chainId"
    | "snapshotRefreshSeconds"
    | "demandFlushSeconds"
    | "demandMaxTracked"
    | "promotionMinIntegrators"
    | "promotionWindowHours"
    | "promotionMinLiquidityWeth"
    | "promotionRecheckMinutes"
  >;
  store: Store;
  logger: Logger;
  clock: Clock;
  /** Where each chain's RouterVenuesOutage counts (the API's metrics); none in tests that do not look. */
  routerVenuesMetrics?: RouterVenuesOutageMetrics;
}>;

/** The registry handlers read, the background jobs that keep it current, and the concrete token sets. */
export type ServedChains = Readonly<{
  registry: ChainRegistry;
  jobs: SupportedTokenJobs;
  recorder: BufferedDemandRecorder;
  promoter: TokenPromoter;
  recheck: PromotedTokenRecheck;
  tokens: ReadonlyMap<number, ChainSupportedTokens>;
  /** Each chain's transfer taxes; `measureAll` on each is started with the API, in the background. */
  taxes: ReadonlyMap<number, TokenTaxes>;
}>;

/**
 * Builds every chain's context: its supported set (manifest plus the decisions already stored), one
 * demand recorder shared by all chains (observations carry their chain), and the promoter and jobs.
 * Nothing is started: the caller starts `jobs` (and stops them before closing the store).
 */
export async function createServedChains(sources: readonly ChainSource[], deps: ServedChainsDependencies): Promise<ServedChains> {
  const { config, store, logger, clock } = deps;
  if (!sources.some((source) => source.chainId === config.chainId)) {
    throw new Error(`the default chain ${config.chainId} (CHAIN_ID) has no client and manifest`);
  }
  const overrides = await store.listTokenOverrides();
  const tokens = new Map<number, ChainSupportedTokens>();
  for (const source of sources) {
    if (source.manifest.chainId !== source.chainId) {
      throw new Error(`the manifest configured for chain ${source.chainId} describes chain ${source.manifest.chainId}`);
    }
    const set = new ChainSupportedTokens(source.chainId, source.manifest, overrides);
    const disabled = set.disabledManifestSymbols();
    if (disabled.length > 0) logger.warn({ chainId: source.chainId, disabled }, "manifest tokens disabled by the operator");
    tokens.set(source.chainId, set);
  }

  let jobs: SupportedTokenJobs | undefined;
  const outage = new DatabaseOutage(logger, SUPPORTED_TOKEN_JOBS_OUTAGE);
  const recorder = new BufferedDemandRecorder({
    store,
    logger,
    maxTracked: config.demandMaxTracked,
    // A full buffer flushes at once (and promotion follows), not at the next tick of the timer.
    onFlushWanted: () => setImmediate(() => jobs?.flushInBackground()),
    outage,
  });
  const taxes = new Map(sources.map((source) => [source.chainId, new TokenTaxes(source.client, tokens.get(source.chainId)!, logger.child({ chainId: source.chainId }))]));
  const contexts: ChainContext[] = sources.map((source) => ({
    chainId: source.chainId,
    client: source.client,
    manifest: source.manifest,
    manifestPath: source.manifestPath,
    tokens: tokens.get(source.chainId)!,
    taxes: taxes.get(source.chainId)!,
    demand: recorder,
    unreadablePools: new UnreadablePools(source.chainId, logger),
    routerVenuesOutage: new RouterVenuesOutage(source.chainId, logger, deps.routerVenuesMetrics),
  }));
  const promotable = sources.map((source) => ({ ...source, tokens: tokens.get(source.chainId)! }));
  const minLiquidityWei = parseUnits(config.promotionMinLiquidityWeth, 18);
  const promoter = new TokenPromoter({
    store,
    logger,
    clock,
    chains: promotable,
    rules: {
      minIntegrators: config.promotionMinIntegrators,
      windowHours: config.promotionWindowHours,
      minLiquidityWei,
      recheckMinutes: config.promotionRecheckMinutes,
    },
  });
  const recheck = new PromotedTokenRecheck({ store, logger, clock, chains: promotable, minLiquidityWei, recheckMinutes: config.promotionRecheckMinutes });
  jobs = new SupportedTokenJobs({
    store,
    logger,
    clock,
    recorder,
    promoter,
    recheck,
    chains: [...tokens].map(([chainId, set]) => ({ chainId, tokens: set })),
    refreshSeconds: config.snapshotRefreshSeconds,
    flushSeconds: config.demandFlushSeconds,
    promotionWindowHours: config.promotionWindowHours,
    outage,
  });
  return { registry: createChainRegistry(config.chainId, contexts), jobs, recorder, promoter, recheck, tokens, taxes };
}
