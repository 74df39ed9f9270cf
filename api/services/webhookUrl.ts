import { isIP } from "node:net";
import { bareHost, classifyAddress, isLoopbackName } from "../../sdk/network/webhookAddress";
import { ApiError } from "../../sdk/server/apiError";

/**
 * A webhook URL the relayer may POST to: https to a public host; with `allowLoopback` (the devnet,
 * WEBHOOK_ALLOW_LOOPBACK_HTTP), also http or https to a loopback host. Credentials in the URL and
 * fragments are refused (they would be sent, or silently dropped). An address literal must be global
 * unicast (sdk/network/webhookAddress: the relayer's own check); a name is checked here only for
 * `localhost` (trailing dots stripped first), and the relayer resolves it at every delivery and
 * connects only to an address that passes the same check, so DNS cannot point it inward later.
 */
export function checkWebhookUrl(text: string, allowLoopback: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiError("invalid_request", "url: must be an absolute https URL");
  }
  if (url.username !== "" || url.password !== "") throw new ApiError("invalid_request", "url: must not carry credentials");
  if (url.hash !== "") throw new ApiError("invalid_request", "url: must not have a fragment");
  const host = bareHost(url.hostname);
  const verdict = isIP(host) !== 0 ? classifyAddress(host) : isLoopbackName(host) ? "loopback" : "global";
  const loopback = verdict === "loopback";
  if (url.protocol === "http:" && !(allowLoopback && loopback)) {
    throw new ApiError("webhook_url_not_https", allowLoopback ? "url: must be https (plain http only to a loopback host)" : "url: must be https");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ApiError("webhook_url_not_https", "url: must be https");
  if (verdict === "internal" || (loopback && !allowLoopback)) {
    throw new ApiError("webhook_url_internal", "url: must reach a public (global unicast) address, not a private, loopback, link-local, multicast or reserved one");
  }
  return url.toString();
}
