import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import { createWalletClient, http, type LocalAccount } from "viem";
import { createTradingClient, readServerSentEvents, type RelayStatusEventJson } from "../../sdk";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });
const PUSHED = { allowLoopbackWebhooks: true, maxStreamsPerKey: 5, maxStreamsPerIntegrator: 10, maxStreams: 1000, maxLifetimeSeconds: 300, keepAliveSeconds: 15 };

describe("server-sent event streams: caps, lifetime and pushed events (in-process relayer and API, real HTTP)", function () {
  this.timeout(120_000);
  let f: SettlementFixture;
  let stack: GaslessStack | undefined;
  const open: AbortController[] = [];

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
  });
  afterEach(async () => {
    for (const controller of open.splice(0)) controller.abort();
    await setAutomine(true);
    await stack?.close();
    stack = undefined;
  });

  async function submitFrom(taker: LocalAccount): Promise<string> {
    const quote = (await stack!.gaslessQuote(taker.address)).body;
    const response = await stack!.submit({ quote_id: quote.quote_id, signature: await stack!.sign(quote, taker) });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
    return response.body.relay_id as string;
  }

  async function openStream(key: string, query = ""): Promise<Response> {
    const controller = new AbortController();
    open.push(controller);
    return fetch(`${stack!.api.url}/gasless/events${query}`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  }

  it("60 streams from 12 keys of one integrator: SSE_MAX_STREAMS_PER_INTEGRATOR are served, the rest refused with 429 too_many_integrator_streams; past SSE_MAX_STREAMS, 503 stream_capacity_reached", async () => {
    stack = await startGaslessStack(f, { api: { pushed: PUSHED, maxApiKeysPerIntegrator: 12 } });
    const owner = stack.api.owner;
    const wallet = createWalletClient({ account: owner, transport: http("http://127.0.0.1:1") });
    const client = createTradingClient({ apiUrl: stack.api.url });
    const keys = [stack.api.apiKey.secret];
    for (let index = 1; index < 12; index++) keys.push((await client.createApiKey(wallet, stack.api.integratorId, `key ${index}`)).api_key);
    const answers: { status: number; code: string | undefined }[] = [];
    for (let index = 0; index < 60; index++) {
      const response = await openStream(keys[index % 12]!);
      const code = response.status === 200 ? undefined : ((await response.json()) as { code: string }).code;
      answers.push({ status: response.status, code });
    }
    expect(answers.filter((answer) => answer.status === 200)).to.have.length(10);
    expect(answers.slice(10).every((answer) => answer.status === 429 && answer.code === "too_many_integrator_streams"), JSON.stringify(answers.slice(10))).to.equal(true);
    // A closed stream frees its place.
    open.shift()!.abort();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await openStream(keys[0]!)).status).to.equal(200);

    await stack.close();
    stack = await startGaslessStack(f, { api: { pushed: { ...PUSHED, maxStreams: 2 } } });
    expect((await openStream(stack.api.apiKey.secret)).status).to.equal(200);
    expect((await openStream(stack.api.apiKey.secret)).status).to.equal(200);
    const full = await openStream(stack.api.apiKey.secret);
    expect([full.status, ((await full.json()) as { code: string }).code]).to.deep.equal([503, "stream_capacity_reached"]);
  });

  it("a status change reaches every open stream without a read per stream: the relayer's store is read once per event for the instance, and not at all while idle", async () => {
    const [taker] = await fundedTakers(f, 1);
    stack = await startGaslessStack(f, { api: { pushed: { ...PUSHED, maxStreamsPerKey: 10 } } });
    const store = stack.relayer!.context.store;
    let reads = 0;
    for (const method of ["listRelayEvents", "listEventFeed"] as const) {
      const read = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
      (store as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        reads++;
        return read(...args);
      };
    }
    const streams = await Promise.all(Array.from({ length: 8 }, () => openStream(stack!.api.apiKey.secret)));
    expect(streams.map((response) => response.status)).to.deep.equal(Array(8).fill(200));
    const firstEvents = streams.map(async (response) => {
      for await (const event of readServerSentEvents(response.body!)) if (event.event === "relay.status") return JSON.parse(event.data) as RelayStatusEventJson;
      return undefined;
    });
    // Idle: after the streams' catch-up reads, nothing reads the store (the old relayer polled every 250 ms per stream).
    await new Promise((resolve) => setTimeout(resolve, 300));
    const settled = reads;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(reads - settled, "store reads while 8 streams were idle for 1.5 s").to.equal(0);
    await setAutomine(false);
    const relayId = await submitFrom(taker!);
    const received = await Promise.all(firstEvents);
    expect(received.map((event) => [event?.relay.relay_id, event?.relay.status])).to.deep.equal(Array(8).fill([relayId, "accepted"]));
    // One feed read per event written (the relayer's own status reads aside), whatever the number of streams.
    expect(reads - settled).to.be.at.most(3);
  });

  it("a stream ends at SSE_MAX_LIFETIME_SECONDS with stream.end naming where to resume, and watchRelay resumes with Last-Event-ID, losing and repeating nothing", async () => {
    stack = await startGaslessStack(f, { api: { pushed: { ...PUSHED, maxLifetimeSeconds: 1 } } });
    const [taker, second] = await fundedTakers(f, 2);
    await setAutomine(false);
    // The raw stream: ends after a second with the id to resume from.
    const started = Date.now();
    const raw = await openStream(stack.api.apiKey.secret);
    const seen: { event: string | undefined; id: string | undefined }[] = [];
    for await (const event of readServerSentEvents(raw.body!)) seen.push({ event: event.event, id: event.id });
    expect(Date.now() - started).to.be.within(900, 5_000);
    expect(seen.at(-1)?.event).to.equal("stream.end");
    expect(seen.at(-1)?.id).to.match(/^[0-9]+$/);

    // The integrator's stream across a lifetime's end: events written while it was closed come after
    // the resume, none twice, none lost.
    const collected: { id: number; relay: string; status: string }[] = [];
    const read = async (response: Response): Promise<string | undefined> => {
      let end: string | undefined;
      for await (const event of readServerSentEvents(response.body!)) {
        if (event.event === "stream.end") end = event.id;
        if (event.event !== "relay.status") continue;
        const body = JSON.parse(event.data) as RelayStatusEventJson;
        collected.push({ id: Number(event.id), relay: body.relay.relay_id, status: body.relay.status });
      }
      return end;
    };
    const first = read(await openStream(stack.api.apiKey.secret));
    const relayA = await submitFrom(taker!);
    const endId = await first;
    expect(endId).to.match(/^[0-9]+$/);
    const relayB = await submitFrom(second!);
    await stack.waitFor(relayA, (relay) => relay.status === "submitted");
    await stack.waitFor(relayB, (relay) => relay.status === "submitted");
    const resumed = await fetch(`${stack.api.url}/gasless/events`, { headers: { authorization: `Bearer ${stack.api.apiKey.secret}`, "last-event-id": endId! } });
    await read(resumed);
    const ids = collected.map((event) => event.id);
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(ids.length);
    expect(collected.map((event) => `${event.relay === relayA ? "A" : "B"}:${event.status}`).sort()).to.deep.equal(["A:accepted", "A:submitted", "B:accepted", "B:submitted"]);

    // watchRelay rides over the lifetime's ends to the final status, each status once.
    const client = createTradingClient({ apiUrl: stack.api.url, apiKey: stack.api.apiKey.secret });
    const statuses: string[] = [];
    const watching = client.watchRelay(relayA, { onStatus: (relay) => statuses.push(relay.status), mode: "sse", timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await mine(1);
    const relay = await watching;
    expect(relay.status).to.equal("confirmed");
    expect(statuses.at(-1)).to.equal("confirmed");
    expect(new Set(statuses).size).to.equal(statuses.length);
  });
});
