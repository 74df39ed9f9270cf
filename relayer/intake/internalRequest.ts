import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "pino";
import type { z } from "zod";
import { ApiError, apiErrorResponse, errorResponse } from "../../sdk/server/apiError";
import type { RelayContext } from "../queue/relayContext";
import type { RelayQueue } from "../queue/relayQueue";
import type { TrackRelay } from "../cancellation/relayCancellation";

/** What an internal route is built from: built once per app, like the API's routes. */
export type InternalRouteDeps = Readonly<{ context: RelayContext; queue: RelayQueue; track: TrackRelay }>;

/** One endpoint of the relayer's internal server, in a file of its own. */
export type InternalRoute = Readonly<{ method: "get" | "post" | "put" | "delete"; path: string; handler: (deps: InternalRouteDeps) => RequestHandler }>;

/** Parses what the API sent, or throws a 400 `invalid_request` naming the first field at fault. */
export function parseInternal<Schema extends z.ZodType>(schema: Schema, input: unknown, where: string): z.output<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new ApiError("invalid_request", `${issue?.path.join(".") || where}: ${issue?.message ?? "invalid"}`);
}

/** Answers a thrown ApiError as the API would, a body the JSON parser refused as a 4xx, and anything else as a logged 500. */
export function internalErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error);
    const status = (error as { status?: unknown }).status;
    const answer =
      error instanceof ApiError
        ? apiErrorResponse(error)
        : typeof status === "number" && status >= 400 && status < 500
          ? errorResponse(status === 413 ? "payload_too_large" : "invalid_request", status === 413 ? "request body too large" : "malformed request body")
          : undefined;
    if (answer === undefined) logger.error({ err: error }, "internal endpoint error");
    const { status: code, body } = answer ?? errorResponse("internal_error", "internal error");
    res.status(code).json(body);
  };
}
