import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { Agent, buildConnector, request } from "undici";
import type { WebhookFailureCode } from "../../sdk";
import { bareHost, isAllowedWebhookAddress } from "../../sdk/network/webhookAddress";

/** Resolves a host name to every address it has (the delivery checks them all). Injected so tests can point a name anywhere. */
export type WebhookResolver = (hostname: string) => Promise<string[]>;

/** The system resolver (getaddrinfo, as any HTTP client would use): every address, both families. */
export const systemResolver: WebhookResolver = async (hostname) => (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * What an integrator is told about a failed attempt, and nothing finer: a socket's own error
 * (ECONNREFUSED against EHOSTUNREACH, say) would let anyone map the relayer's network with webhook
 * URLs. The operator's log keeps the detail.
 */
export type WebhookFailure = WebhookFailureCode;

export type WebhookTransportSettings = Readonly<{
  /** Resolving the name plus the TCP (and TLS) handshake. */
  connectTimeoutMs: number;
  /** From the request's last byte sent to the response's headers. */
  headersTimeoutMs: number;
  /** The whole attempt, whatever stage it is in. */
  timeoutMs: number;
  allowLoopback: boolean;
}>;

export type WebhookAttempt = { status: number | undefined; failure: WebhookFailure | undefined; detail: string | undefined };

/** A name resolved to an address the policy refuses: never connected to. */
class WebhookAddressRefused extends Error {
  readonly code = "WEBHOOK_ADDRESS_REFUSED";
}

/**
 * Sends webhook POSTs so that each connection goes only to an address it checked: the connector
 * resolves the URL's host itself, refuses the whole name when any of its addresses is not global
 * unicast (sdk/network/webhookAddress; loopback too with `allowLoopback`), and hands the checked
 * address to the socket, while TLS's SNI and the Host header keep the name. A DNS answer that
 * changes between the check and the connect (rebinding) therefore changes nothing. Short connect and
 * first-byte timeouts bound what a silent endpoint holds.
 */
export class WebhookTransport {
  readonly #agent: Agent;
  #closed: Promise<void> | undefined;

  constructor(private readonly settings: WebhookTransportSettings, resolve: WebhookResolver = systemResolver) {
    const connectTimeoutMs = settings.connectTimeoutMs;
    const base = buildConnector({ timeout: connectTimeoutMs });
    const connect: buildConnector.connector = (options, callback) => {
      const host = bareHost(options.hostname);
      const timeout = new Promise<never>((_resolve, reject) => setTimeout(() => reject(Object.assign(new Error("name resolution timed out"), { code: "UND_ERR_CONNECT_TIMEOUT" })), connectTimeoutMs).unref());
      Promise.race([isIP(host) === 0 ? resolve(host) : Promise.resolve([host]), timeout])
        .then((addresses) => {
          if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: "ENOTFOUND" });
          const refused = addresses.find((address) => !isAllowedWebhookAddress(address, settings.allowLoopback));
          if (refused !== undefined) throw new WebhookAddressRefused(`${host} resolves to ${refused}, which a webhook may not reach`);
          // `host` (the Host header's value) keeps the name, and with it the TLS server name.
          base({ ...options, hostname: addresses[0]!, servername: isIP(host) === 0 ? host : undefined }, callback);
        })
        .catch((error: Error) => callback(error, null));
    };
    this.#agent = new Agent({ connect, headersTimeout: settings.headersTimeoutMs, bodyTimeout: settings.headersTimeoutMs });
  }

  /** One POST; a 2xx is delivered, anything else (a redirect too: never followed) a failure. */
  async post(url: string, headers: Record<string, string>, body: string): Promise<WebhookAttempt> {
    try {
      const response = await request(url, { method: "POST", headers, body, dispatcher: this.#agent, signal: AbortSignal.timeout(this.settings.timeoutMs) });
      await response.body.dump().catch(() => undefined);
      const status = response.statusCode;
      return status >= 200 && status < 300 ? { status, failure: undefined, detail: undefined } : { status, failure: "http_status", detail: `answered ${status}` };
    } catch (error) {
      return { status: undefined, failure: coarseFailure(error), detail: detailOf(error) };
    }
  }

  /** Idempotent: a dispatcher stopped twice (its own stop, then the relayer's) must not close a closed agent. */
  close(): Promise<void> {
    this.#closed ??= this.#agent.close();
    return this.#closed;
  }
}

const TIMEOUT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "ETIMEDOUT", "ABORT_ERR"]);

/** The integrator's view of why an attempt failed. */
export function coarseFailure(error: unknown): WebhookFailure {
  const { name, code } = errorFields(error);
  if (name === "TimeoutError" || name === "AbortError" || TIMEOUT_CODES.has(code)) return "timeout";
  if (code.startsWith("ERR_TLS_") || code.startsWith("ERR_SSL_") || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|HOSTNAME_MISMATCH/.test(code)) return "tls";
  return "unreachable";
}

function errorFields(error: unknown): { name: string; code: string } {
  const found = error as { name?: unknown; code?: unknown; cause?: unknown } | undefined;
  const cause = found?.cause as { name?: unknown; code?: unknown } | undefined;
  const code = typeof found?.code === "string" ? found.code : typeof cause?.code === "string" ? cause.code : "";
  const name = typeof found?.name === "string" && found.name !== "Error" ? found.name : typeof cause?.name === "string" ? cause.name : "";
  return { name, code };
}

/** The operator's view (logs only). */
function detailOf(error: unknown): string {
  const { code } = errorFields(error);
  const message = error instanceof Error ? error.message : String(error);
  return code === "" ? message : `${code}: ${message}`;
}
