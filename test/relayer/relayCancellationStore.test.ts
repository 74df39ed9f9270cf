import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, type Hex } from "viem";
import type { NewRelay, NewRelayTransaction, RelayStore } from "../../relayer/store/relayStore";
import { openPostgresRelayStore } from "../../relayer/store/postgresRelayStore";
import { openSqliteRelayStore } from "../../relayer/store/sqliteRelayStore";
import { createTestDatabase } from "../fixtures/postgresServer";

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
