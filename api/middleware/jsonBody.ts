import express, { type RequestHandler } from "express";
import { continueBody } from "../../sdk/server/httpServerLimits";
import { refuseJsonBody } from "../../sdk/server/jsonRequestBody";
import { ApiError } from "../../sdk/server/apiError";

/** Compressions a body may arrive in; body-parser would also try `br` and `zstd`, which no client of ours sends. */
const ACCEPTED_ENCODINGS = new Set(["identity", "gzip", "deflate"]);

/**
 * Refuses, from the headers alone, a body that is not UTF-8 JSON (415 naming the header or the
 * charset), is compressed in a way we do not accept (415), or announces more than `limit` bytes (413).
 * Without it a `text/plain` body would reach the handlers as "no body" (a misleading 400).
 */
function jsonContentOnly(limit: number): RequestHandler {
  return (req, res, next) => {
    const encoding = (req.get("content-encoding") ?? "identity").trim().toLowerCase();
    if (!ACCEPTED_ENCODINGS.has(encoding)) {
      throw new ApiError("unsupported_media_type", `Content-Encoding ${encoding} is not accepted; send the body uncompressed, or as gzip or deflate`);
    }
    // A compressed body's Content-Length says nothing about its size once inflated: body-parser counts that.
    const refusal = refuseJsonBody(req, encoding === "identity" ? limit : Number.POSITIVE_INFINITY);
    if (refusal !== undefined) throw new ApiError(refusal.code, refusal.message);
    // Only now may a client that waits for `100 Continue` send its body.
    continueBody(req, res);
    next();
  };
}

/**
 * JSON bodies only, objects or arrays at the top level, at most `limit` bytes. Failures reach the
 * error handler as body-parser errors (400 for bad JSON or a corrupt compressed body, 413 when too
 * large) or as 415 ApiErrors.
 */
export function jsonBody(limit: number): RequestHandler[] {
  return [jsonContentOnly(limit), express.json({ limit, strict: true, type: "application/json" })];
}
