import type { RequestKind, RequestSample } from "./soakReport";

export type SoakAnswer = { status: number; body: any; headers: Headers };
export type SoakRequest = { method?: string; key?: string; json?: unknown; body?: string; headers?: Record<string, string>; contentType?: string };

const TIMEOUT_MS = 30_000;

/**
 * HTTP to the API instances as a load balancer in front of them would send it: round-robin, and a
 * request that gets no answer (connection refused or reset: an instance died) is tried once on the
 * next instance. Every attempt is recorded, with its latency, status and the instance that answered.
 */
export function soakHttp(apis: readonly string[], now: () => number, record: (sample: RequestSample) => void) {
  let next = 0;
  const once = async (api: string, kind: RequestKind, path: string, request: SoakRequest): Promise<SoakAnswer | undefined> => {
    const atMs = now();
    const started = performance.now();
    const instance = `api-${apis.indexOf(api) + 1}`;
    try {
      const body = request.body ?? (request.json === undefined ? undefined : JSON.stringify(request.json));
      const response = await fetch(`${api}${path}`, {
        method: request.method ?? (body === undefined ? "GET" : "POST"),
        headers: {
          ...(request.key === undefined ? {} : { authorization: `Bearer ${request.key}` }),
          ...(body === undefined ? {} : { "content-type": request.contentType ?? "application/json" }),
          ...request.headers,
        },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const text = await response.text();
      let parsed: any = undefined;
      try {
        parsed = text === "" ? undefined : JSON.parse(text);
      } catch {
        parsed = text;
      }
      const code = typeof parsed?.code === "string" ? (parsed.code as string) : undefined;
      record({ atMs, ms: performance.now() - started, kind, instance, status: response.status, ...(code === undefined ? {} : { code }) });
      return { status: response.status, body: parsed, headers: response.headers };
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error instanceof Error ? error.name : "error");
      record({ atMs, ms: performance.now() - started, kind, instance, status: 0, code: cause });
      return undefined;
    }
  };
  return {
    /** Sends to the next instance; with no answer, once more to the one after. Undefined: neither answered. */
    async send(kind: RequestKind, path: string, request: SoakRequest = {}): Promise<SoakAnswer | undefined> {
      const first = apis[next++ % apis.length]!;
      const answer = await once(first, kind, path, request);
      if (answer !== undefined || apis.length === 1) return answer;
      return once(apis[(apis.indexOf(first) + 1) % apis.length]!, kind, path, request);
    },
    /** The instance the next request goes to (onboarding uses the SDK's own HTTP). */
    pick(): { url: string; instance: string } {
      const index = next++ % apis.length;
      return { url: apis[index]!, instance: `api-${index + 1}` };
    },
  };
}

export type SoakHttp = ReturnType<typeof soakHttp>;
