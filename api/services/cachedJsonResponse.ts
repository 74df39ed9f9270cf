import type { Request, Response } from "express";
import { ifNoneMatchMatches } from "./entityTagMatch";

/** A cacheable JSON body as served: its weak ETag and its bytes, plain and gzipped (each computed once per version). */
export type EncodedJson = Readonly<{ etag: string; json: Buffer; gzip: Buffer }>;

/** The public token lists' caching rule (the spec's snapshot: 15 s fresh, 60 s stale-while-revalidate). */
const CACHE_CONTROL = "public, max-age=15, stale-while-revalidate=60";

/**
 * Answers with a pre-encoded JSON version: 304 when `If-None-Match` names its ETag, otherwise 200 with
 * the gzipped bytes when the client takes gzip, else the plain ones. Nothing is encoded per request.
 */
export function sendCachedJson(req: Request, res: Response, encoded: EncodedJson): void {
  res.set({ ETag: encoded.etag, "Cache-Control": CACHE_CONTROL, Vary: "Accept-Encoding" });
  if (ifNoneMatchMatches(req.get("if-none-match"), encoded.etag)) {
    res.status(304).end();
    return;
  }
  const gzip = req.acceptsEncodings("gzip", "identity") === "gzip";
  const bytes = gzip ? encoded.gzip : encoded.json;
  res.set({ "Content-Type": "application/json; charset=utf-8", "Content-Length": String(bytes.length) });
  if (gzip) res.set("Content-Encoding", "gzip");
  res.status(200).end(bytes);
}
