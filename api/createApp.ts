import express, { type Express } from "express";
import { memoryRateLimiters } from "./rateLimits/rateLimiterFactory";
import { sharedRateLimiters } from "./rateLimits/sharedRateLimiters";
import type { ApiDependencies } from "./apiDependencies";
import { createQuoting } from "./quote/response/quoting";
import { errorHandler, notFound } from "./middleware/errorHandler";
import { jsonBody } from "./middleware/jsonBody";
import { createApiMetrics, metricsMiddleware } from "./metrics/apiMetrics";
import { requestLog } from "./middleware/requestLog";
import { getHealthRoute } from "./routes/getHealth";
import { getDocsAssetRoute, getDocsRoute } from "./routes/getDocs";
import { getOpenApiRoute } from "./routes/getOpenApi";
import { getReadyRoute } from "./routes/getReady";
import { getGaslessStatusRoute } from "./routes/getGaslessStatus";
import { getPriceRoute, getQuoteRoute } from "./routes/getQuote";
import { postGaslessSubmitRoute } from "./routes/postGaslessSubmit";
import { postGaslessCancelRoute } from "./routes/postGaslessCancel";
import { getSupportedTokens } from "./routes/getSupportedTokens";
import { getTokensRoute } from "./routes/getTokens";
import { getSourcesRoute } from "./routes/getSources";
import { onboardingRoutes } from "./routes/onboardingRoutes";
import type { Route } from "./routes/route";
import { getGaslessEventsRoute } from "./routes/getGaslessEvents";
import { getWebhookDeliveriesRoute } from "./routes/getWebhookDeliveries";

/**
 * Every route the API serves; a new endpoint is one more entry here (e.g. GET /quote behind apiKeyAuth).
 * express tries them in this order, so the busiest come first: the liveness probe, then trading.
 * GET /metrics is not among them: it is served on its own port (sdk/observability/metricsServer.ts).
 */
export const apiRoutes: readonly Route[] = [
  getHealthRoute,
  getQuoteRoute,
  getPriceRoute,
  postGaslessSubmitRoute,
  getGaslessStatusRoute,
  postGaslessCancelRoute,
  getGaslessEventsRoute,
  getWebhookDeliveriesRoute,
  getSupportedTokens,
  getTokensRoute,
  getSourcesRoute,
  getReadyRoute,
  ...onboardingRoutes,
  getOpenApiRoute,
  getDocsRoute,
  getDocsAssetRoute,
];

export type CreateAppOptions = {
  /** Routes to mount instead of `apiRoutes`; tests append probes here. */
  routes?: readonly Route[];
};

/** Builds the express app around its dependencies; it does not listen, so tests run it in-process. */
export function createApp(given: ApiDependencies, options: CreateAppOptions = {}): Express {
  const wired = { ...given, metrics: given.metrics ?? createApiMetrics(), rateLimiters: sharedRateLimiters(given.rateLimiters ?? memoryRateLimiters) };
  const deps: ApiDependencies = { ...wired, quoting: given.quoting ?? createQuoting(wired) };
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  // Which hops may name the client in X-Forwarded-For (req.ip, the per-IP limits); off by default.
  app.set("trust proxy", deps.config.trustProxy);
  app.use(requestLog(deps.logger));
  app.use(metricsMiddleware(deps.metrics!));
  // Parsed inside each route, so a body refused as malformed is counted under its route in the metrics.
  const body = jsonBody(deps.config.maxBodyBytes);
  const answerError = errorHandler(deps.logger);
  for (const route of options.routes ?? apiRoutes) {
    // Each route answers its own errors: a refusal is then sent without express walking every later
    // route in search of an error handler (the hot path of an unsupported-token 400).
    app[route.method](route.path, ...body, ...route.handlers(deps), answerError);
  }
  app.use(notFound);
  app.use(answerError);
  return app;
}
