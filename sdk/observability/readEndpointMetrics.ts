import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ReadEndpointObserver } from "../rpc/readEndpoints";

/**
 * The metrics of the read endpoints (RPC_URLS, sdk/rpc/readEndpoints.ts), named with the server's
 * prefix, by endpoint host: requests by outcome, latency, head lag, whether it is in rotation and
 * whether reads go to it, and failovers away from it. Exported whether one URL is configured or several.
 */
export function readEndpointMetrics(registry: Registry, prefix: "api" | "relayer") {
  const requests = new Counter({ name: `${prefix}_rpc_endpoint_requests_total`, help: "JSON-RPC requests to each read endpoint (RPC_URLS), by endpoint host and outcome (answered, failed: no answer, a timeout, HTTP 429/5xx)", labelNames: ["endpoint", "outcome"] as const, registers: [registry] });
  const latency = new Histogram({
    name: `${prefix}_rpc_endpoint_request_seconds`,
    help: "JSON-RPC request duration per read endpoint, probes included",
    labelNames: ["endpoint"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  const headLag = new Gauge({ name: `${prefix}_rpc_endpoint_head_lag_blocks`, help: "Blocks a read endpoint's head is behind the highest head of the endpoints at the last probe", labelNames: ["endpoint"] as const, registers: [registry] });
  const usable = new Gauge({ name: `${prefix}_rpc_endpoint_usable`, help: "1 while a read endpoint is in rotation; 0 while it is set aside (not answering, or lagging more than RPC_MAX_HEAD_LAG_BLOCKS)", labelNames: ["endpoint"] as const, registers: [registry] });
  const selected = new Gauge({ name: `${prefix}_rpc_endpoint_selected`, help: "1 for the read endpoint requests go to now, 0 for the others", labelNames: ["endpoint"] as const, registers: [registry] });
  const failovers = new Counter({ name: `${prefix}_rpc_endpoint_failovers_total`, help: "Requests that got no answer from a read endpoint and were tried on the next, by the endpoint that failed", labelNames: ["endpoint"] as const, registers: [registry] });
  const observer: ReadEndpointObserver = {
    request(endpoint, seconds, failed) {
      requests.inc({ endpoint, outcome: failed ? "failed" : "answered" });
      latency.observe({ endpoint }, seconds);
    },
    ranked(states) {
      for (const state of states) {
        if (state.lag !== undefined) headLag.set({ endpoint: state.endpoint }, Number(state.lag));
        usable.set({ endpoint: state.endpoint }, state.usable ? 1 : 0);
        selected.set({ endpoint: state.endpoint }, state.selected ? 1 : 0);
      }
    },
    failover(endpoint) {
      failovers.inc({ endpoint });
    },
  };
  return { readEndpoints: observer };
}
