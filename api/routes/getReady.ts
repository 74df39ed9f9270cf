import { getBlockNumber } from "viem/actions";
import type { Route } from "./route";

/** Each dependency check is given this long; a slower one counts as down. */
const CHECK_TIMEOUT_MS = 2_000;

async function check(probe: () => Promise<unknown>): Promise<"ok" | string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return "ok";
  } catch (error) {
    return error instanceof Error ? error.message.split("\n")[0]! : String(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /ready: whether this instance can serve, for a load balancer: the database answers a trivial
 * query and the default chain its block number. 200 `{status: "ready", checks}`, or 503 with code
 * `not_ready` and the failing checks. Cheap: one query and one RPC call.
 */
export const getReadyRoute: Route = {
  method: "get",
  path: "/ready",
  handlers: (deps) => [
    async (_req, res) => {
      const [database, chain] = await Promise.all([check(() => deps.store.ping()), check(() => getBlockNumber(deps.publicClient, { cacheTime: 0 }))]);
      const checks = { database, chain };
      if (database === "ok" && chain === "ok") {
        res.json({ status: "ready", checks });
        return;
      }
      res.locals.errorCode = "not_ready";
      res.status(503).json({ status: "not_ready", error: "a dependency of this instance is unreachable", code: "not_ready", checks });
    },
  ],
};
