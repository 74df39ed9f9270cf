import pino, { type Logger } from "pino";
import { createPublicClient, defineChain, http, type Transport } from "viem";
import { unknownFeeTokenSymbols } from "../sdk";
import { observedTransport, type RpcObserver } from "../sdk/observability/observedTransport";
import { serveMetrics } from "../sdk/observability/metricsServer";
import { observeRpc } from "../sdk/observability/serverMetrics";
import { timedMethods } from "../sdk/observability/timedMethods";
import { systemClock } from "./clock";
import type { ApiConfig } from "./config";
import { loadChains } from "./chains/loadChains";
import { createApp } from "./createApp";
import { createApiMetrics } from "./metrics/apiMetrics";
import { openPostgresNonceRanges } from "./quote/nonces/postgresNonceRanges";
import { openPostgresRateLimiters } from "./rateLimits/postgresRateLimiters";
import { memoryRateLimiters } from "./rateLimits/rateLimiterFactory";
import { serveApp, type RunningServer } from "./serveApp";
import { openStore } from "./store/openStore";
import { ReadEndpoints } from "../sdk/rpc/readEndpoints";

/**
 * Opens the database (SQLite, or PostgreSQL when `DATABASE_URL` is set, with rate limits and Permit2
 * nonce reservations shared there too), connects the public client to `config.rpcUrl`, loads the served chains (their
 * manifests and supported-token sets), starts the supported-token jobs, and serves the API (and, with
 * `METRICS_PORT`, GET /metrics on a port of its own). `close`
 * stops the server, then the jobs (writing buffered demand), then closes the database; `npm run api`
 * and the devnet both start it this way.
 */
export async function startApi(
  config: ApiConfig,
  logger: Logger = pino({ name: "api", level: config.logLevel }),
  /** Transports for chains running in this process (the devnet's own), by chain id; others use their RPC URL. */
  transports: ReadonlyMap<number, Transport> = new Map(),
): Promise<RunningServer> {
  const metrics = createApiMetrics();
  const observe: RpcObserver = observeRpc(metrics);
  // RPC_URLS: the default chain's reads over several endpoints (sdk/rpc/readEndpoints.ts). The first
  // probe is not awaited: the API starts while a node is still coming up, as with one URL.
  const endpoints =
    transports.has(config.chainId) || config.rpcUrls.length < 2
      ? undefined
      : new ReadEndpoints({
          urls: config.rpcUrls,
          chainId: config.chainId,
          maxLagBlocks: config.rpcMaxHeadLagBlocks,
          probeMs: config.rpcProbeMs,
          batchWaitMs: 0,
          observer: metrics.readEndpoints,
          logger: logger.child({ component: "rpc" }),
        });
  if (endpoints !== undefined) {
    transports = new Map([...transports, [config.chainId, endpoints.transport()]]);
    void endpoints.probe();
    endpoints.start();
  }
  const opened = await openStore(config, {
    onWriteError: (error, state) => logger.error({ err: error, ...state }, "quote records could not be written; retrying"),
  });
  const store = timedMethods(opened, (operation, seconds) => metrics.storeDuration.observe({ operation }, seconds));
  const limits = config.databaseUrl === undefined ? { factory: memoryRateLimiters, close: async () => undefined } : await openPostgresRateLimiters(config.databaseUrl, logger).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const nonceRangeLeases = config.databaseUrl === undefined ? undefined : await openPostgresNonceRanges(config.databaseUrl).catch(async (error: unknown) => {
    await limits.close();
    await store.close();
    throw error;
  });
  const closeStorage = async () => {
    await endpoints?.stop();
    try {
      try {
        await nonceRangeLeases?.close();
      } finally {
        await limits.close();
      }
    } finally {
      await store.close();
    }
  };
  try {
    const chain = defineChain({
      id: config.chainId,
      name: `chain ${config.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [config.rpcUrl] } },
    });
    const transport = observedTransport(transports.get(config.chainId) ?? http(config.rpcUrl, { retryCount: 1 }), observe);
    const publicClient = createPublicClient({ chain, transport });
    const chains = await loadChains(config, { store, logger, clock: systemClock, routerVenuesMetrics: metrics.routerVenues }, transports, observe);
    const unknownFeeTokens = unknownFeeTokenSymbols(chains.registry.all().map((served) => served.manifest), config.gasless?.feeTokens);
    if (unknownFeeTokens.length > 0) {
      throw new Error(`invalid RELAYER_FEE_TOKENS: ${unknownFeeTokens.join(", ")} is not the symbol of a token in any served chain's manifest (give its address instead)`);
    }
    const app = createApp({ config, store, publicClient, chains: chains.registry, logger, clock: systemClock, metrics, rateLimiters: limits.factory, nonceRangeLeases });
    const server = await serveApp(app, config.host, config.port, config.httpLimits);
    const metricsServer =
      config.metrics === undefined
        ? undefined
        : await serveMetrics(metrics.registry, config.metrics.host, config.metrics.port, "METRICS_PORT").catch(async (error: unknown) => {
            await server.close();
            throw error;
          });
    chains.jobs.start();
    // Manifest tokens' transfer taxes, measured once per process; a quote measures any still unknown.
    for (const [chainId, taxes] of chains.taxes) {
      void taxes.measureAll().then(
        (failed) => (failed > 0 ? logger.warn({ chainId, failed }, "some transfer taxes could not be measured at start; quotes measure them when needed") : undefined),
        (error: unknown) => logger.warn({ err: error, chainId }, "transfer taxes could not be measured at start"),
      );
    }
    logger.info(
      { url: server.url, metricsUrl: metricsServer?.url, database: config.databaseUrl === undefined ? config.dbPath : "postgresql", chainId: config.chainId, chains: chains.registry.all().map((served) => served.chainId) },
      "api listening",
    );
    return {
      url: server.url,
      ...(metricsServer === undefined ? {} : { metricsUrl: metricsServer.url }),
      close: async () => {
        try {
          await Promise.all([server.close(), metricsServer?.close()]);
        } finally {
          try {
            await chains.jobs.stop();
          } finally {
            await closeStorage();
          }
        }
      },
    };
  } catch (error) {
    await closeStorage();
    throw error;
  }
}
