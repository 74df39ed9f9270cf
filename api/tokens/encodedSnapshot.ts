import type { EncodedJson } from "../services/cachedJsonResponse";
import { gzipSync } from "node:zlib";
import type { TokenSnapshotBody } from "./supportedTokens";

/** A snapshot version as served: its weak ETag and its body as JSON bytes, plain and gzipped. */
export type EncodedSnapshot = EncodedJson;

// Keyed by the body object: a SupportedTokens implementation replaces the object exactly when the
// set changes, so each version is serialised and compressed once, however many requests read it.
const encodings = new WeakMap<TokenSnapshotBody, EncodedSnapshot>();
let encodingsComputed = 0;

/** The encoded form of this snapshot version, computed on first use and then shared. */
export function encodedSnapshot(body: TokenSnapshotBody): EncodedSnapshot {
  let encoded = encodings.get(body);
  if (encoded === undefined) {
    const json = Buffer.from(JSON.stringify(body), "utf8");
    encoded = Object.freeze({ etag: `W/"${body.snapshot_id}"`, json, gzip: gzipSync(json, { level: 9 }) });
    encodings.set(body, encoded);
    encodingsComputed += 1;
  }
  return encoded;
}

/** How many snapshot versions were encoded in this process; lets tests prove "once per version". */
export function snapshotEncodingsComputed(): number {
  return encodingsComputed;
}
