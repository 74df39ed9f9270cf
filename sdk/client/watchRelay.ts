import { ApiError, RelayTimeoutError } from "../errors/client";
import { isFinalRelayStatus } from "../relay/relayStatus";
import type { RelayStatusEventJson } from "../relay/pushedStatusWire";
import type { RelayJson } from "../relay/relayWire";
import { parseRelayJson } from "../wire/relayJson";
import type { ApiTransport } from "./apiTransport";
import { getRelay, waitForRelay } from "./gaslessRelay";
import { readServerSentEvents } from "./serverSentEvents";

export type WatchRelayOptions = {
  /** Called with each status change, in order (once per change, also across reconnects). */
  onStatus?: (relay: RelayJson) => void;
  /** Give up (RelayTimeoutError) after this long; default 120000 ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Poll interval when it falls back to GET /gasless/status; default 1000 ms. */
  pollIntervalMs?: number;
  /** Stream reconnects in a row, each resuming with Last-Event-ID, before it falls back to polling; default 3. */
  maxReconnects?: number;
  /** `sse` never polls; `poll` never streams; default `auto`. */
  mode?: "auto" | "sse" | "poll";
};

/** The stream cannot serve this watch (an API without GET /gasless/events, too many streams): poll instead. */
class StreamUnavailable extends Error {}

/**
 * Follows a relay until it is final and returns it: over GET /gasless/events?relay_id=… (server-sent
 * events, resumed with Last-Event-ID after a dropped connection), falling back to polling
 * GET /gasless/status when the stream is unavailable or keeps failing.
 */
export async function watchRelay(transport: ApiTransport, relayId: string, options: WatchRelayOptions = {}): Promise<RelayJson> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  const seen = new Set<string>();
  let last: RelayJson | undefined;
  const report = (relay: RelayJson) => {
    const key = `${relay.status}:${relay.tx_hash ?? ""}`;
    if (seen.has(key)) return;
    seen.add(key);
    last = relay;
    options.onStatus?.(relay);
  };
  if (options.mode !== "poll") {
    // Read once first: a relay that is final already (or whose events are past their retention) answers at once.
    const current = await getRelay(transport, relayId, options.signal);
    report(current);
    if (isFinalRelayStatus(current.status)) return current;
    try {
      const final = await streamUntilFinal(transport, relayId, options, deadline, report);
      if (final !== undefined) return final;
      if (Date.now() >= deadline) throw new RelayTimeoutError(relayId, last?.status ?? "accepted", timeoutMs);
    } catch (error) {
      if (!(error instanceof StreamUnavailable) || options.mode === "sse") throw error;
      transport.logger.warn?.(`GET /gasless/events: ${error.message}; polling GET /gasless/status instead`);
    }
  }
  return waitForRelay(transport, relayId, { intervalMs: options.pollIntervalMs ?? 1000, timeoutMs: Math.max(0, deadline - Date.now()), signal: options.signal, onStatus: report });
}

async function streamUntilFinal(
  transport: ApiTransport,
  relayId: string,
  options: WatchRelayOptions,
  deadline: number,
  report: (relay: RelayJson) => void,
): Promise<RelayJson | undefined> {
  const path = `/gasless/events?relay_id=${encodeURIComponent(relayId)}`;
  let lastEventId: string | undefined;
  let failures = 0;
  while (Date.now() < deadline) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now()));
    const abort = () => controller.abort();
    options.signal?.addEventListener("abort", abort, { once: true });
    let endedByServer = false;
    try {
      const response = await transport.openStream(path, lastEventId === undefined ? {} : { "last-event-id": lastEventId }, controller.signal).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === "network_error") return undefined;
        throw error;
      });
      if (response !== undefined) {
        const type = response.headers.get("content-type") ?? "";
        if (!response.ok || !type.startsWith("text/event-stream")) {
          const body = (await response.json().catch(() => ({}))) as { code?: unknown; error?: unknown };
          const code = typeof body.code === "string" ? body.code : `http_${response.status}`;
          // The relay is not this integrator's, or the key is refused: polling would say the same.
          if (code === "relay_not_found" || response.status === 401 || response.status === 403) {
            throw new ApiError({ method: "GET", path, status: response.status, code, message: typeof body.error === "string" ? body.error : response.statusText, body: body as Record<string, unknown> });
          }
          throw new StreamUnavailable(`answered ${response.status} ${code}`);
        }
        for await (const event of readServerSentEvents(response.body!)) {
          if (event.event === "stream.end") {
            // The server's lifetime for a stream is over: resume at once from the id it names.
            lastEventId = event.id ?? lastEventId;
            endedByServer = true;
            break;
          }
          if (event.event !== "relay.status") continue;
          lastEventId = event.id ?? lastEventId;
          failures = 0;
          const relay = parseRelayJson((JSON.parse(event.data) as RelayStatusEventJson).relay);
          report(relay);
          if (isFinalRelayStatus(relay.status)) return relay;
        }
      }
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (error instanceof ApiError || error instanceof StreamUnavailable) throw error;
      if (controller.signal.aborted) return undefined; // the deadline
      // A stream cut mid-read: resume below.
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", abort);
    }
    if (endedByServer) {
      failures = 0;
      continue;
    }
    if (++failures > (options.maxReconnects ?? 3)) throw new StreamUnavailable(`the stream dropped ${failures} times in a row`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 250 * 2 ** (failures - 1))));
  }
  return undefined;
}
