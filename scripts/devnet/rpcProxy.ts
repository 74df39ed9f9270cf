import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A real HTTP JSON-RPC proxy in front of a chain, that a test can take down (connections are cut, as
 * when a node dies) or make refuse chosen methods, to see what a client does while its node is
 * unreachable. `swallow` forwards a method's requests but cuts the connection before the answer: the
 * node acted, the client never heard. `fail` answers a method with a JSON-RPC error of the node's own
 * wording (a full txpool, say) without forwarding it: the node said no. `answer` gives a method the
 * result another kind of node would (its client version, say). `before` runs a test's step
 * just before a method is forwarded, to make something happen between a client's two requests.
 * `cutWhen` cuts the connection of any request one of whose calls matches (an `eth_call` to one
 * contract, say), as a node that drops some requests under load does; `cutCount` says how many it cut.
 */
export async function startRpcProxy(target: string) {
  let down = false;
  const refused = new Set<string>();
  const swallowed = new Set<string>();
  const failed = new Map<string, string>();
  const answered = new Map<string, unknown>();
  /** Steps run before forwarding a method (given the call's params); each stays armed until it returns true. */
  const steps = new Map<string, (params: unknown[]) => boolean | Promise<boolean>>();
  const cuts: ((call: RpcCall) => boolean)[] = [];
  let cutCount = 0;
  const sockets = new Set<Socket>();
  const seen: string[] = [];
  const calls: { method: string; params: unknown[] }[] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    const methods = methodsOf(body);
    seen.push(...methods);
    calls.push(...callsOf(body).map((call) => ({ method: call.method ?? "", params: call.params ?? [] })));
    if (down || methods.some((method) => refused.has(method))) {
      req.socket.destroy();
      return;
    }
    if (callsOf(body).some((call) => cuts.some((cut) => cut({ method: call.method ?? "", params: call.params ?? [] })))) {
      cutCount += 1;
      req.socket.destroy();
      return;
    }
    const fault = injector?.(callsOf(body).map((call) => ({ method: call.method ?? "", params: call.params ?? [] })));
    if (fault !== undefined) return applyFault(fault, body, req, res);
    const failure = methods.map((method) => failed.get(method)).find((message) => message !== undefined);
    if (failure !== undefined) {
      const calls = callsOf(body);
      const errors = calls.map((call) => ({ jsonrpc: "2.0", id: call.id ?? null, error: { code: -32000, message: failure } }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(JSON.parse(body)) ? errors : errors[0]));
      return;
    }
    if (methods.length > 0 && methods.every((method) => answered.has(method))) {
      const results = callsOf(body).map((call) => ({ jsonrpc: "2.0", id: call.id ?? null, result: answered.get(call.method ?? "") }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(JSON.parse(body)) ? results : results[0]));
      return;
    }
    for (const call of callsOf(body)) {
      const method = call.method ?? "";
      const step = steps.get(method);
      if (step !== undefined && (await step(call.params ?? []))) steps.delete(method);
    }
    const answer = await fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
      (response) => response.text(),
      () => undefined,
    );
    if (answer === undefined || methods.some((method) => swallowed.has(method))) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(answer);
  };
  let injector: ((calls: RpcCall[]) => RpcFault | undefined) | undefined;
  const forward = (body: string) =>
    fetch(target, { method: "POST", headers: { "content-type": "application/json" }, body }).then(
      (response) => response.text(),
      () => undefined,
    );
  const reply = (res: ServerResponse, body: string, answers: unknown[]) =>
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(Array.isArray(JSON.parse(body)) ? answers : answers[0]));
  const applyFault = async (fault: RpcFault, body: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const calls = callsOf(body);
    switch (fault.kind) {
      case "status":
        res.writeHead(fault.status, { "content-type": "text/plain" }).end(fault.status === 429 ? "Too Many Requests" : "Bad Gateway");
        return;
      case "error":
        if (fault.forward) await forward(body);
        reply(res, body, calls.map((call) => ({ jsonrpc: "2.0", id: call.id ?? null, error: { code: -32000, message: fault.message } })));
        return;
      case "drop":
        await forward(body);
        req.socket.destroy();
        return;
      case "timeout":
        if (fault.forward) await forward(body);
        await new Promise((resolve) => setTimeout(resolve, fault.holdMs));
        req.socket.destroy();
        return;
      case "stale": {
        // The head as a node `blocks` behind the others would serve it: eth_blockNumber and
        // eth_getBlockByNumber("latest") answered from that block; anything else forwarded as is.
        const latest = await forward(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "eth_blockNumber", params: [] }));
        if (latest === undefined) return void req.socket.destroy();
        const staleNumber = BigInt(Math.max(0, Number(BigInt((JSON.parse(latest) as { result: string }).result)) - fault.blocks));
        const rewritten = calls.map((call) =>
          call.method === "eth_getBlockByNumber" && call.params?.[0] === "latest" ? { ...call, params: [`0x${staleNumber.toString(16)}`, ...call.params.slice(1)] } : call,
        );
        const answer = await forward(JSON.stringify(rewritten));
        if (answer === undefined) return void req.socket.destroy();
        const answers = (JSON.parse(answer) as { id?: unknown; result?: unknown }[]).map((entry, index) =>
          rewritten[index]?.method === "eth_blockNumber" ? { ...entry, result: `0x${staleNumber.toString(16)}` } : entry,
        );
        reply(res, body, answers);
        return;
      }
    }
  };
  const server = createServer((req, res) => void handle(req, res));
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    /** Every JSON-RPC method asked so far, in order. */
    seen,
    /** Every JSON-RPC call so far, with its parameters, in order. */
    calls,
    down(): void {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    up(): void {
      down = false;
    },
    refuse(...methods: string[]): void {
      for (const method of methods) refused.add(method);
    },
    swallow(...methods: string[]): void {
      for (const method of methods) swallowed.add(method);
    },
    /** Answers `method` with a JSON-RPC error carrying `message`, as a node refusing it would. */
    fail(method: string, message: string): void {
      failed.set(method, message);
    },
    /** Answers `method` with `result` itself, without forwarding it. */
    answer(method: string, result: unknown): void {
      answered.set(method, result);
    },
    /** Runs `step` before each `method` request is forwarded (with that call's params), until it returns true. */
    before(method: string, step: (params: unknown[]) => boolean | Promise<boolean>): void {
      steps.set(method, step);
    },
    /** Cuts the connection of every request with a call that `match` accepts, until `allow`. */
    cutWhen(match: (call: RpcCall) => boolean): void {
      cuts.push(match);
    },
    /**
     * Asks `decide` about every request (its calls, in order) from now on: a fault it returns is
     * applied instead of the normal answer (see RpcFault); undefined passes the request on. `inject()`
     * with nothing stops injecting.
     */
    inject(decide?: (calls: RpcCall[]) => RpcFault | undefined): void {
      injector = decide;
    },
    /** How many requests `cutWhen` has cut so far. */
    cutCount: () => cutCount,
    allow(): void {
      cuts.length = 0;
      refused.clear();
      swallowed.clear();
      failed.clear();
      answered.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

export type RpcProxy = Awaited<ReturnType<typeof startRpcProxy>>;

/**
 * A fault the proxy applies to one request. `drop`: forwarded, then the connection is cut before the
 * answer (the node acted, the client never heard). `timeout`: no answer for `holdMs`, then cut;
 * forwarded first or not. `error`: a JSON-RPC error with the node's `message` ("nonce too low",
 * "already known", ...), after forwarding the request (the node acted: the answer is wrong) or
 * without (the node never saw it). `status`: an HTTP 429 or 502 from a gateway, not forwarded.
 * `stale`: the head as a node `blocks` behind serves it.
 */
export type RpcFault =
  | { kind: "drop" }
  | { kind: "timeout"; forward: boolean; holdMs: number }
  | { kind: "error"; message: string; forward: boolean }
  | { kind: "status"; status: 429 | 502 }
  | { kind: "stale"; blocks: number };

/** One JSON-RPC call a proxy saw: its method and parameters. */
export type RpcCall = { method: string; params: unknown[] };

/** Whether `call` is an `eth_call` to `address`. */
export function isCallTo(call: RpcCall, address: string): boolean {
  const target = (call.params[0] as { to?: string } | undefined)?.to;
  return call.method === "eth_call" && target !== undefined && target.toLowerCase() === address.toLowerCase();
}

type JsonRpcCall = { id?: number | string; method?: string; params?: unknown[] };

function callsOf(body: string): JsonRpcCall[] {
  try {
    const parsed = JSON.parse(body) as JsonRpcCall | JsonRpcCall[];
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

function methodsOf(body: string): string[] {
  return callsOf(body).map((call) => call.method ?? "");
}
