import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, mine } from "@nomicfoundation/hardhat-network-helpers";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { createTradingClient, readServerSentEvents, type RelayJson, type RelayStatusEventJson, type WebhookDeliveryJson } from "../../sdk";
import { fundedTakers, gaslessReadyFixture, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { setWebhook, WebhookReceiver } from "../fixtures/webhookReceiver";
import { runScript } from "../fixtures/runScript";
import { join } from "node:path";

const setAutomine = (on: boolean) => hre.network.provider.request({ method: "evm_setAutomine", params: [on] });

/** Fast retries, so an endpoint that comes back is retried within the test. */
const FAST_RETRIES = { WEBHOOK_RETRY_BASE_MS: "100", WEBHOOK_RETRY_MAX_MS: "300", WEBHOOK_POLL_MS: "25", WEBHOOK_BREAKER_COOLDOWN_SECONDS: "1" };

describe("pushed status: webhooks and server-sent events (in-process relayer and API, real HTTP)", function () {
  this.timeout(90_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    f = await loadFixture(gaslessReadyFixture);
    stack = await startGaslessStack(f, { relayerEnv: FAST_RETRIES });
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterEach(async () => {
    await setAutomine(true);
    await receiver.stop();
    await stack.close();
  });

  async function register(url = receiver.url) {
    const answer = await setWebhook(stack.api.url, stack.api.owner, stack.api.integratorId, url);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    expect(answer.body.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(answer.body.signature_scheme).to.equal("standard-webhooks-v1");
    receiver.secret = answer.body.secret as string;
  }

  async function submitFrom(taker: LocalAccount): Promise<string> {
    const quote = (await stack.gaslessQuote(taker.address)).body;
    const response = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(response.status, JSON.stringify(response.body)).to.equal(202);
    return response.body.relay_id as string;
  }

  const deliveries = async (): Promise<{ url: string | null; deliveries: WebhookDeliveryJson[] }> =>
    (await stack.api.request("GET", "/gasless/webhook/deliveries", { headers: { authorization: `Bearer ${stack.api.apiKey.secret}` } })).body;

  it("POSTs every status change of every relay, signed per Standard Webhooks, in order per relay, with the relay as GET /gasless/status shows it", async () => {
    await register();
    const takers = await fundedTakers(f, 2);
    const relayIds = [await submitFrom(takers[0]!), await submitFrom(takers[1]!)];
    for (const relayId of relayIds) await stack.waitFor(relayId);
    await receiver.waitFor(() => relayIds.every((id) => receiver.statusesOf(id).includes("confirmed")));
    expect(receiver.received.every((delivery) => delivery.verified), JSON.stringify(receiver.received)).to.equal(true);
    for (const relayId of relayIds) {
      expect(receiver.statusesOf(relayId)).to.deep.equal(["accepted", "submitted", "confirmed"]);
      const final = receiver.uniqueEvents().find((event) => event.relay.relay_id === relayId && event.relay.status === "confirmed")!;
      expect(final.relay).to.deep.equal((await stack.status(relayId)).body);
      expect(final.event_id).to.match(/^evt_[0-9a-f]{32}$/);
      expect(Date.parse(final.timestamp)).to.be.closeTo(Date.now(), 60_000);
    }
    const listed = await deliveries();
    expect(listed.url).to.equal(receiver.url);
    expect(listed.deliveries).to.have.length(6);
    expect(listed.deliveries.every((delivery) => delivery.state === "delivered" && delivery.attempts === 1)).to.equal(true);
  });

  it("an endpoint that is down gets every event once it is back, retried with backoff, in order", async () => {
    await register();
    await receiver.stop();
    const [taker] = await fundedTakers(f, 1);
    const relayId = await submitFrom(taker!);
    await stack.waitFor(relayId);
    // Down: the deliveries are pending, with failed attempts the integrator can read.
    const until = Date.now() + 10_000;
    let pending: WebhookDeliveryJson[] = [];
    while (Date.now() < until) {
      pending = (await deliveries()).deliveries;
      if (pending.some((delivery) => delivery.attempts >= 2)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(pending.every((delivery) => delivery.state === "pending"), JSON.stringify(pending)).to.equal(true);
    expect(pending.some((delivery) => delivery.attempts >= 2 && delivery.last_error !== null)).to.equal(true);
    // Only the relay's first event is tried while it fails: the later ones wait their turn.
    expect(pending.filter((delivery) => delivery.attempts > 0).map((delivery) => delivery.status)).to.deep.equal(["accepted"]);
    // The operator's view of failing endpoints, as a separate process on the relayer's and the API's databases.
    const listed = await runScript("scripts/integrators.ts", ["webhook-failures", "--json"], { API_DB_PATH: stack.api.dbPath, RELAYER_DB_PATH: join(stack.directory, "relayer.sqlite") });
    expect(listed.status, listed.stderr).to.equal(0);
    const failing = JSON.parse(listed.stdout) as { slug: string; url: string; pending: number; failed: number; last_error: string }[];
    expect(failing.map((row) => [row.slug, row.url, row.pending, row.failed])).to.deep.equal([[`quote-${stack.api.owner.address.slice(2, 10).toLowerCase()}`, receiver.url, 3, 0]]);
    // Coarse, as the integrator sees it: the socket's own error stays in the operator's log.
    expect(failing[0]!.last_error).to.equal("unreachable");
    await receiver.start();
    await receiver.waitFor(() => receiver.statusesOf(relayId).length === 3);
    expect(receiver.statusesOf(relayId)).to.deep.equal(["accepted", "submitted", "confirmed"]);
    let states: string[] = [];
    for (const wait = Date.now() + 10_000; Date.now() < wait; await new Promise((resolve) => setTimeout(resolve, 50))) {
      states = (await deliveries()).deliveries.map((delivery) => delivery.state);
      if (states.length === 3 && states.every((state) => state === "delivered")) break;
    }
    expect(states).to.deep.equal(["delivered", "delivered", "delivered"]);
  });

  it("rotating the webhook issues a new secret that signs the next deliveries; clearing it stops them", async () => {
    await register();
    const first = receiver.secret;
    await register();
    expect(receiver.secret).to.not.equal(first);
    const [taker] = await fundedTakers(f, 1);
    const relayId = await submitFrom(taker!);
    await stack.waitFor(relayId);
    await receiver.waitFor(() => receiver.statusesOf(relayId).length === 3);
    expect(receiver.received.every((delivery) => delivery.verified)).to.equal(true);
    const cleared = await setWebhook(stack.api.url, stack.api.owner, stack.api.integratorId, null);
    expect([cleared.status, cleared.body.url, cleared.body.secret]).to.deep.equal([200, null, null]);
    const count = receiver.received.length;
    const [other] = await fundedTakers(f, 1);
    await stack.waitFor(await submitFrom(other!));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.received).to.have.length(count);
  });

  it("refuses a webhook signed by a wallet other than the owner's, one for another integrator, and a URL that is not https off the devnet", async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    const wrongSigner = await setWebhook(stack.api.url, stack.api.owner, stack.api.integratorId, receiver.url, stranger);
    expect([wrongSigner.status, wrongSigner.body.code]).to.deep.equal([401, "invalid_signature"]);
    const notOwner = await setWebhook(stack.api.url, stranger, stack.api.integratorId, receiver.url);
    expect([notOwner.status, notOwner.body.code]).to.deep.equal([403, "not_integrator_owner"]);
    // On the devnet only loopback may be plain http.
    const remoteHttp = await setWebhook(stack.api.url, stack.api.owner, stack.api.integratorId, "http://hooks.example.com/relays");
    expect([remoteHttp.status, remoteHttp.body.code]).to.deep.equal([400, "webhook_url_not_https"]);
    const metadata = await setWebhook(stack.api.url, stack.api.owner, stack.api.integratorId, "https://169.254.169.254/latest");
    expect([metadata.status, metadata.body.code]).to.deep.equal([400, "webhook_url_internal"]);
    expect((await deliveries()).url).to.equal(null);
  });

  it("off the devnet (WEBHOOK_ALLOW_LOOPBACK_HTTP=false) a loopback http URL is refused", async () => {
    await stack.close();
    stack = await startGaslessStack(f, { relayerEnv: FAST_RETRIES, api: { pushed: { allowLoopbackWebhooks: false, maxStreamsPerKey: 5, maxStreamsPerIntegrator: 10, maxStreams: 1000, maxLifetimeSeconds: 300, keepAliveSeconds: 15 } } });
    const refused = await setWebhook(stack.api.url, stack.api.owner, stack.api.integratorId, receiver.url);
    expect([refused.status, refused.body.code, refused.body.error]).to.deep.equal([400, "webhook_url_not_https", "url: must be https"]);
  });

  async function readEvents(relayId: string, lastEventId: string | undefined, stop: (event: RelayStatusEventJson) => boolean) {
    const controller = new AbortController();
    const response = await fetch(`${stack.api.url}/gasless/events?relay_id=${relayId}`, {
      headers: { authorization: `Bearer ${stack.api.apiKey.secret}`, ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) },
      signal: controller.signal,
    });
    expect(response.status).to.equal(200);
    expect(response.headers.get("content-type")).to.match(/^text\/event-stream/);
    const events: { id: string; event: RelayStatusEventJson }[] = [];
    for await (const sse of readServerSentEvents(response.body!)) {
      expect(sse.event).to.equal("relay.status");
      const event = JSON.parse(sse.data) as RelayStatusEventJson;
      events.push({ id: sse.id!, event });
      if (stop(event)) break;
    }
    controller.abort();
    return events;
  }

  it("an SSE client that disconnects and reconnects with Last-Event-ID misses no status change and sees none twice", async () => {
    const [taker] = await fundedTakers(f, 1);
    await setAutomine(false);
    const relayId = await submitFrom(taker!);
    const first = await readEvents(relayId, undefined, (event) => event.relay.status === "submitted");
    expect(first.map((event) => event.event.relay.status)).to.deep.equal(["accepted", "submitted"]);
    // Disconnected while the swap is mined and confirmed.
    await mine(1);
    await stack.waitFor(relayId);
    const resumed = await readEvents(relayId, first.at(-1)!.id, () => false);
    expect(resumed.map((event) => event.event.relay.status)).to.deep.equal(["confirmed"]);
    const ids = [...first, ...resumed].map((event) => Number(event.id));
    expect(ids).to.deep.equal([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).to.equal(3);
  });

  it("GET /gasless/events: 404 for another integrator's relay, 400 for a bad Last-Event-ID, 429 past SSE_MAX_STREAMS_PER_KEY", async () => {
    const [taker] = await fundedTakers(f, 1);
    const relayId = await submitFrom(taker!);
    const auth = { authorization: `Bearer ${stack.api.apiKey.secret}` };
    const badId = await stack.api.request("GET", `/gasless/events?relay_id=${relayId}`, { headers: { ...auth, "last-event-id": "abc" } });
    expect([badId.status, badId.body.code]).to.deep.equal([400, "invalid_request"]);
    expect(badId.body.error).to.match(/Last-Event-ID/);
    const other = await stack.api.request("GET", `/gasless/events?relay_id=00000000-0000-4000-8000-000000000000`, { headers: auth });
    expect([other.status, other.body.code]).to.deep.equal([404, "relay_not_found"]);
    const open: AbortController[] = [];
    try {
      for (let index = 0; index < 5; index++) {
        const controller = new AbortController();
        open.push(controller);
        const response = await fetch(`${stack.api.url}/gasless/events`, { headers: auth, signal: controller.signal });
        expect(response.status).to.equal(200);
      }
      const refused = await stack.api.request("GET", "/gasless/events", { headers: auth });
      expect([refused.status, refused.body.code]).to.deep.equal([429, "too_many_streams"]);
    } finally {
      for (const controller of open) controller.abort();
    }
  });

  it("watchRelay follows a relay to confirmed over SSE, and by polling when the stream is unavailable", async () => {
    const client = createTradingClient({ apiUrl: stack.api.url, apiKey: stack.api.apiKey.secret });
    const [taker, second] = await fundedTakers(f, 2);
    const seen: string[] = [];
    const relayId = await submitFrom(taker!);
    const relay: RelayJson = await client.watchRelay(relayId, { onStatus: (update) => seen.push(update.status), mode: "sse", timeoutMs: 20_000 });
    expect(relay.status).to.equal("confirmed");
    expect(seen.at(-1)).to.equal("confirmed");
    // An API without the stream endpoint (an older deployment): the client polls instead.
    const polled: string[] = [];
    const fallbackClient = createTradingClient({
      apiUrl: stack.api.url,
      apiKey: stack.api.apiKey.secret,
      fetch: (input, init) => (String(input).includes("/gasless/events") ? Promise.resolve(new Response(JSON.stringify({ error: "no such endpoint", code: "not_found" }), { status: 404, headers: { "content-type": "application/json" } })) : fetch(input, init)),
    });
    const secondId = await submitFrom(second!);
    const viaPolling = await fallbackClient.watchRelay(secondId, { onStatus: (update) => polled.push(update.status), pollIntervalMs: 50, timeoutMs: 20_000 });
    expect(viaPolling.status).to.equal("confirmed");
    expect(polled.at(-1)).to.equal("confirmed");
  });
});
