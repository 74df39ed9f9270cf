import { ApiError } from "../errors/client";
import type { ClientLogger } from "./clientLogger";

export type FetchFunction = (input: string, init?: RequestInit) => Promise<Response>;

export type ApiTransportOptions = {
  apiUrl: string;
  apiKey: string | undefined;
  fetch: FetchFunction;
  logger: ClientLogger;
  /** Attempts of a retryable request (first try included); default 4. */
  maxAttempts?: number;
  /** First backoff delay; doubled per attempt, capped at 8 s, unless the API sent Retry-After. */
  baseDelayMs?: number;
  /** Abort one attempt that has not answered after this long (ApiError code `timeout`); none by default. */
  timeoutMs?: number;
};

export type ApiRequest = {
  method: "GET" | "POST";
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** Needs the API key (trading endpoints). */
  authenticated?: boolean;
  /** May be repeated safely: every GET, and POST /gasless/submit with its idempotency key. */
  retry?: boolean;
  signal?: AbortSignal;
};

export type ApiResponse = { status: number; headers: Headers; body: unknown };

const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

function retryAfterSeconds(headers: Headers): number | undefined {
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** fetch's "fetch failed" keeps the reason (ECONNREFUSED, ENOTFOUND, …) in its cause. */
function networkReason(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  const inner = (cause as Error & { cause?: { code?: unknown } }).cause;
  return typeof inner?.code === "string" ? `${cause.message}: ${inner.code}` : cause.message;
}

/**
 * What a retryable failure of this request means for its caller: a repeatable request was already
 * repeated; any other POST was sent once, since repeating it blindly may act twice.
 */
export function retryAdvice(request: Pick<ApiRequest, "method" | "path" | "retry">, attempts: number): string {
  const tries = attempts === 1 ? "once" : `${attempts} times with backoff`;
  if (request.method === "GET") {
    return request.retry ? `The client already sent this GET ${tries}.` : "The client sent this GET once, without retries (a probe): send it again later if you still need it.";
  }
  if (request.retry) {
    return request.path === "/gasless/submit"
      ? `The client already sent this POST ${tries} with one idempotency key: submit again with the same idempotencyKey, which returns the relay the first submission created, if any.`
      : `The client already sent this POST ${tries}; it is safe to send it again.`;
  }
  return `The client did not repeat this POST (it is not idempotent): check whether it took effect (viewProfile lists profiles and keys) before sending it again.`;
}

/**
 * The API over HTTP: JSON in, JSON out, every failure an ApiError. Retryable requests are repeated on
 * 429, 502-504 and network errors, waiting Retry-After when the API sends it and an exponential
 * backoff otherwise. 304 is an answer, not an error.
 */
export class ApiTransport {
  readonly apiUrl: string;
  readonly #options: ApiTransportOptions;

  constructor(options: ApiTransportOptions) {
    this.apiUrl = options.apiUrl.replace(/\/+$/, "");
    this.#options = options;
  }

  get logger(): ClientLogger {
    return this.#options.logger;
  }

  get hasApiKey(): boolean {
    return this.#options.apiKey !== undefined;
  }

  async request(request: ApiRequest): Promise<ApiResponse> {
    const attempts = request.retry ? (this.#options.maxAttempts ?? 4) : 1;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#once(request, attempts);
      } catch (error) {
        if (!(error instanceof ApiError) || !error.retryable || attempt >= attempts || request.signal?.aborted) throw error;
        const backoff = Math.min(8000, (this.#options.baseDelayMs ?? 250) * 2 ** (attempt - 1));
        const delay = error.retryAfterSeconds === undefined ? backoff : error.retryAfterSeconds * 1000;
        this.#options.logger.warn?.(`${request.method} ${request.path}: ${error.code}; retry ${attempt}/${attempts - 1} in ${delay} ms`);
        await sleep(delay, request.signal);
      }
    }
  }

  /**
   * An authenticated GET whose body is left unread (a server-sent-events stream): resolves with the
   * response once its headers arrive; network failures reject as ApiError `network_error`.
   */
  async openStream(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response> {
    if (this.#options.apiKey === undefined) {
      throw new ApiError({ method: "GET", path, status: 401, code: "api_key_missing", message: "this client has no apiKey; pass apiKey to createTradingClient (onboard first to get one)" });
    }
    try {
      return await this.#options.fetch(`${this.apiUrl}${path}`, { method: "GET", headers: { accept: "text/event-stream", authorization: `Bearer ${this.#options.apiKey}`, ...headers }, signal });
    } catch (cause) {
      if (signal.aborted) throw cause;
      throw new ApiError({ method: "GET", path, status: 0, code: "network_error", message: `could not reach ${this.apiUrl}${path} (${networkReason(cause)})`, cause });
    }
  }

  /** One attempt; `attempts` is how many this request gets in all, for the advice of a final retryable error. */
  async #once(request: ApiRequest, attempts: number): Promise<ApiResponse> {
    const advice = retryAdvice(request, attempts);
    const headers: Record<string, string> = { accept: "application/json", ...request.headers };
    if (request.authenticated) {
      if (this.#options.apiKey === undefined) {
        throw new ApiError({ method: request.method, path: request.path, status: 401, code: "api_key_missing", message: "this client has no apiKey; pass apiKey to createTradingClient (onboard first to get one)" });
      }
      headers.authorization = `Bearer ${this.#options.apiKey}`;
    }
    if (request.body !== undefined) headers["content-type"] = "application/json";
    const timeoutMs = this.#options.timeoutMs;
    const timeout = timeoutMs === undefined ? undefined : AbortSignal.timeout(timeoutMs);
    const signals = [request.signal, timeout].filter((signal): signal is AbortSignal => signal !== undefined);
    const url = `${this.apiUrl}${request.path}`;
    let response: Response;
    try {
      response = await this.#options.fetch(url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: signals.length === 0 ? undefined : AbortSignal.any(signals),
      });
    } catch (cause) {
      if (request.signal?.aborted) throw cause;
      if (timeout?.aborted) {
        throw new ApiError({ method: request.method, path: request.path, status: 0, code: "timeout", message: `${url} did not answer within ${timeoutMs} ms`, cause, retryAdvice: advice });
      }
      throw new ApiError({ method: request.method, path: request.path, status: 0, code: "network_error", message: `could not reach ${url} (${networkReason(cause)})`, cause, retryAdvice: advice });
    }
    const text = await response.text();
    let body: unknown = undefined;
    if (text !== "") {
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
    }
    if (response.ok || response.status === 304) return { status: response.status, headers: response.headers, body };
    const fields = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
    throw new ApiError({
      method: request.method,
      path: request.path,
      status: response.status,
      code: typeof fields.code === "string" ? fields.code : `http_${response.status}`,
      message: typeof fields.error === "string" ? fields.error : text.slice(0, 200) || response.statusText,
      retryAfterSeconds: retryAfterSeconds(response.headers),
      body: fields,
      retryAdvice: advice,
    });
  }
}
