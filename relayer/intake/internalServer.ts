import { timingSafeEqual, createHash } from "node:crypto";
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import { API_ERROR_STATUS, ApiError } from "../../sdk/server/apiError";
import { continueBody } from "../../sdk/server/httpServerLimits";
import { refuseJsonBody } from "../../sdk/server/jsonRequestBody";
import type { RelayContext } from "../queue/relayContext";
import type { RelayQueue } from "../queue/relayQueue";
import { relayerReadiness } from "../relayerReadiness";
import { relayCancelRoute } from "../cancellation/relayCancelRoute";
import type { TrackRelay } from "../cancellation/relayCancellation";
import { pushedStatusRoutes } from "../pushed/pushedStatusRoutes";
import { internalErrorHandler, type InternalRoute } from "./internalRequest";
import { getGasBudgetRoute, getGaslessStandingRoute } from "./routes/getGaslessStanding";
import { getRelayRoute } from "./routes/getRelay";
import { postRelayRoute } from "./routes/postRelay";
import { postRelayMatchRoute } from "./routes/postRelayMatch";

/** The hand-off endpoints, one file each (relayer/intake/routes/), the cancel forward beside its stage. */
export const INTERNAL_ROUTES: readonly InternalRoute[] = [postRelayRoute, postRelayMatchRoute, getGaslessStandingRoute, getGasBudgetRoute, relayCancelRoute, getRelayRoute];

/** The largest hand-off the API sends is a relay with a contract wallet's signature, well below this. */
const INTERNAL_BODY_LIMIT_BYTES = 65_536;

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/**
 * The relayer's internal endpoint, on loopback: the API hands validated relays over with
 * `POST /internal/relays` and reads them back with `GET /internal/relays/:id`, presenting the shared
 * secret `RELAYER_INTERNAL_TOKEN` as a bearer token. Not for integrators. GET /metrics, which tells
 * signer balances, is not here: it has a port of its own (`RELAYER_METRICS_PORT`).
 */
export function createInternalApp(context: RelayContext, queue: RelayQueue, track: TrackRelay): Express {
  const app = express();
  app.disable("x-powered-by");
  const expected = digest(`Bearer ${context.config.internalToken}`);
  app.get("/health", (_req, res) => void res.json({ status: "ok" }));
  app.get("/ready", async (_req, res) => {
    const readiness = await relayerReadiness(context);
    res.status(readiness.ready ? 200 : API_ERROR_STATUS.not_ready).json(readiness.ready ? { status: "ready", ...readiness.body } : { error: "this relayer cannot work right now", code: "not_ready", ...readiness.body });
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (timingSafeEqual(digest(req.get("authorization") ?? ""), expected)) return next();
    next(new ApiError("unauthorized", "the relayer's internal endpoint needs Authorization: Bearer <RELAYER_INTERNAL_TOKEN>"));
  });
  // Refused from the headers (415 a charset other than UTF-8, 413 over the limit) before a client
  // waiting for `100 Continue` sends its body; only an authorised request is told to continue.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const refusal = refuseJsonBody(req, INTERNAL_BODY_LIMIT_BYTES);
    if (refusal !== undefined) return next(new ApiError(refusal.code, refusal.message));
    continueBody(req, res);
    next();
  });
  app.use(express.json({ limit: INTERNAL_BODY_LIMIT_BYTES }));
  app.use(pushedStatusRoutes(context));

  const deps = { context, queue, track };
  for (const route of INTERNAL_ROUTES) app[route.method](route.path, route.handler(deps));

  app.use((_req: Request, _res: Response) => {
    throw new ApiError("not_found", "no such endpoint");
  });
  app.use(internalErrorHandler(context.logger));
  return app;
}
