import { Counter, Histogram, type Registry } from "prom-client";

/**
 * The metrics both servers keep about their dependencies, named with their prefix (`api`, `relayer`):
 * store operation latency, and chain JSON-RPC latency and errors by method. Server-only (prom-client);
 * not exported from `sdk/index.ts`.
 */
export function dependencyMetrics(registry: Registry, prefix: "api" | "relayer") {
  return {
    storeDuration: new Histogram({
      name: `${prefix}_store_operation_duration_seconds`,
      help: "Store operation duration by operation",
      labelNames: ["operation"] as const,
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
      registers: [registry],
    }),
    rpcDuration: new Histogram({
      name: `${prefix}_chain_rpc_duration_seconds`,
      help: "Chain JSON-RPC request duration by method",
      labelNames: ["method"] as const,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    rpcErrors: new Counter({ name: `${prefix}_chain_rpc_errors_total`, help: "Chain JSON-RPC requests that failed, by method", labelNames: ["method"] as const, registers: [registry] }),
  };
}

/** Records one RPC request in `metrics` (an `observedTransport` observer). */
export function observeRpc(metrics: ReturnType<typeof dependencyMetrics>) {
  return (method: string, seconds: number, failed: boolean): void => {
    metrics.rpcDuration.observe({ method }, seconds);
    if (failed) metrics.rpcErrors.inc({ method });
  };
}
