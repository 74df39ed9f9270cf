import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import type { RelayEventBody } from "../../relayer/store/pushedStatusStore";
import type { NewRelay, RelayStore } from "../../relayer/store/relayStore";
import { openPostgresRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { nextWebhookAttempt } from "../../relayer/pushed/webhookBackoff";
import { createTestDatabase } from "../fixtures/postgresServer";
import { loadRelayerConfig } from "../../relayer/config";

const SIGNER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30" as const;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

function newRelay(integratorId = 1): NewRelay {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${"ab".repeat(32)}`,
    integratorId,
    apiKeyId: 1,
    idempotencyKey: undefined,
    taker: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    router: SIGNER,
    data: "0x1234",
    signature: `0x${"11".repeat(65)}` as Hex,
    permit2Nonce: 5n,
    deadline: 1_900_000_000n,
    estimatedGas: 200_000,
    acceptedBlock: 10n,
    createdAt: new Date(1_000),
  };
}

const broadcast = (at: number) => ({ hash: `0x${at.toString(16).padStart(64, "0")}` as Hex, kind: "swap" as const, signer: SIGNER, nonce: at, raw: "0x02" as Hex, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n, sentAt: new Date(at) });
const lease = (owner: string, until: number) => ({ owner, until: new Date(until) });
/** No fairness cap: these tests are about claims and order, not shares. */
const ANY_SHARE = 1_000;
/** An attempt's outcome with a breaker that never opens (the breaker's own test sets one). */
const outcome = (fields: { at: Date; delivered: boolean; status: number | undefined; error: string | undefined; retryAt: Date | undefined }, integratorId = 1) => ({
  ...fields,
  integratorId,
  breaker: { failures: 1_000, openUntil: new Date(fields.at.getTime() + 60_000) },
});

type Engine = { name: string; open(): Promise<void>; connect(): Promise<RelayStore>; cleanup(): void };
let directory: string;
let url: string;
const engines: Engine[] = [
  {
    name: "SQLite",
    open: async () => void (directory = mkdtempSync(join(tmpdir(), "pushed-store-"))),
    connect: async () => openSqliteRelayStore(join(directory, "relayer.sqlite")),
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
  { name: "PostgreSQL", open: async () => void (url = await createTestDatabase("pushed_store")), connect: async () => openPostgresRelayStore(url), cleanup: () => undefined },
];

for (const engine of engines) {
  describe(`pushed status outbox on ${engine.name}`, () => {
    let store: RelayStore;
    let other: RelayStore;
    beforeEach(async () => {
      await engine.open();
      store = await engine.connect();
      other = await engine.connect();
    });
    afterEach(async () => {
      await store.close();
      await other.close();
      engine.cleanup();
    });

    it("writes one event per status change in the change's transaction, with a delivery when the integrator has a webhook; a refused move writes none", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      const relay = newRelay();
      await store.createRelay(relay);
      expect(await store.recordBroadcast(relay.id, broadcast(2_000), { owner: "r1", now: new Date(2_000) })).to.equal("recorded");
      // A rebroadcast (no status change) and an update without a status write no event.
      await store.recordBroadcast(relay.id, broadcast(2_500), { owner: "r1", now: new Date(2_500) });
      await store.updateRelay(relay.id, { cancelling: true, at: new Date(2_600) });
      await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: broadcast(2_000).hash }, at: new Date(3_000) });
      let refused: unknown;
      await store.updateRelay(relay.id, { status: "failed", at: new Date(4_000) }).catch((error: unknown) => (refused = error));
      expect(refused).to.be.instanceOf(Error);
      const events = await other.listRelayEvents({ integratorId: 1, afterSeq: 0, limit: 10 });
      expect(events.map((event) => event.status)).to.deep.equal(["accepted", "submitted", "confirmed"]);
      expect(events.map((event) => event.seq)).to.deep.equal([...events.map((event) => event.seq)].sort((a, b) => a - b));
      const last = JSON.parse(events[2]!.body) as RelayEventBody;
      expect([last.type, last.event_id, last.timestamp, last.relay.status, last.relay.tx_hash]).to.deep.equal(["relay.status", events[2]!.eventId, new Date(3_000).toISOString(), "confirmed", broadcast(2_000).hash]);
      expect((await store.listWebhookDeliveries(1, 10)).map((delivery) => [delivery.status, delivery.state])).to.deep.equal([
        ["confirmed", "pending"],
        ["submitted", "pending"],
        ["accepted", "pending"],
      ]);
      // Another integrator's stream sees none of them; a relay filter sees only its relay.
      expect(await store.listRelayEvents({ integratorId: 2, afterSeq: 0, limit: 10 })).to.deep.equal([]);
      expect(await store.listRelayEvents({ integratorId: 1, relayId: randomUUID(), afterSeq: 0, limit: 10 })).to.deep.equal([]);
      expect(await store.relayEventHead()).to.equal(events[2]!.seq);
    });

    it("one relayer claims a delivery at a time; a relay's next delivery waits until the earlier one is settled; a lapsed lease lets another relayer send it again", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      const relay = newRelay();
      await store.createRelay(relay);
      await store.recordBroadcast(relay.id, broadcast(2_000), { owner: "r1", now: new Date(2_000) });
      const first = await store.claimWebhookDeliveries(lease("r1", 10_000), new Date(5_000), 10, ANY_SHARE);
      expect(first.map((delivery) => [delivery.url, delivery.secret, JSON.parse(delivery.body).relay.status])).to.deep.equal([["https://hooks.example.com/a", SECRET, "accepted"]]);
      expect(await other.claimWebhookDeliveries(lease("r2", 10_000), new Date(5_000), 10, ANY_SHARE)).to.deep.equal([]);
      // r1 died: after its lease r2 sends the same event again (at least once).
      const retaken = await other.claimWebhookDeliveries(lease("r2", 20_000), new Date(10_001), 10, ANY_SHARE);
      expect(retaken.map((delivery) => delivery.eventId)).to.deep.equal([first[0]!.eventId]);
      expect(await store.settleWebhookDelivery(first[0]!.eventSeq, "r1", outcome({ at: new Date(10_002), delivered: true, status: 204, error: undefined, retryAt: undefined }))).to.equal(false);
      expect(await other.settleWebhookDelivery(first[0]!.eventSeq, "r2", outcome({ at: new Date(10_002), delivered: true, status: 204, error: undefined, retryAt: undefined }))).to.equal(true);
      const next = await store.claimWebhookDeliveries(lease("r1", 30_000), new Date(10_003), 10, ANY_SHARE);
      expect(next.map((delivery) => JSON.parse(delivery.body).relay.status)).to.deep.equal(["submitted"]);
      // A failure is retried at its time, not before; given up after the window, the relay's next event goes.
      await store.settleWebhookDelivery(next[0]!.eventSeq, "r1", outcome({ at: new Date(10_004), delivered: false, status: 500, error: "answered 500", retryAt: new Date(15_000) }));
      expect(await store.claimWebhookDeliveries(lease("r1", 30_000), new Date(14_999), 10, ANY_SHARE)).to.deep.equal([]);
      const again = await store.claimWebhookDeliveries(lease("r1", 30_000), new Date(15_000), 10, ANY_SHARE);
      expect(again.map((delivery) => [delivery.eventSeq, delivery.attempts])).to.deep.equal([[next[0]!.eventSeq, 1]]);
      await store.settleWebhookDelivery(again[0]!.eventSeq, "r1", outcome({ at: new Date(15_001), delivered: false, status: undefined, error: "unreachable", retryAt: undefined }));
      const failing = await store.listFailingWebhooks(new Date(0));
      expect(failing.map((row) => [row.integratorId, row.url, row.pending, row.failed, row.lastError])).to.deep.equal([[1, "https://hooks.example.com/a", 0, 1, "unreachable"]]);
    });

    it("the webhook backlog counts pending deliveries of every integrator and dates the oldest; delivered and given-up ones leave it (what relayer_webhook_backlog reads)", async () => {
      expect(await store.webhookBacklog()).to.deep.equal({ pending: 0, oldestCreatedAt: undefined });
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      await store.setWebhook(2, { url: "https://hooks.example.com/b", secret: SECRET }, new Date(500));
      const relays = [newRelay(), { ...newRelay(2), createdAt: new Date(1_500) }];
      for (const relay of relays) await store.createRelay(relay);
      expect(await other.webhookBacklog()).to.deep.equal({ pending: 2, oldestCreatedAt: new Date(1_000) });
      const [claimed] = await store.claimWebhookDeliveries(lease("r1", 10_000), new Date(5_000), 1, ANY_SHARE);
      // Claimed but not settled: still pending.
      expect((await store.webhookBacklog()).pending).to.equal(2);
      await store.settleWebhookDelivery(claimed!.eventSeq, "r1", outcome({ at: new Date(5_001), delivered: true, status: 204, error: undefined, retryAt: undefined }, claimed!.integratorId));
      const left = await store.webhookBacklog();
      expect(left.pending).to.equal(1);
      expect(await store.expireWebhookDeliveries(new Date(10_000), new Date(10_000))).to.equal(1);
      expect(await store.webhookBacklog()).to.deep.equal({ pending: 0, oldestCreatedAt: undefined });
    });

    it("concurrent claims of many relays' deliveries by two relayers never take the same delivery", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      for (let index = 0; index < 20; index++) await store.createRelay(newRelay());
      const [a, b] = await Promise.all([store.claimWebhookDeliveries(lease("r1", 60_000), new Date(5_000), 15, ANY_SHARE), other.claimWebhookDeliveries(lease("r2", 60_000), new Date(5_000), 15, ANY_SHARE)]);
      const seqs = [...a, ...b].map((delivery) => delivery.eventSeq);
      expect(new Set(seqs).size).to.equal(seqs.length);
      expect(seqs.length).to.equal(20);
    });

    it("claims take turns between integrators and leave each at most its share in flight, across relayers", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      await store.setWebhook(2, { url: "https://hooks.example.com/b", secret: SECRET }, new Date(500));
      for (let index = 0; index < 10; index++) await store.createRelay(newRelay(1));
      const late = { ...newRelay(2), createdAt: new Date(1_500) };
      await store.createRelay(late);
      // Integrator 1's ten are all due before integrator 2's one, yet 2 gets the second slot.
      const first = await store.claimWebhookDeliveries(lease("r1", 60_000), new Date(5_000), 3, 2);
      expect(first.map((delivery) => delivery.integratorId)).to.deep.equal([1, 2, 1]);
      // Integrator 1 has its 2 in flight: another relayer gets none of its deliveries.
      expect(await other.claimWebhookDeliveries(lease("r2", 60_000), new Date(5_000), 8, 2)).to.deep.equal([]);
    });

    it("an endpoint's circuit opens after its failures in a row, stays shut while open, lets one probe through half-open, and closes on a success", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      for (let index = 0; index < 4; index++) await store.createRelay(newRelay(1));
      const breaker = (at: number) => ({ failures: 2, openUntil: new Date(at + 10_000) });
      const fail = async (seq: number, at: number) =>
        store.settleWebhookDelivery(seq, "r1", { integratorId: 1, at: new Date(at), delivered: false, status: undefined, error: "timeout", retryAt: new Date(at), breaker: breaker(at) });
      const [a, b] = await store.claimWebhookDeliveries(lease("r1", 60_000), new Date(5_000), 2, 2);
      await fail(a!.eventSeq, 6_000);
      expect((await store.getWebhook(1))!.circuit).to.deep.equal({ consecutiveFailures: 1, openUntil: undefined });
      await fail(b!.eventSeq, 6_001);
      expect((await store.getWebhook(1))!.circuit).to.deep.equal({ consecutiveFailures: 2, openUntil: new Date(16_001) });
      // Open: nothing, though all four are due.
      expect(await store.claimWebhookDeliveries(lease("r1", 60_000), new Date(16_000), 8, 2)).to.deep.equal([]);
      // Half-open: one probe at a time.
      const [probe, ...more] = await store.claimWebhookDeliveries(lease("r1", 60_000), new Date(16_001), 8, 2);
      expect(more).to.deep.equal([]);
      expect(await other.claimWebhookDeliveries(lease("r2", 60_000), new Date(16_002), 8, 2)).to.deep.equal([]);
      expect(await store.settleWebhookDelivery(probe!.eventSeq, "r1", outcome({ at: new Date(16_500), delivered: true, status: 204, error: undefined, retryAt: undefined }))).to.equal(true);
      expect((await store.getWebhook(1))!.circuit).to.deep.equal({ consecutiveFailures: 0, openUntil: undefined });
      expect(await store.claimWebhookDeliveries(lease("r1", 60_000), new Date(16_501), 8, 2)).to.have.length(2);
      // A new URL (a rotation) starts closed.
      await fail((await store.listWebhookDeliveries(1, 1))[0]!.eventSeq, 16_600);
      await store.setWebhook(1, { url: "https://hooks.example.com/new", secret: SECRET }, new Date(17_000));
      expect((await store.getWebhook(1))!.circuit).to.deep.equal({ consecutiveFailures: 0, openUntil: undefined });
    });

    it("pending deliveries past the retry window that no attempt holds are given up", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      await store.createRelay(newRelay(1));
      expect(await store.expireWebhookDeliveries(new Date(1_000), new Date(90_000))).to.equal(0);
      expect(await store.expireWebhookDeliveries(new Date(1_001), new Date(90_000))).to.equal(1);
      expect((await store.listWebhookDeliveries(1, 1))[0]!.state).to.equal("failed");
    });

    it("an event written wakes its watchers with its integrator once the write commits (another relayer's connection on PostgreSQL, this process on SQLite)", async () => {
      const watched = engine.name === "PostgreSQL" ? other : store;
      const notices: { seq: number | undefined; integratorId: number | undefined }[] = [];
      const stop = watched.watchRelayEvents((notice) => notices.push(notice));
      // PostgreSQL: the listening connection comes up first (its own notice: read everything).
      for (const deadline = Date.now() + 5_000; engine.name === "PostgreSQL" && notices.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
      notices.length = 0;
      await store.createRelay(newRelay(7));
      for (const deadline = Date.now() + 5_000; notices.length === 0 && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
      const [event] = await store.listRelayEvents({ integratorId: 7, afterSeq: 0, limit: 1 });
      expect(notices).to.deep.equal([{ seq: event!.seq, integratorId: 7 }]);
      stop();
      await store.createRelay(newRelay(7));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(notices).to.have.length(1);
    });

    it("clearing a webhook drops its pending deliveries; a forgotten chain run forgets its events", async () => {
      await store.setWebhook(1, { url: "https://hooks.example.com/a", secret: SECRET }, new Date(500));
      await store.createRelay(newRelay());
      await store.setWebhook(1, undefined, new Date(600));
      expect((await store.listWebhookDeliveries(1, 10)).map((delivery) => delivery.state)).to.deep.equal(["dropped"]);
      expect(await store.claimWebhookDeliveries(lease("r1", 60_000), new Date(5_000), 10, ANY_SHARE)).to.deep.equal([]);
      await store.setChainRun(`0x${"01".repeat(32)}`, { forgetRelays: true });
      expect(await store.listRelayEvents({ integratorId: 1, afterSeq: 0, limit: 10 })).to.deep.equal([]);
    });
  });
}

describe("webhook retry schedule", () => {
  const policy = { baseMs: 5_000, maxMs: 3_600_000, windowMs: 24 * 3_600_000 };
  it("doubles from the base with jitter, caps at the maximum, tries last at the window's end and then gives up", () => {
    const created = new Date(0);
    expect(nextWebhookAttempt(policy, 1, created, new Date(0), () => 0)!.getTime()).to.equal(2_500);
    expect(nextWebhookAttempt(policy, 1, created, new Date(0), () => 0.999_999)!.getTime()).to.be.closeTo(5_000, 1);
    expect(nextWebhookAttempt(policy, 4, created, new Date(0), () => 1)!.getTime()).to.equal(40_000);
    expect(nextWebhookAttempt(policy, 30, created, new Date(0), () => 1)!.getTime()).to.equal(3_600_000);
    expect(nextWebhookAttempt(policy, 50, created, new Date(policy.windowMs - 1_000), () => 1)!.getTime()).to.equal(policy.windowMs);
    expect(nextWebhookAttempt(policy, 51, created, new Date(policy.windowMs), () => 1)).to.equal(undefined);
  });
  it("retries for the whole window: with the defaults, at least 24 hours of attempts", () => {
    let now = 0;
    let attempts = 0;
    for (let next = nextWebhookAttempt(policy, 1, new Date(0), new Date(now)); next !== undefined; next = nextWebhookAttempt(policy, ++attempts + 1, new Date(0), new Date(now))) now = next.getTime();
    expect(now).to.equal(policy.windowMs);
    expect(attempts).to.be.greaterThan(20);
  });
});

describe("pushed status settings of the relayer", () => {
  const base = { RELAYER_INTERNAL_TOKEN: "0123456789abcdef0123", RELAYER_PRIVATE_KEYS: `0x${"11".repeat(32)}` };
  it("defaults to retries over 24 hours from 5 s up to 1 h, and refuses a retention shorter than the retry window", () => {
    expect(loadRelayerConfig(base).pushed).to.deep.equal({
      retryBaseMs: 5_000,
      retryMaxMs: 3_600_000,
      retryWindowMs: 86_400_000,
      timeoutMs: 10_000,
      connectTimeoutMs: 3_000,
      headersTimeoutMs: 5_000,
      concurrency: 8,
      maxInFlightPerIntegrator: 2,
      breakerFailures: 5,
      breakerCooldownMs: 60_000,
      allowLoopback: true,
      pollMs: 500,
      retentionMs: 72 * 3_600_000,
    });
    // Off the devnet, deliveries reach global unicast addresses only.
    expect(loadRelayerConfig({ ...base, CHAIN_ID: "1" }).pushed.allowLoopback).to.equal(false);
    expect(() => loadRelayerConfig({ ...base, WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR: "8" })).to.throw(/WEBHOOK_MAX_IN_FLIGHT_PER_INTEGRATOR/);
    expect(() => loadRelayerConfig({ ...base, RELAY_EVENT_RETENTION_HOURS: "12" })).to.throw(/RELAY_EVENT_RETENTION_HOURS/);
    expect(() => loadRelayerConfig({ ...base, WEBHOOK_RETRY_BASE_MS: "0" })).to.throw(/WEBHOOK_RETRY_BASE_MS/);
  });
});
