import type { RequestHandler } from "express";
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { dependencyMetrics } from "../../sdk/observability/serverMetrics";
import { readEndpointMetrics } from "../../sdk/observability/readEndpointMetrics";
import { gaslessSubmitStageHistogram } from "./gaslessSubmitStages";

/**
 * The API's Prometheus metrics (prom-client), served by GET /metrics on the metrics port. Labels never carry a key, a
 * wallet or a raw path: routes are their patterns (`/gasless/status/:relayId`), so cardinality stays
 * bounded.
 */
export type ApiMetrics = ReturnType<typeof createApiMetrics>;

export function createApiMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = {
    registry,
    requestDuration: new Histogram({
      name: "api_http_request_duration_seconds",
      help: "HTTP request duration by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    quotes: new Counter({ name: "api_quotes_total", help: "GET /quote answers by settlement and outcome (served, or the error code)", labelNames: ["settlement", "outcome"] as const, registers: [registry] }),
    rejections: new Counter({ name: "api_rejections_total", help: "Error answers by their code", labelNames: ["code"] as const, registers: [registry] }),
    rateLimited: new Counter({ name: "api_rate_limit_rejections_total", help: "Requests refused by a rate limit, by bucket", labelNames: ["bucket"] as const, registers: [registry] }),
    submitStages: gaslessSubmitStageHistogram(registry),
    routerVenues: {
      readFailures: new Counter({
        name: "api_router_venue_read_failures_total",
        help: "Failed reads of the active routers' venues (registry, V3 tables, allowlists), by chain and what quotes did: v2_only (served V2-only) or refused (nothing read yet)",
        labelNames: ["chain_id", "fallback"] as const,
        registers: [registry],
      }),
      degraded: new Gauge({ name: "api_router_venues_degraded", help: "1 while a chain's quotes route V2 only because its routers' venues cannot be read", labelNames: ["chain_id"] as const, registers: [registry] }),
    },
    snapshots: new Counter({ name: "api_snapshot_responses_total", help: "Supported-token snapshot answers by status (200 or 304)", labelNames: ["status"] as const, registers: [registry] }),
    ...dependencyMetrics(registry, "api"),
    ...readEndpointMetrics(registry, "api"),
  };
  return metrics;
}

/** Observes every request once it is answered: duration by route pattern, error codes, quote and snapshot outcomes. */
export function metricsMiddleware(metrics: ApiMetrics): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => {
      const route = (req.route as { path?: string } | undefined)?.path ?? "unmatched";
      const status = String(res.statusCode);
      metrics.requestDuration.observe({ method: req.method, route, status }, Number(process.hrtime.bigint() - started) / 1e9);
      const code = res.locals.errorCode as string | undefined;
      if (code !== undefined) metrics.rejections.inc({ code });
      if (route === "/quote" && code !== undefined) metrics.quotes.inc({ settlement: "none", outcome: code });
      if (route === "/tokens/supported-tokens" && (status === "200" || status === "304")) metrics.snapshots.inc({ status });
    });
    next();
  };
}
