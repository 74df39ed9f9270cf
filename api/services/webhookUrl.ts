import { isIP } from "node:net";
import { ApiError } from "../apiError";

const LOOPBACK_NAMES = new Set(["localhost"]);

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  if (LOOPBACK_NAMES.has(bare)) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1";
}

/** Addresses a webhook must not reach from the relayer: private, link-local (cloud metadata), unspecified. */
function isInternalAddress(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "").toLowerCase();
  const family = isIP(bare);
  if (family === 4) {
    const [a = 0, b = 0] = bare.split(".").map(Number);
    return a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127);
  }
  if (family === 6) return bare === "::" || bare === "::1" || bare.startsWith("fc") || bare.startsWith("fd") || bare.startsWith("fe80") || bare.startsWith("::ffff:");
  return LOOPBACK_NAMES.has(bare) || bare.endsWith(".localhost");
}

/**
 * A webhook URL the relayer may POST to: https to a public host; with `allowLoopback` (the devnet),
 * also http or https to a loopback host. Credentials in the URL and fragments are refused (they
 * would be sent, or silently dropped). A host name is not resolved here: the operator's network
 * policy must keep the relayer from internal names (docs/integrators/webhooks-and-events.md).
 */
export function checkWebhookUrl(text: string, allowLoopback: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiError(400, "invalid_request", "url: must be an absolute https URL");
  }
  if (url.username !== "" || url.password !== "") throw new ApiError(400, "invalid_request", "url: must not carry credentials");
  if (url.hash !== "") throw new ApiError(400, "invalid_request", "url: must not have a fragment");
  const loopback = isLoopback(url.hostname);
  if (url.protocol === "http:" && !(allowLoopback && loopback)) {
    throw new ApiError(400, "webhook_url_not_https", allowLoopback ? "url: must be https (plain http only to a loopback host)" : "url: must be https");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ApiError(400, "webhook_url_not_https", "url: must be https");
  if (isInternalAddress(url.hostname) && !(allowLoopback && loopback)) {
    throw new ApiError(400, "webhook_url_internal", "url: must not point at a private, loopback or link-local address");
  }
  return url.toString();
}
