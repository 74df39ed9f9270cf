import express, { type RequestHandler } from "express";
import { ApiError } from "../apiError";

/** Compressions a body may arrive in; body-parser would also try `br` and `zstd`, which no client of ours sends. */
const ACCEPTED_ENCODINGS = new Set(["identity", "gzip", "deflate"]);

/**
 * Refuses, with 415 naming the header, a body that is not JSON or is compressed in a way we do not
 * accept. Without it a `text/plain` body would reach the handlers as "no body" (a misleading 400).
 */
const jsonContentOnly: RequestHandler = (req, _res, next) => {
  const encoding = (req.get("content-encoding") ?? "identity").trim().toLowerCase();
  if (!ACCEPTED_ENCODINGS.has(encoding)) {
    throw new ApiError(415, "unsupported_media_type", `Content-Encoding ${encoding} is not accepted; send the body uncompressed, or as gzip or deflate`);
  }
  const hasBody = req.get("transfer-encoding") !== undefined || Number(req.get("content-length") ?? "0") > 0;
  if (hasBody && !req.is("application/json")) {
    throw new ApiError(415, "unsupported_media_type", `Content-Type ${req.get("content-type") ?? "(none)"} is not accepted; send JSON with Content-Type: application/json`);
  }
  next();
};

/**
 * JSON bodies only, objects or arrays at the top level, at most `limit` bytes. Failures reach the
 * error handler as body-parser errors (400 for bad JSON or a corrupt compressed body, 413 when too
 * large) or as 415 ApiErrors.
 */
export function jsonBody(limit: number): RequestHandler[] {
  return [jsonContentOnly, express.json({ limit, strict: true, type: "application/json" })];
}
