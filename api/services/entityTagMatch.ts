/** One entity tag of a header: optional weak prefix, then the quoted opaque tag. */
const ENTITY_TAG = /(?:[Ww]\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g;

/**
 * Whether an `If-None-Match` header matches the current `etag` (RFC 9110 §13.1.2): `*` matches any
 * current representation, otherwise any tag of the comma-separated list matches by weak comparison
 * (the opaque tags are equal, whether either is weak or not). Malformed parts never match, so a
 * broken header yields a full 200 rather than a wrong 304.
 */
export function ifNoneMatchMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  const current = opaqueTag(etag);
  if (current === undefined) return false;
  for (const match of header.matchAll(ENTITY_TAG)) {
    if (match[1] === current) return true;
  }
  return false;
}

function opaqueTag(etag: string): string | undefined {
  const match = /^(?:W\/)?"([^"]*)"$/.exec(etag);
  return match?.[1];
}
