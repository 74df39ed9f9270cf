import type { AddressInfo } from "node:net";
import type { Express } from "express";
import { createLimitedServer, DEFAULT_HTTP_SERVER_LIMITS, type HttpServerLimits } from "../sdk/server/httpServerLimits";

export type RunningServer = {
  url: string;
  /** Where GET /metrics is served, when a metrics port is configured (`METRICS_PORT`). */
  metricsUrl?: string;
  close(): Promise<void>;
};

/** Listens on host:port (0 picks a free port) with `limits` applied, and resolves once bound, or rejects (e.g. port in use). */
export function serveApp(app: Express, host: string, port: number, limits: HttpServerLimits = DEFAULT_HTTP_SERVER_LIMITS): Promise<RunningServer> {
  const server = createLimitedServer(app, limits);
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      const { address, port: boundPort } = server.address() as AddressInfo;
      const hostPart = address.includes(":") ? `[${address}]` : address;
      resolve({
        url: `http://${hostPart}:${boundPort}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.close((error) => (error ? fail(error) : done()));
            // Keep-alive sockets would hold close() open until they time out; in-flight requests still finish.
            server.closeIdleConnections();
          }),
      });
    });
  });
}
