import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export type MetricsServer = { url: string; close(): Promise<void> };

/**
 * GET /metrics (Prometheus text format) on a port of its own, for the API (`METRICS_PORT`) and the
 * relayer (`RELAYER_METRICS_PORT`): kept off the ports clients and API instances reach, since the
 * metrics tell traffic, error rates and (the relayer's) signer balances. Anything else is 404.
 * `port` 0 picks a free one; resolves once bound, or rejects naming `variable` when the port is taken.
 */
export function serveMetrics(registry: Registry, host: string, port: number, variable: string): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "this port serves GET /metrics only", code: "not_found" }));
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { "content-type": registry.contentType }).end(text),
      () => res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ error: "metrics could not be collected", code: "internal_error" })),
    );
  });
  return new Promise((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new Error(`metrics port ${port} on ${host} is in use; set ${variable} to another port (0 picks a free one)`) : error),
    );
    server.listen(port, host, () => {
      const { address, port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://${address.includes(":") ? `[${address}]` : address}:${bound}`,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
