import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

/**
 * Where a webhook may connect: the one policy the API applies when a URL is registered and the
 * relayer applies again to every address a name resolves to at delivery. An allowlist, not a
 * blocklist: only ipaddr.js's `unicast` range (global unicast) passes, so every special range it
 * knows (private, loopback, link-local fe80::/10 whole, unique-local, carrier-grade NAT, 198.18.0.0/15,
 * multicast, broadcast, reserved, documentation) is refused. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:a.b.c.d, IPv4-translated, IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96) are
 * judged by the IPv4 address inside, so `::127.0.0.1` is loopback and `64:ff9b::a9fe:a9fe` link-local.
 * Server-only (ipaddr.js is not a dependency of the published SDK).
 */
export type WebhookAddressVerdict = "global" | "loopback" | "internal";

/** A host name as compared: lower case, IPv6 brackets and trailing dots gone (`localhost.` is `localhost`). */
export function bareHost(host: string): string {
  return host.replace(/^\[|\]$/g, "").replace(/\.+$/, "").toLowerCase();
}

/** Names that are loopback by definition (RFC 6761), whatever a resolver says. */
export function isLoopbackName(host: string): boolean {
  const bare = bareHost(host);
  return bare === "localhost" || bare.endsWith(".localhost");
}

/** The IPv4 address an IPv6 address carries in its last 32 bits, for the forms that route to it. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const range = address.range();
  const parts = address.parts;
  const tail = () => new ipaddr.IPv4([parts[6]! >> 8, parts[6]! & 0xff, parts[7]! >> 8, parts[7]! & 0xff]);
  if (range === "ipv4Mapped" || range === "rfc6145") return tail();
  // NAT64's well-known prefix (RFC 6052) reaches the IPv4 address in its last 32 bits.
  if (parts[0] === 0x64 && parts[1] === 0xff9b && parts.slice(2, 6).every((part) => part === 0)) return tail();
  // IPv4-compatible (deprecated, RFC 4291 §2.5.5.1), except :: and ::1 which ipaddr.js names itself.
  if (range !== "unspecified" && range !== "loopback" && parts.slice(0, 6).every((part) => part === 0)) return tail();
  return undefined;
}

/** How an IP address literal (v4 or v6, brackets allowed) may be reached; `internal` for anything unparsable. */
export function classifyAddress(text: string): WebhookAddressVerdict {
  const bare = bareHost(text);
  if (isIP(bare) === 0) return "internal";
  let address: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(bare);
  if (address.kind() === "ipv6") address = embeddedIPv4(address as ipaddr.IPv6) ?? address;
  const range = address.range();
  if (range === "loopback") return "loopback";
  return range === "unicast" ? "global" : "internal";
}

/** Whether a connection to `address` is allowed: a global unicast address, or a loopback one when `allowLoopback` (the devnet). */
export function isAllowedWebhookAddress(address: string, allowLoopback: boolean): boolean {
  const verdict = classifyAddress(address);
  return verdict === "global" || (verdict === "loopback" && allowLoopback);
}
