import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { Hex } from "viem";
import { webhookDeliveriesJson } from "../../relayer/pushed/webhookDeliveriesJson";
import { WebhookDispatcher, type WebhookDispatchSettings } from "../../relayer/pushed/webhookDispatcher";
import type { WebhookResolver } from "../../relayer/pushed/webhookTransport";
import { openPostgresRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import type { NewRelay, RelayStore } from "../../relayer/store/relayStore";
import { createTestDatabase } from "../fixtures/postgresServer";
import { runScript } from "../fixtures/runScript";
import { WebhookReceiver } from "../fixtures/webhookReceiver";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const ATTACKER = 1;
const HONEST = 2;
/** One attempt's time in these tests (WEBHOOK_TIMEOUT_MS); the connect and first-byte timeouts are shorter. */
const ATTEMPT_MS = 2_000;

function newRelay(integratorId: number): NewRelay {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${"ab".repeat(32)}`,
    integratorId,
    apiKeyId: integratorId,
    idempotencyKey: undefined,
    taker: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    router: "0x2546BcD3c84621e976D8185a91A922aE77ECEc30",
    data: "0x1234",
    signature: `0x${"11".repeat(65)}` as Hex,
    permit2Nonce: 5n,
    deadline: 1_900_000_000n,
    estimatedGas: 200_000,
    acceptedBlock: 10n,
    createdAt: new Date(),
  };
}

/** The audit's attacker endpoint: accepts TCP on loopback and never answers a byte. */
class Tarpit {
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  accepted = 0;
  async start(): Promise<string> {
    const server = createServer((socket) => {
      this.accepted++;
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.#server = server;
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  }
  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.#server === undefined ? resolve() : this.#server.close(() => resolve())));
  }
}

function settings(overrides: Partial<WebhookDispatchSettings> = {}): WebhookDispatchSettings {
  return {
    owner: "relayer-test",
    retry: { baseMs: 100, maxMs: 300, windowMs: 3_600_000 },
    pollMs: 25,
    leaseMs: ATTEMPT_MS + 5_000,
    concurrency: 8,
    perIntegrator: 2,
    breaker: { failures: 3, cooldownMs: 60_000 },
    transport: { timeoutMs: ATTEMPT_MS, connectTimeoutMs: 1_000, headersTimeoutMs: 1_500, allowLoopback: true },
    retentionMs: 7_200_000,
    ...overrides,
  };
}

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 20_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (await check()) return;
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Engine = { name: string; open(): Promise<{ store: RelayStore; scriptEnv: Record<string, string> }>; cleanup(): void };
let directory: string;
const engines: Engine[] = [
  {
    name: "SQLite",
    open: async () => {
      directory = mkdtempSync(join(tmpdir(), "webhook-fairness-"));
      const path = join(directory, "relayer.sqlite");
      return { store: await openSqliteRelayStore(path), scriptEnv: { RELAYER_DB_PATH: path, API_DB_PATH: join(directory, "api.sqlite") } };
    },
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
  {
    name: "PostgreSQL",
    open: async () => {
      directory = mkdtempSync(join(tmpdir(), "webhook-fairness-"));
      const url = await createTestDatabase("webhook_fairness");
      return { store: await openPostgresRelayStore(url), scriptEnv: { RELAYER_DATABASE_URL: url, API_DB_PATH: join(directory, "api.sqlite") } };
    },
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
];

for (const engine of engines) {
  describe(`webhook delivery under a tarpit endpoint, on ${engine.name} (real HTTP on loopback)`, function () {
    this.timeout(60_000);
    let store: RelayStore;
    let scriptEnv: Record<string, string>;
    let tarpit: Tarpit;
    let receiver: WebhookReceiver;
    let dispatcher: WebhookDispatcher | undefined;

    beforeEach(async () => {
      ({ store, scriptEnv } = await engine.open());
      tarpit = new Tarpit();
      receiver = new WebhookReceiver();
      receiver.secret = SECRET;
      await receiver.start();
    });
    afterEach(async () => {
      await tarpit.stop();
      await dispatcher?.stop();
      dispatcher = undefined;
      await receiver.stop();
      await store.close();
      engine.cleanup();
    });

    it("an integrator whose endpoint never answers, fed 24 relays, delays another integrator's deliveries by less than one attempt's time, and its circuit opens, shown on the deliveries endpoint and in the operator CLI", async () => {
      await store.setWebhook(ATTACKER, { url: await tarpit.start(), secret: SECRET }, new Date());
      await store.setWebhook(HONEST, { url: receiver.url, secret: SECRET }, new Date());
      // The audit: relays submitted (and cancelled before broadcast, which is free) queue deliveries to the tarpit.
      for (let index = 0; index < 24; index++) await store.createRelay(newRelay(ATTACKER));
      dispatcher = new WebhookDispatcher(store, settings(), pino({ level: "silent" }));
      await dispatcher.start();
      await until("the tarpit to hold connections", () => tarpit.accepted >= 2);

      const latencies: number[] = [];
      for (let index = 0; index < 6; index++) {
        const relay = newRelay(HONEST);
        const sent = Date.now();
        await store.createRelay(relay);
        await until("the honest delivery", () => receiver.statusesOf(relay.id).length === 1, 3 * ATTEMPT_MS);
        latencies.push(Date.now() - sent);
        // Spread over the attacker's attempts and the circuit opening.
        await new Promise((resolve) => setTimeout(resolve, 400));
      }
      expect(Math.max(...latencies), `latencies ${latencies.join(", ")} ms`).to.be.below(ATTEMPT_MS);

      await until("the attacker's circuit to open", async () => (await store.getWebhook(ATTACKER))?.circuit.openUntil !== undefined);
      const attacker = await webhookDeliveriesJson(store, ATTACKER, 50, new Date());
      expect(attacker.circuit?.state).to.equal("open");
      expect(attacker.circuit?.consecutive_failures).to.be.at.least(3);
      expect(new Date(attacker.circuit!.open_until!).getTime()).to.be.above(Date.now() + 50_000);
      // The integrator sees why, coarsely: a timeout, not the socket's own words.
      expect([...new Set(attacker.deliveries.filter((delivery) => delivery.attempts > 0).map((delivery) => delivery.last_error))]).to.deep.equal(["timeout"]);
      const honest = await webhookDeliveriesJson(store, HONEST, 50, new Date());
      expect(honest.circuit).to.deep.equal({ state: "closed", consecutive_failures: 0, open_until: null });

      // Two at a time (the per-integrator cap) until 3 failed in a row: at most 4 attempts of its 24, and
      // while the circuit is open nothing more goes to the tarpit.
      const attempts = async () => (await store.listWebhookDeliveries(ATTACKER, 50)).reduce((sum, delivery) => sum + delivery.attempts, 0);
      await new Promise((resolve) => setTimeout(resolve, ATTEMPT_MS)); // the attempt still in flight when it opened ends
      const accepted = tarpit.accepted;
      const tried = await attempts();
      expect(tried).to.be.at.most(3 + 2 - 1);
      await new Promise((resolve) => setTimeout(resolve, ATTEMPT_MS));
      expect(await attempts()).to.equal(tried);
      expect(tarpit.accepted).to.equal(accepted);

      const listed = await runScript("scripts/integrators.ts", ["webhook-failures", "--json"], scriptEnv);
      expect(listed.status, listed.stderr).to.equal(0);
      const rows = JSON.parse(listed.stdout) as { integrator_id: number; circuit: string; consecutive_failures: number; circuit_open_until: string | null; last_error: string }[];
      expect(rows.map((row) => [row.integrator_id, row.circuit, row.last_error])).to.deep.equal([[ATTACKER, "open", "timeout"]]);
      const table = await runScript("scripts/integrators.ts", ["webhook-failures"], scriptEnv);
      expect(table.stdout).to.match(/open until .* \(\d+ in a row\)/);
    });

    it("a name that resolves to a private address at delivery is never connected to (DNS rebinding), and the integrator sees only `unreachable`; a name resolving to the receiver is reached with its Host name kept", async () => {
      let answer = "10.0.0.7";
      const resolved: string[] = [];
      const resolver: WebhookResolver = async (hostname) => {
        resolved.push(hostname);
        return [answer];
      };
      const port = new URL(receiver.url).port;
      await store.setWebhook(HONEST, { url: `http://hooks.rebind.test.:${port}/hooks/relays`, secret: SECRET }, new Date());
      const production = settings({ transport: { ...settings().transport, allowLoopback: false } });
      dispatcher = new WebhookDispatcher(store, production, pino({ level: "silent" }), undefined, resolver);
      await dispatcher.start();
      const relay = newRelay(HONEST);
      await store.createRelay(relay);
      await until("a failed attempt", async () => (await store.listWebhookDeliveries(HONEST, 1))[0]?.attempts === 1);
      // Resolved at delivery, trailing dot gone; refused before any connection.
      expect(resolved[0]).to.equal("hooks.rebind.test");
      expect(receiver.received).to.deep.equal([]);
      const [delivery] = (await webhookDeliveriesJson(store, HONEST, 1, new Date())).deliveries;
      expect([delivery!.last_error, delivery!.last_response_status]).to.deep.equal(["unreachable", null]);
      // Rebinding to loopback is refused as well in production mode.
      answer = "127.0.0.1";
      await until("a second failed attempt", async () => (await store.listWebhookDeliveries(HONEST, 1))[0]!.attempts >= 2);
      expect(receiver.received).to.deep.equal([]);
      await dispatcher.stop();

      // The development allowance (loopback receivers): the checked address is connected to, and the
      // request still names the host.
      dispatcher = new WebhookDispatcher(store, settings(), pino({ level: "silent" }), undefined, resolver);
      await dispatcher.start();
      await until("the delivery", () => receiver.statusesOf(relay.id).length === 1);
      expect(receiver.received[0]!.headers.host).to.equal(`hooks.rebind.test.:${port}`);
    });

    it("answers other than 2xx are `http_status` with the status; a refused connection is `unreachable`", async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      await store.setWebhook(ATTACKER, { url: `http://127.0.0.1:${closedPort}/gone`, secret: SECRET }, new Date());
      receiver.answer = 503;
      await store.setWebhook(HONEST, { url: receiver.url, secret: SECRET }, new Date());
      await store.createRelay(newRelay(ATTACKER));
      await store.createRelay(newRelay(HONEST));
      dispatcher = new WebhookDispatcher(store, settings(), pino({ level: "silent" }));
      await dispatcher.start();
      await until("both attempts", async () => (await store.listWebhookDeliveries(ATTACKER, 1))[0]?.attempts === 1 && (await store.listWebhookDeliveries(HONEST, 1))[0]?.attempts === 1);
      const refused = (await webhookDeliveriesJson(store, ATTACKER, 1, new Date())).deliveries[0]!;
      const answered = (await webhookDeliveriesJson(store, HONEST, 1, new Date())).deliveries[0]!;
      expect([refused.last_error, refused.last_response_status]).to.deep.equal(["unreachable", null]);
      expect([answered.last_error, answered.last_response_status]).to.deep.equal(["http_status", 503]);
    });
  });
}
