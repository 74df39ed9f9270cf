import type { Route } from "./route";

/** GET /metrics: Prometheus text format (prom-client), for the operator's scraper. */
export const getMetricsRoute: Route = {
  method: "get",
  path: "/metrics",
  handlers: (deps) => [
    async (_req, res) => {
      const registry = deps.metrics!.registry;
      res.set("Content-Type", registry.contentType).send(await registry.metrics());
    },
  ],
};
