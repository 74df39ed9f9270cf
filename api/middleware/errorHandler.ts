import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "pino";
import { ApiError, errorResponse, type ApiErrorBody } from "../../sdk/server/apiError";
import { classifyDatabaseError } from "../store/databaseUnavailable";

/** What body-parser attaches to its errors. */
type BodyParserError = Error & { type: string; status: number; limit?: number };

function isBodyParserError(error: unknown): error is BodyParserError {
  return error instanceof Error && typeof (error as Partial<BodyParserError>).type === "string" && typeof (error as Partial<BodyParserError>).status === "number";
}

/** zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR…), which body-parser passes on for a corrupt compressed body. */
function isDecompressionError(error: unknown): boolean {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === "string" && code.startsWith("Z_");
}

/**
 * Turns any error into `{ error, code }`. Only ApiErrors, body-parser's own 4xx and a database that
 * cannot be reached (503 `database_unavailable`) say what went wrong; the rest is a bare 500.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (thrown: unknown, req, res, next) => {
    if (res.headersSent) return next(thrown);
    // A database outage is a known condition too (503 database_unavailable), wherever it surfaced.
    const error = classifyDatabaseError(thrown);
    const { status, body, headers } = toResponse(error);
    // An ApiError is a known condition (a paused feature, a node that is down): a warning without a
    // stack. Anything else is a bug an operator must look at.
    if (status >= 500 && error instanceof ApiError) {
      const cause = error.extras.cause;
      logger.warn({ code: body.code, method: req.method, path: req.path, reason: error.message, ...(cause === undefined ? {} : { err: cause }) }, "request refused");
    }
    else if (status >= 500) logger.error({ err: error, method: req.method, path: req.path }, "request failed");
    if (headers) res.set(headers);
    res.locals.errorCode = body.code;
    res.status(status).json(body);
  };
}

/** Unknown routes get the same JSON shape as every other error. */
export const notFound: RequestHandler = (req, res) => {
  const { status, body } = errorResponse("not_found", `no route for ${req.method} ${req.path}`);
  res.locals.errorCode = body.code;
  res.status(status).json(body);
};

function toResponse(error: unknown): { status: number; body: ApiErrorBody; headers?: Readonly<Record<string, string>> } {
  if (error instanceof ApiError) {
    // Extras first, so `error` and `code` always win.
    return { status: error.status, body: { ...error.extras.body, error: error.message, code: error.code }, headers: error.extras.headers };
  }
  if (isDecompressionError(error)) {
    return errorResponse("invalid_request", "request body could not be decompressed: it is not valid data for its Content-Encoding");
  }
  // express decodes path parameters with decodeURIComponent and marks its failure 400.
  if (error instanceof URIError && (error as URIError & { status?: unknown }).status === 400) {
    return errorResponse("invalid_request", "request path has a malformed percent-encoding (such as %ZZ) in a path parameter");
  }
  if (isBodyParserError(error)) {
    switch (error.type) {
      case "entity.parse.failed":
        return errorResponse("invalid_json", "request body is not valid JSON (top level must be an object)");
      case "entity.too.large":
        return errorResponse("payload_too_large", `request body exceeds ${error.limit ?? "the"} bytes limit`);
      case "encoding.unsupported":
      case "charset.unsupported":
        return errorResponse("unsupported_media_type", "request body must be UTF-8 JSON");
      default:
        if (error.status >= 400 && error.status < 500) {
          return errorResponse("invalid_request", "request body could not be read");
        }
    }
  }
  return errorResponse("internal_error", "internal error");
}
