import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, type Hex } from "viem";
import type { NewRelay, NewRelayTransaction, RelayStore } from "../../relayer/store/relayStore";
import { openPostgresRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { createTestDatabase } from "../fixtures/postgresServer";
import { withOldRelayDatabase } from "../fixtures/oldRelayDatabase";

const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const SIGNER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const OWNER = "relayer-a";

function newRelay(): NewRelay {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${"ab".repeat(32)}`,
    integratorId: 1,
    apiKeyId: 1,
    idempotencyKey: undefined,
    taker: TAKER,
    router: SIGNER,
    data: "0x1234",
    signature: `0x${"11".repeat(65)}`,
    permit2Nonce: 5n,
    deadline: 1_900_000_000n,
    estimatedGas: 200_000,
    acceptedBlock: 10n,
    createdAt: new Date(1_000),
  };
}

function transaction(kind: "swap" | "cancel", salt: string, at = new Date(2_000)): NewRelayTransaction {
  const raw: Hex = `0x02${salt}`;
  return { hash: keccak256(raw), kind, signer: SIGNER, nonce: 7, raw, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, sentAt: at };
}

const lease = () => ({ owner: OWNER, until: new Date(Date.now() + 60_000) });
const fence = () => ({ owner: OWNER, now: new Date() });

type Engine = { name: string; open(): Promise<() => Promise<RelayStore>>; cleanup(): void };
let directory: string;
const engines: Engine[] = [
  {
    name: "SQLite",
    open: async () => {
      directory = mkdtempSync(join(tmpdir(), "relay-cancel-"));
      return async () => openSqliteRelayStore(join(directory, "relayer.sqlite"));
    },
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const url = await createTestDatabase("relay_cancel");
      return () => openPostgresRelayStore(url);
    },
    cleanup: () => undefined,
  },
];

for (const engine of engines) {
  describe(`relay cancellation in the relay store on ${engine.name}`, function () {
    this.timeout(60_000);
    let stores: RelayStore[];
    let store: RelayStore;
    let connect: () => Promise<RelayStore>;
    beforeEach(async () => {
      connect = await engine.open();
      store = await connect();
      stores = [store];
    });
    afterEach(async () => {
      for (const opened of stores) await opened.close();
      engine.cleanup();
    });

    it("a relay with nothing broadcast ends cancelled at once, and its first broadcast is then refused: nothing is recorded", async () => {
      const relay = newRelay();
      await store.createRelay(relay, lease());
      const request = await store.requestCancellation(relay.id, new Date(3_000));
      expect(request?.decision).to.equal("cancelled");
      expect([request?.relay.status, request?.relay.cancelRequestedAt?.getTime()]).to.deep.equal(["cancelled", 3_000]);
      expect(await store.recordBroadcast(relay.id, transaction("swap", "01"), fence())).to.equal("ended");
      const stored = await store.getRelay(relay.id);
      expect([stored?.status, stored?.transactions.length, stored?.signer]).to.deep.equal(["cancelled", 0, undefined]);
      expect(await store.listOpenRelays()).to.deep.equal([]);
    });

    it("a relay whose swap is pending is only marked: it stays submitted, a later swap replacement is refused and a cancel is recorded", async () => {
      const relay = newRelay();
      await store.createRelay(relay, lease());
      expect(await store.recordBroadcast(relay.id, transaction("swap", "01"), fence())).to.equal("recorded");
      const request = await store.requestCancellation(relay.id, new Date(3_000));
      expect(request?.decision).to.equal("cancelling");
      expect([request?.relay.status, request?.relay.cancelling, request?.relay.cancelRequestedAt?.getTime()]).to.deep.equal(["submitted", true, 3_000]);
      // A second request keeps the time of the first.
      expect((await store.requestCancellation(relay.id, new Date(4_000)))?.relay.cancelRequestedAt?.getTime()).to.equal(3_000);
      expect(await store.recordBroadcast(relay.id, transaction("swap", "02"), fence())).to.equal("ended");
      expect(await store.recordBroadcast(relay.id, transaction("cancel", "03", new Date(5_000)), fence())).to.equal("recorded");
      expect((await store.getRelay(relay.id))?.transactions.map((sent) => sent.kind)).to.deep.equal(["swap", "cancel"]);
      await store.updateRelay(relay.id, { status: "cancelled", mined: { hash: transaction("cancel", "03").hash }, at: new Date(6_000) });
      expect((await store.getRelay(relay.id))?.status).to.equal("cancelled");
    });

    it("a relay whose signer was let go (taken over from a relayer that died) but whose swap is on record is in flight: only marked cancelling, never cancelled at once", async () => {
      const relay = newRelay();
      await store.createRelay(relay, lease());
      expect(await store.recordBroadcast(relay.id, transaction("swap", "01"), fence())).to.equal("recorded");
      // What a takeover does with a dead relayer's signer: forgets it, keeping its transaction on record.
      await store.updateRelay(relay.id, { releaseSigner: true, at: new Date(2_500) });
      const request = await store.requestCancellation(relay.id, new Date(3_000));
      expect(request?.decision).to.equal("cancelling");
      expect([request?.relay.status, request?.relay.signer, request?.relay.cancelling, request?.relay.cancelRequestedAt?.getTime()]).to.deep.equal(["submitted", undefined, true, 3_000]);
      expect((await store.listRelayEvents({ integratorId: 1, relayId: relay.id, afterSeq: 0, limit: 10 })).map((event) => event.status)).to.not.include("cancelled");
      // No new swap of it is recorded (or sent) once its cancellation was asked.
      expect(await store.recordBroadcast(relay.id, transaction("swap", "02"), fence())).to.equal("ended");
    });

    it("a final relay is left as it is, and an unknown one is not found", async () => {
      const relay = newRelay();
      await store.createRelay(relay, lease());
      await store.updateRelay(relay.id, { status: "rejected", reason: "nonce_used", at: new Date(2_000) });
      const request = await store.requestCancellation(relay.id, new Date(3_000));
      expect([request?.decision, request?.relay.status, request?.relay.cancelRequestedAt]).to.deep.equal(["final", "rejected", undefined]);
      expect(await store.requestCancellation(randomUUID(), new Date(3_000))).to.equal(undefined);
    });

    it("a cancellation racing the first broadcast from another connection resolves to exactly one outcome", async () => {
      const other = await connect();
      stores.push(other);
      const outcomes = new Set<string>();
      for (let round = 0; round < 20; round++) {
        const relay = newRelay();
        await store.createRelay(relay, lease());
        const [request, recording] = await Promise.all([
          round % 2 === 0 ? store.requestCancellation(relay.id, new Date()) : new Promise((resolve) => setImmediate(resolve)).then(() => store.requestCancellation(relay.id, new Date())),
          other.recordBroadcast(relay.id, transaction("swap", round.toString(16).padStart(2, "0")), fence()),
        ]);
        const stored = (await store.getRelay(relay.id))!;
        if (request?.decision === "cancelled") {
          // Cancelled first: the broadcast was refused and nothing is on record to send.
          expect([recording, stored.status, stored.transactions.length]).to.deep.equal(["ended", "cancelled", 0]);
        } else {
          // Recorded first: the cancellation only marked the pending swap.
          expect([request?.decision, recording, stored.status, stored.transactions.length, stored.cancelling]).to.deep.equal(["cancelling", "recorded", "submitted", 1, true]);
        }
        outcomes.add(request!.decision);
      }
      expect([...outcomes].every((outcome) => outcome === "cancelled" || outcome === "cancelling")).to.equal(true);
    });
  });
}

describe("the relayer's SQLite migration to cancellable relays", () => {
  it("rebuilds the relays table of a version-4 database keeping its relays and their transactions, and the cancelled status is then accepted", async () => {
    const relay = newRelay();
    const sent = transaction("swap", "0a");
    await withOldRelayDatabase(4, (old) => {
      old.prepare(`INSERT INTO relays (id, chain_id, quote_id, onchain_quote_id, integrator_id, api_key_id, taker, router, data, signature, permit2_nonce,
        deadline, estimated_gas, accepted_block, status, signer, signer_nonce, created_at, updated_at, fee_wei)
        VALUES (?, 4663, ?, ?, 1, 1, ?, ?, '0x1234', ?, '5', 1900000000, 200000, 10, 'submitted', ?, 7, 1000, 2000, '42')`)
        .run(relay.id, relay.quoteId, relay.onchainQuoteId, TAKER.toLowerCase(), SIGNER.toLowerCase(), relay.signature, SIGNER.toLowerCase());
      old.prepare(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at)
        VALUES (?, ?, 'swap', ?, 7, ?, '10', '1', 2000)`).run(sent.hash, relay.id, SIGNER.toLowerCase(), sent.raw);
    }, async (path) => {
      const store = openSqliteRelayStore(path);
      try {
        const migrated = (await store.getRelay(relay.id))!;
        expect([migrated.status, migrated.signerNonce, migrated.feeWei, migrated.cancelRequestedAt, migrated.transactions.map((tx) => tx.hash)]).to.deep.equal(["submitted", 7, 42n, undefined, [sent.hash]]);
        expect((await store.requestCancellation(relay.id, new Date(3_000)))?.decision).to.equal("cancelling");
        await store.updateRelay(relay.id, { status: "cancelled", at: new Date(4_000) });
        expect((await store.getRelay(relay.id))?.status).to.equal("cancelled");
      } finally {
        await store.close();
      }
    });
  });
});
