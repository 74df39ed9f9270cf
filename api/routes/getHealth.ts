import type { Route } from "./route";

/**
 * GET /health: liveness for operators and load balancers; no I/O, so it is also the benchmark
 * baseline. `unreadable_pools` lists, per chain, pools that routing leaves out because they could
 * not be read at the latest quoted block (a pool recorded on another chain run, a broken pair).
 */
export const getHealthRoute: Route = {
  method: "get",
  path: "/health",
  handlers: (deps) => [
    (_req, res) => {
      const unreadablePools = deps.chains.all().flatMap((chain) =>
        chain.unreadablePools.list().map((entry) => ({ chain_id: chain.chainId, pool: entry.pool.toLowerCase(), since: entry.since.toISOString(), reason: entry.reason })),
      );
      res.json(unreadablePools.length === 0 ? { status: "ok" } : { status: "ok", unreadable_pools: unreadablePools });
    },
  ],
};
