import pino, { type Logger } from "pino";
import { createPublicClient, defineChain, http } from "viem";
import { systemClock } from "./clock";
import type { ApiConfig } from "./config";
import { createApp } from "./createApp";
import { serveApp, type RunningServer } from "./serveApp";
import { openSqliteStore } from "./store/sqlite/sqliteStore";

/**
 * Opens the database, connects the public client to `config.rpcUrl`, and serves the API. `close`
 * stops the server and then closes the database; `npm run api` and the devnet both start it this way.
 */
export async function startApi(config: ApiConfig, logger: Logger = pino({ name: "api", level: config.logLevel })): Promise<RunningServer> {
  const store = openSqliteStore(config.dbPath);
  try {
    const chain = defineChain({
      id: config.chainId,
      name: `chain ${config.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [config.rpcUrl] } },
    });
    const publicClient = createPublicClient({ chain, transport: http(config.rpcUrl, { retryCount: 1 }) });
    const app = createApp({ config, store, publicClient, logger, clock: systemClock });
    const server = await serveApp(app, config.host, config.port);
    logger.info({ url: server.url, dbPath: config.dbPath, chainId: config.chainId }, "api listening");
    return {
      url: server.url,
      close: async () => {
        try {
          await server.close();
        } finally {
          await store.close();
        }
      },
    };
  } catch (error) {
    await store.close();
    throw error;
  }
}
