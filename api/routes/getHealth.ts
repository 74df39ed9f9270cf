import type { Route } from "./route";

/** GET /health: liveness for operators and load balancers; no I/O, so it is also the benchmark baseline. */
export const getHealthRoute: Route = {
  method: "get",
  path: "/health",
  handlers: () => [
    (_req, res) => {
      res.json({ status: "ok" });
    },
  ],
};
