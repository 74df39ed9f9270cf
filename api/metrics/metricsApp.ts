import express, { type Express } from "express";
import type { Registry } from "prom-client";

/**
 * The app of the metrics port (`METRICS_PORT`): GET /metrics in the Prometheus text format, and
 * nothing else. It is kept off the public API port so that what the metrics tell (traffic, error
 * rates, latency) reaches the operator's scraper only.
 */
export function createMetricsApp(registry: Registry): Express {
  const app = express();
  app.disable("x-powered-by");
  app.get("/metrics", async (_req, res) => {
    res.set("Content-Type", registry.contentType).send(await registry.metrics());
  });
  app.use((_req, res) => void res.status(404).json({ error: "this port serves GET /metrics only", code: "not_found" }));
  return app;
}
