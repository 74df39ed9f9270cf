import { expect } from "chai";
import {
  ApiError,
  createTradingClient,
  verifyRelayWebhook,
  webhookHeaders,
  WebhookUrlError,
  type TradingClient,
  type WebhookDeliveriesJson,
} from "../../sdk";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { WebhookReceiver, type ReceivedDelivery } from "../fixtures/webhookReceiver";

/** The receiver an integrator writes with the client package: verifyRelayWebhook on the raw body, 400 when it throws. */
const integratorReceiver = () => new WebhookReceiver((secret, headers, body) => verifyRelayWebhook(secret, headers, body));

/** POSTs a delivery to the receiver as the relayer would, with the given headers and body; the receiver's answer. */
async function post(receiver: WebhookReceiver, headers: Record<string, string>, body: string): Promise<number> {
  const response = await fetch(receiver.url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  return response.status;
}

const signedHeadersOf = (delivery: ReceivedDelivery): Record<string, string> => ({
  "webhook-id": String(delivery.headers["webhook-id"]),
  "webhook-timestamp": String(delivery.headers["webhook-timestamp"]),
  "webhook-signature": String(delivery.headers["webhook-signature"]),
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} did not happen in ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("client webhooks: setWebhook, getWebhookDeliveries and verifyRelayWebhook against npm start's devnet", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  let receiver: WebhookReceiver;
  const clients: TradingClient[] = [];

  before(async function () {
    // npm start in a child process: a compile check, a deployment, the API and the relayer; minutes on loaded cores.
    this.timeout(300_000);
    devnet = await sharedDevnet();
  });
  beforeEach(async () => {
    receiver = integratorReceiver();
    await receiver.start();
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await receiver.stop();
  });

  it("registers a loopback receiver, whose verifyRelayWebhook accepts each status change of a gasless relay in order, refuses a tampered body and a stale timestamp, and the deliveries are listed delivered", async () => {
    const { client, owner, integratorId } = await devnet.onboardedClient();
    clients.push(client);
    expect(await client.getWebhookDeliveries()).to.deep.equal({ url: null, circuit: null, deliveries: [] });

    const registered = await client.setWebhook(owner, integratorId, receiver.url, 4663);
    expect(registered).to.include({ integrator_id: integratorId, url: receiver.url, signature_scheme: "standard-webhooks-v1" });
    expect(registered.secret).to.match(/^whsec_[A-Za-z0-9+/]+=*$/);
    receiver.secret = registered.secret!;

    const funded = await fundedTaker(devnet, { USDC: 500_000_000n });
    const taker = devnet.wallet(funded.privateKey);
    const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), sellAmount: 200_000_000n, taker: taker.account.address, gasless: true });
    const relay = await client.swapGasless(quote, taker, { intervalMs: 200, timeoutMs: 60_000 });
    expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");

    await receiver.waitFor(() => receiver.statusesOf(relay.relay_id).includes("confirmed"), 30_000, "the relay's confirmed event");
    expect(receiver.received.map((delivery) => [delivery.verified, delivery.reason ?? null])).to.deep.equal(receiver.received.map(() => [true, null]));
    expect(receiver.statusesOf(relay.relay_id)).to.deep.equal(["accepted", "submitted", "confirmed"]);
    const confirmed = receiver.received.find((delivery) => delivery.event?.relay.status === "confirmed")!;
    // The pushed relay is what GET /gasless/status shows.
    expect(confirmed.event!.relay).to.deep.equal(await client.getRelay(relay.relay_id));

    // The same delivery, its body changed by one field: the receiver refuses it, and acts on nothing.
    const tampered = confirmed.body.replace('"status":"confirmed"', '"status":"failed"');
    expect(tampered).to.not.equal(confirmed.body);
    expect(await post(receiver, signedHeadersOf(confirmed), tampered)).to.equal(400);
    expect(receiver.received.at(-1)).to.include({ verified: false, reason: "signature_mismatch" });
    // Signed with the right secret, but ten minutes ago (a replay): refused for its timestamp.
    const stale = webhookHeaders(receiver.secret, confirmed.id, new Date(Date.now() - 600_000), confirmed.body);
    expect(await post(receiver, stale, confirmed.body)).to.equal(400);
    expect(receiver.received.at(-1)).to.include({ verified: false, reason: "stale_timestamp" });
    expect(receiver.received.at(-1)!.error).to.match(/outside the 300 s tolerance/);
    // Untouched and in time it verifies again: deduplicating on event_id is the receiver's part.
    expect(await post(receiver, signedHeadersOf(confirmed), confirmed.body)).to.equal(204);
    expect(receiver.statusesOf(relay.relay_id)).to.deep.equal(["accepted", "submitted", "confirmed"]);

    const listed = await until<WebhookDeliveriesJson>(
      () => client.getWebhookDeliveries({ limit: 10 }),
      (answer) => answer.deliveries.length === 3 && answer.deliveries.every((delivery) => delivery.state === "delivered"),
      "three delivered deliveries",
    );
    expect(listed.url).to.equal(receiver.url);
    // Newest first: the relay's events in reverse, each delivered at the first attempt with the receiver's 204.
    expect(listed.deliveries.map((delivery) => [delivery.relay_id, delivery.status, delivery.attempts, delivery.last_response_status])).to.deep.equal(
      ["confirmed", "submitted", "accepted"].map((status) => [relay.relay_id, status, 1, 204]),
    );
    expect(listed.deliveries.map((delivery) => delivery.event_id)).to.deep.equal(receiver.uniqueEvents().map((event) => event.event_id).reverse());
    expect((await client.getWebhookDeliveries({ limit: 1 })).deliveries.map((delivery) => delivery.status)).to.deep.equal(["confirmed"]);
  });

  it("a URL the API refuses surfaces as WebhookUrlError naming the url field, with the API's 400 code and what to register instead", async () => {
    const { client, owner, integratorId } = await devnet.onboardedClient();
    clients.push(client);
    const refusal = async (url: string): Promise<WebhookUrlError> => {
      const error = await client.setWebhook(owner, integratorId, url).then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, url).to.be.instanceOf(WebhookUrlError);
      return error as WebhookUrlError;
    };
    const remoteHttp = await refusal("http://hooks.example.com/relays");
    expect(remoteHttp).to.be.instanceOf(ApiError);
    expect([remoteHttp.field, remoteHttp.status, remoteHttp.code, remoteHttp.retryable]).to.deep.equal(["url", 400, "webhook_url_not_https", false]);
    expect(remoteHttp.shortMessage).to.include("url: must be https");
    expect(remoteHttp.details).to.match(/absolute https URL of a public host/);
    const metadata = await refusal("https://169.254.169.254/latest/meta-data");
    expect([metadata.field, metadata.code]).to.deep.equal(["url", "webhook_url_internal"]);
    const notUrl = await refusal("hooks dot example");
    expect([notUrl.field, notUrl.code, notUrl.shortMessage]).to.deep.equal(["url", "invalid_request", "POST /integrators/webhook failed with 400 invalid_request: url: must be an absolute https URL"]);
    // Nothing was registered.
    expect((await client.getWebhookDeliveries()).url).to.equal(null);
  });

  it("a wrong API key reading deliveries is ApiError 401 api_key_invalid, a wallet that does not own the integrator is 403 not_integrator_owner, each saying what to do; another integrator sees none of the deliveries", async () => {
    const { client, apiKey, owner, integratorId } = await devnet.onboardedClient();
    clients.push(client);
    const wrongKey = `${apiKey.slice(0, -1)}${apiKey.endsWith("a") ? "b" : "a"}`;
    const stranger = createTradingClient({ apiUrl: devnet.apiUrl, apiKey: wrongKey });
    clients.push(stranger);
    const unauthorized = await stranger.getWebhookDeliveries().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(unauthorized).to.be.instanceOf(ApiError).and.not.be.instanceOf(WebhookUrlError);
    expect([(unauthorized as ApiError).status, (unauthorized as ApiError).code, (unauthorized as ApiError).retryable]).to.deep.equal([401, "api_key_invalid", false]);
    expect((unauthorized as ApiError).details).to.match(/check apiKey \(SWAP_API_KEY\)/);

    const notOwner = await client.setWebhook(devnet.emptyWallet(), integratorId, receiver.url).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(notOwner).to.be.instanceOf(ApiError).and.not.be.instanceOf(WebhookUrlError);
    expect([(notOwner as ApiError).status, (notOwner as ApiError).code]).to.deep.equal([403, "not_integrator_owner"]);
    expect((notOwner as ApiError).details).to.match(/wallet that owns the integrator/);

    // The owner sets it; another integrator's key reads only its own (none).
    expect((await client.setWebhook(owner, integratorId, receiver.url)).url).to.equal(receiver.url);
    const other = await devnet.onboardedClient();
    clients.push(other.client);
    expect(await other.client.getWebhookDeliveries()).to.deep.equal({ url: null, circuit: null, deliveries: [] });
    // Clearing it: no URL, no secret.
    const cleared = await client.setWebhook(owner, integratorId, null);
    expect([cleared.url, cleared.secret]).to.deep.equal([null, null]);
    expect((await client.getWebhookDeliveries()).url).to.equal(null);
  });
});
