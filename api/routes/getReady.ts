import { getBlockNumber } from "viem/actions";
import { RelayerClient } from "../gasless/relayerClient";
import { API_ERROR_STATUS } from "../../sdk/server/apiError";
import type { Route } from "./route";
import { errorSummary } from "../../sdk/errors/errorSummary";

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
    return errorSummary(error);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * GET /ready: whether this instance can serve, for a load balancer: the database answers a trivial
 * query and the default chain its block number. 200 `{status: "ready", checks}`, or 503 with code
 * `not_ready` and the failing checks. When gasless trading is configured the relayer is a dependency
 * too, but of gasless swaps only: `checks.relayer` and `gasless` ("available" or "unavailable") say
 * whether a relayer is ready, while quotes stay ready without one. Cheap: one query, one RPC call and
 * one GET per relayer.
 */
export const getReadyRoute: Route = {
  method: "get",
  path: "/ready",
  handlers: (deps) => {
    const gasless = deps.config.gasless;
    const relayers = gasless === undefined ? undefined : new RelayerClient(gasless);
    return [
      async (_req, res) => {
        const [database, chain, relayer] = await Promise.all([
          check(() => deps.store.ping()),
          check(() => getBlockNumber(deps.publicClient, { cacheTime: 0 })),
          relayers === undefined ? undefined : relayers.ready(CHECK_TIMEOUT_MS),
        ]);
        const checks = relayer === undefined ? { database, chain } : { database, chain, relayer };
        const gaslessState = relayer === undefined ? {} : { gasless: relayer === "ok" ? "available" : "unavailable" };
        if (database === "ok" && chain === "ok") {
          res.json({ status: "ready", ...gaslessState, checks });
          return;
        }
        res.locals.errorCode = "not_ready";
        res.status(API_ERROR_STATUS.not_ready).json({ status: "not_ready", error: "a dependency of this instance is unreachable", code: "not_ready", ...gaslessState, checks });
      },
    ];
  },
};
