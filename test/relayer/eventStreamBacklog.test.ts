import { expect } from "chai";
import Database from "better-sqlite3";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { request, type IncomingMessage } from "node:http";
import { join } from "node:path";
import { readServerSentEvents, type ServerSentEvent } from "../../sdk";
import { MAX_BACKLOG_EVENTS } from "../../api/routes/getGaslessEvents";
import { gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const PUSHED = { allowLoopbackWebhooks: true, maxStreamsPerKey: 1, maxStreamsPerIntegrator: 10, maxStreams: 1000, maxLifetimeSeconds: 300, keepAliveSeconds: 1 };

/**
 * Thousands of status changes through the chain would take minutes: these events are written
 * straight into the relayer's real SQLite store (the rows its own writes make), and the relayer,
 * the API and the client read them over real HTTP. Returns the sequence numbers written.
 */
function writeEvents(stack: GaslessStack, count: number, padding: number): number[] {
  const db = new Database(join(stack.directory, "relayer.sqlite"));
  try {
    db.pragma("busy_timeout = 5000");
    const insert = db.prepare(
      "INSERT INTO relay_events (event_id, relay_id, integrator_id, status, body, created_at) VALUES (@event_id, @relay_id, @integrator_id, 'accepted', @body, @created_at) RETURNING seq",
    );
    const pad = "x".repeat(padding);
    return db.transaction(() =>
      Array.from({ length: count }, (_, index) => {
        const eventId = `evt_backlog_${Date.now()}_${index}`;
        const body = JSON.stringify({ type: "relay.status", event_id: eventId, pad });
        return (insert.get({ event_id: eventId, relay_id: `relay_backlog_${index}`, integrator_id: stack.api.integratorId, body, created_at: Date.now() }) as { seq: number }).seq;
      }),
    )();
  } finally {
    db.close();
  }
}

async function* sseOf(response: IncomingMessage): AsyncGenerator<ServerSentEvent> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      response.on("data", (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)));
      response.on("end", () => controller.close());
      response.on("error", (error) => controller.error(error));
    },
  });
  yield* readServerSentEvents(body);
}

describe("server-sent event streams hold a bounded backlog: catch-up page by page, slow clients cut off (in-process relayer and API, real HTTP, SQLite)", function () {
  this.timeout(180_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  const open: AbortController[] = [];

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
  });
  afterEach(async () => {
    for (const controller of open.splice(0)) controller.abort();
    await stack?.close();
    stack = undefined;
  });

  function openStream(key: string, lastEventId?: number): Promise<Response> {
    const controller = new AbortController();
    open.push(controller);
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (lastEventId !== undefined) headers["last-event-id"] = String(lastEventId);
    return fetch(`${stack!.api.url}/gasless/events`, { headers, signal: controller.signal });
  }

  it("a stream resumed from Last-Event-ID 0 over 350 events delivers them all in order, each catch-up page written before the next is read", async () => {
    stack = await startGaslessStack(f, { api: { pushed: PUSHED } });
    const seqs = writeEvents(stack, 350, 10);
    // The third catch-up read waits until the client has received the first page: a stream that
    // gathered every page before writing would never get there.
    const store = stack.relayer!.context.store;
    const list = store.listRelayEvents.bind(store);
    let reads = 0;
    let firstPageSeen = () => undefined as void;
    const firstPage = new Promise<void>((resolve) => (firstPageSeen = resolve));
    let gateTimedOut = false;
    store.listRelayEvents = async (query) => {
      if (++reads === 3) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([firstPage, new Promise<void>((resolve) => (timer = setTimeout(resolve, 20_000)).unref()).then(() => (gateTimedOut = true))]);
        clearTimeout(timer);
      }
      return list(query);
    };
    const response = await openStream(stack.api.apiKey.secret, 0);
    expect(response.status).to.equal(200);
    const ids: number[] = [];
    for await (const event of readServerSentEvents(response.body!)) {
      if (event.event !== "relay.status") continue;
      ids.push(Number(event.id));
      if (ids.length === 100) firstPageSeen();
      if (ids.length === seqs.length) break;
    }
    open.pop()!.abort();
    expect(gateTimedOut, "the first page reached the client before the third page was read").to.equal(false);
    expect(ids).to.deep.equal(seqs);
    expect(reads).to.be.at.least(4);
  });

  it(`a client that stops reading is cut off once ${MAX_BACKLOG_EVENTS} live events wait for it, with stream.end (reason backlog) naming where to resume; the resume gets the rest, none lost or repeated`, async () => {
    stack = await startGaslessStack(f, { api: { pushed: PUSHED } });
    const key = stack.api.apiKey.secret;
    // 16 MB of catch-up, far more than loopback's socket buffers hold for a client that does not read.
    const catchUp = writeEvents(stack, 4_000, 4_000);
    const slow = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(`${stack!.api.url}/gasless/events`, { headers: { authorization: `Bearer ${key}`, "last-event-id": "0" } }, resolve);
      req.on("error", reject);
      req.end();
    });
    expect(slow.statusCode).to.equal(200);
    // The client reads nothing now. Its place is taken (one stream per key here).
    const second = await openStream(key);
    expect(second.status).to.equal(429);
    const live = writeEvents(stack, MAX_BACKLOG_EVENTS + 100, 10);
    // The stream ends (its place frees) once the feed has brought more than the bound.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const answer = await openStream(key);
      if (answer.status === 200) {
        open.pop()!.abort();
        break;
      }
      expect(answer.status).to.equal(429);
      expect(Date.now(), "the slow stream was not cut off").to.be.below(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The client reads again: what was sent before the cut, then where to resume.
    const received: number[] = [];
    let end: ServerSentEvent | undefined;
    for await (const event of sseOf(slow)) {
      if (event.event === "relay.status") received.push(Number(event.id));
      if (event.event === "stream.end") end = event;
    }
    const all = [...catchUp, ...live];
    expect(end?.event).to.equal("stream.end");
    expect(JSON.parse(end!.data)).to.deep.equal({ reason: "backlog", resume_after: received.at(-1) });
    expect(end!.id).to.equal(String(received.at(-1)));
    expect(received.length).to.be.within(1, catchUp.length);
    expect(received).to.deep.equal(all.slice(0, received.length));

    const resumed = await openStream(key, Number(end!.id));
    expect(resumed.status).to.equal(200);
    for await (const event of readServerSentEvents(resumed.body!)) {
      if (event.event !== "relay.status") continue;
      received.push(Number(event.id));
      if (received.length === all.length) break;
    }
    expect(received).to.deep.equal(all);
  });
});
