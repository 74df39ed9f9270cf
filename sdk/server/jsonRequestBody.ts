import type { IncomingMessage } from "node:http";

/** Why a JSON endpoint refuses a request from its headers alone, before reading its body. */
export type JsonBodyRefusal = Readonly<{ status: 413 | 415; code: "payload_too_large" | "unsupported_media_type"; message: string }>;

/** The charsets JSON may arrive in (RFC 8259 §8.1: UTF-8 only); absent means UTF-8. */
const UTF8 = new Set(["utf-8", "utf8"]);

/**
 * Checks a request's headers before its body is read: a body that is not `application/json`, a
 * charset other than UTF-8 (body-parser would decode UTF-16 and call the result invalid JSON), or a
 * Content-Length over `limit` bytes. Undefined when the body may be read.
 */
export function refuseJsonBody(req: IncomingMessage, limit: number): JsonBodyRefusal | undefined {
  const length = Number(req.headers["content-length"] ?? "0");
  const hasBody = req.headers["transfer-encoding"] !== undefined || length > 0;
  if (!hasBody) return undefined;
  const contentType = req.headers["content-type"] ?? "";
  const [mediaType = "", ...parameters] = contentType.split(";").map((part) => part.trim());
  if (mediaType.toLowerCase() !== "application/json") {
    return { status: 415, code: "unsupported_media_type", message: `Content-Type ${contentType === "" ? "(none)" : contentType} is not accepted; send JSON with Content-Type: application/json` };
  }
  const charset = parameters
    .map((parameter) => parameter.split("="))
    .find(([name]) => name?.trim().toLowerCase() === "charset")?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, "$1");
  if (charset !== undefined && !UTF8.has(charset.toLowerCase())) {
    return { status: 415, code: "unsupported_media_type", message: `charset ${charset} is not accepted; send the JSON body in UTF-8 (charset=utf-8, or no charset)` };
  }
  if (length > limit) return { status: 413, code: "payload_too_large", message: `request body exceeds ${limit} bytes limit` };
  return undefined;
}
