import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { z } from "zod";

/**
 * The HTTP limits of the API and of the relayer's internal endpoint, declared once: the environment
 * variables both read, their defaults, and the Node server that applies them. Node's own defaults
 * (a 60 s header timeout, a 300 s request timeout) let a slow client hold a socket for minutes.
 *
 * - `HTTP_MAX_HEADER_BYTES` (default 16384): a request whose headers are larger is answered 431.
 * - `HTTP_HEADERS_TIMEOUT_MS` (default 10000): the whole header block must arrive within it (408 otherwise).
 * - `HTTP_REQUEST_TIMEOUT_MS` (default 30000): the whole request, body included, must arrive within it.
 * - `HTTP_KEEP_ALIVE_TIMEOUT_MS` (default 5000): an idle keep-alive connection is closed after it.
 */
export const httpServerLimitSettings = {
  HTTP_MAX_HEADER_BYTES: z.coerce.number().int().min(1024).max(1_048_576).default(16_384),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
} as const;

/** What each HTTP limit means, for both services that declare them. */
export const httpServerLimitSettingDocs = {
  HTTP_MAX_HEADER_BYTES: "A request whose headers are larger is answered 431.",
  HTTP_HEADERS_TIMEOUT_MS: "The whole header block must arrive within it (408 otherwise).",
  HTTP_REQUEST_TIMEOUT_MS: "The whole request, body included, must arrive within it; at least HTTP_HEADERS_TIMEOUT_MS.",
  HTTP_KEEP_ALIVE_TIMEOUT_MS: "An idle keep-alive connection is closed after it.",
} as const satisfies Record<keyof typeof httpServerLimitSettings, string>;

export type HttpServerLimits = Readonly<{ maxHeaderBytes: number; headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number }>;

type HttpServerLimitValues = { [K in keyof typeof httpServerLimitSettings]: z.output<(typeof httpServerLimitSettings)[K]> };

/** The parsed settings as the servers take them; the request timeout is at least the header timeout, as Node requires. */
export function httpServerLimitsOf(values: HttpServerLimitValues): HttpServerLimits {
  if (values.HTTP_REQUEST_TIMEOUT_MS < values.HTTP_HEADERS_TIMEOUT_MS) throw new Error("invalid HTTP_REQUEST_TIMEOUT_MS: must be at least HTTP_HEADERS_TIMEOUT_MS");
  return {
    maxHeaderBytes: values.HTTP_MAX_HEADER_BYTES,
    headersTimeoutMs: values.HTTP_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: values.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: values.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  };
}

/** Node's defaults, for servers built without settings (tests that build an app directly). */
export const DEFAULT_HTTP_SERVER_LIMITS: HttpServerLimits = httpServerLimitsOf({
  HTTP_MAX_HEADER_BYTES: 16_384,
  HTTP_HEADERS_TIMEOUT_MS: 10_000,
  HTTP_REQUEST_TIMEOUT_MS: 30_000,
  HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000,
});

/** How long a refused connection is still read (and discarded) before it is closed: closing a socket with unread bytes sends a TCP reset that can overtake the answer. */
const LINGER_MS = 2_000;

const CLIENT_ERRORS: Readonly<Record<string, readonly [number, string, string, string]>> = {
  HPE_HEADER_OVERFLOW: [431, "Request Header Fields Too Large", "header_too_large", "request headers exceed the server's limit"],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "Request Timeout", "request_timeout", "the request did not arrive in time"],
};

/** Answers a request the HTTP parser refused with the project's JSON error, then lets the client finish sending before closing. */
function answerClientError(limits: HttpServerLimits, error: Error & { code?: string }, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const [status, reason, code, message] = CLIENT_ERRORS[error.code ?? ""] ?? [400, "Bad Request", "invalid_request", "the request is not valid HTTP"];
  const detail = status === 431 ? `${message} of ${limits.maxHeaderBytes} bytes (HTTP_MAX_HEADER_BYTES)` : status === 408 ? `${message} (HTTP_HEADERS_TIMEOUT_MS ${limits.headersTimeoutMs}, HTTP_REQUEST_TIMEOUT_MS ${limits.requestTimeoutMs})` : message;
  const body = JSON.stringify({ error: detail, code });
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  lingerThenClose(socket);
}

/** Reads and discards what the client still sends, for at most LINGER_MS, then closes. */
function lingerThenClose(socket: Duplex): void {
  socket.on("data", () => undefined);
  socket.resume();
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
}

/**
 * An HTTP server with `limits` applied. A request sent with `Expect: 100-continue` is passed to
 * `listener` without the automatic `100 Continue`: the handler refuses it (401, 413) before the
 * client sends its body, or calls `continueBody` when it is about to read it.
 */
export function createLimitedServer(listener: RequestListener, limits: HttpServerLimits): Server {
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks both timeouts only this often (30 s by default).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 2))),
    },
    listener,
  );
  server.on("clientError", (error: Error & { code?: string }, socket: Duplex) => answerClientError(limits, error, socket));
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => server.emit("request", req, res));
  return server;
}

/** Sends `100 Continue` to a client that waits for it; call just before reading the body. */
export function continueBody(req: IncomingMessage, res: ServerResponse): void {
  if ((req.headers.expect ?? "").toLowerCase() === "100-continue" && !res.headersSent) res.writeContinue();
}
