import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import type { NewRelay, NewRelayTransaction, RelayStore } from "../../relayer/store/relayStore";
import { openPostgresRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { createTestDatabase } from "../fixtures/postgresServer";

const TAKER: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const SIGNER: Address = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";

function newRelay(): NewRelay {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${randomUUID().replaceAll("-", "").padStart(64, "0")}`,
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

const transaction = (byte: string, nonce = 7, at = 2_000): NewRelayTransaction => ({
  hash: `0x${byte.repeat(32)}` as Hex,
  kind: "swap",
  signer: SIGNER,
  nonce,
  raw: "0xaa",
  maxFeePerGas: 10n,
  maxPriorityFeePerGas: 1n,
  sentAt: new Date(at),
});

const engines: { name: string; open(): Promise<{ connect(): Promise<RelayStore>; cleanup(): void }> }[] = [
  {
    name: "SQLite",
    open: async () => {
      const directory = mkdtempSync(join(tmpdir(), "batch-store-"));
      return { connect: async () => openSqliteRelayStore(join(directory, "relayer.sqlite")), cleanup: () => rmSync(directory, { recursive: true, force: true }) };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const url = await createTestDatabase("batch_store");
      return { connect: async () => openPostgresRelayStore(url), cleanup: () => undefined };
    },
  },
];

for (const engine of engines) {
  describe(`batch record on ${engine.name}`, function () {
    this.timeout(60_000);
    let store: RelayStore;
    let cleanup: () => void;
    let connect: () => Promise<RelayStore>;
    beforeEach(async () => {
      ({ connect, cleanup } = await engine.open());
      store = await connect();
    });
    afterEach(async () => {
      await store.close();
      cleanup();
    });

    it("writes one batch transaction on every member with its position, before any broadcast, and finds the members again after a reopen", async () => {
      const relays = [newRelay(), newRelay(), newRelay()];
      for (const relay of relays) await store.createRelay(relay, { owner: "a", until: new Date(10_000) });
      const members = relays.map((relay, position) => ({ relayId: relay.id, position }));
      expect(await store.recordBatchBroadcast({ transaction: transaction("01"), members, expect: { kind: "unsent" } }, { owner: "a", now: new Date(2_000) })).to.deep.equal({ outcome: "recorded" });
      const reopened = await connect();
      try {
        expect(await reopened.batchMembers(`0x${"01".repeat(32)}`)).to.deep.equal(members);
        for (const [position, relay] of relays.entries()) {
          const stored = (await reopened.getRelay(relay.id))!;
          expect([stored.status, stored.signer, stored.signerNonce]).to.deep.equal(["submitted", SIGNER, 7]);
          expect(stored.transactions.map((t) => [t.hash, t.batch])).to.deep.equal([[`0x${"01".repeat(32)}`, { position, size: 3 }]]);
        }
        expect(await reopened.highestNonce(SIGNER)).to.equal(7);
        expect(await reopened.latestAtNonce(SIGNER, 7)).to.equal(`0x${"01".repeat(32)}`);
      } finally {
        await reopened.close();
      }
    });

    it("refuses the whole batch when one member changed (ended, or already sent) or is another relayer's, and writes nothing", async () => {
      const [kept, ended, theirs] = [newRelay(), newRelay(), newRelay()];
      await store.createRelay(kept, { owner: "a", until: new Date(10_000) });
      await store.createRelay(ended, { owner: "a", until: new Date(10_000) });
      await store.createRelay(theirs, { owner: "b", until: new Date(10_000) });
      await store.updateRelay(ended.id, { status: "rejected", reason: "nonce_used", error: "spent", at: new Date(1_500) });
      const members = [kept, ended, theirs].map((relay, position) => ({ relayId: relay.id, position }));
      const refused = await store.recordBatchBroadcast({ transaction: transaction("02"), members, expect: { kind: "unsent" } }, { owner: "a", now: new Date(2_000) });
      expect(refused).to.deep.equal({ outcome: "refused", refused: [{ relayId: ended.id, refusal: "changed" }, { relayId: theirs.id, refusal: "not_ours" }] });
      expect((await store.getRelay(kept.id))!.transactions).to.deep.equal([]);
      expect(await store.batchMembers(`0x${"02".repeat(32)}`)).to.deep.equal([]);
      // Rebuilt without them, it is recorded; a second first broadcast of the same relay is refused.
      expect(await store.recordBatchBroadcast({ transaction: transaction("03"), members: [{ relayId: kept.id, position: 0 }], expect: { kind: "unsent" } }, { owner: "a", now: new Date(2_000) })).to.deep.equal({ outcome: "recorded" });
      expect((await store.recordBatchBroadcast({ transaction: transaction("04", 8), members: [{ relayId: kept.id, position: 0 }], expect: { kind: "unsent" } }, { owner: "a", now: new Date(2_000) })).outcome).to.equal("refused");
    });

    it("a replacement (same signer and nonce) records the rebuilt subset; a member left out keeps its older transaction and is no longer the nonce's newest", async () => {
      const relays = [newRelay(), newRelay()];
      for (const relay of relays) await store.createRelay(relay, { owner: "a", until: new Date(10_000) });
      await store.recordBatchBroadcast({ transaction: transaction("05"), members: relays.map((relay, position) => ({ relayId: relay.id, position })), expect: { kind: "unsent" } }, { owner: "a", now: new Date(2_000) });
      const pending = { kind: "pending" as const, signer: SIGNER, nonce: 7 };
      // Expecting another nonce is a change: refused.
      expect((await store.recordBatchBroadcast({ transaction: transaction("06", 7, 3_000), members: [{ relayId: relays[1]!.id, position: 0 }], expect: { ...pending, nonce: 9 } }, { owner: "a", now: new Date(3_000) })).outcome).to.equal("refused");
      expect(await store.recordBatchBroadcast({ transaction: transaction("06", 7, 3_000), members: [{ relayId: relays[1]!.id, position: 0 }], expect: pending }, { owner: "a", now: new Date(3_000) })).to.deep.equal({ outcome: "recorded" });
      expect(await store.latestAtNonce(SIGNER, 7)).to.equal(`0x${"06".repeat(32)}`);
      expect((await store.getRelay(relays[0]!.id))!.transactions.map((t) => t.hash)).to.deep.equal([`0x${"05".repeat(32)}`]);
      expect((await store.getRelay(relays[1]!.id))!.transactions.map((t) => [t.hash, t.batch])).to.deep.equal([
        [`0x${"05".repeat(32)}`, { position: 1, size: 2 }],
        [`0x${"06".repeat(32)}`, { position: 0, size: 1 }],
      ]);
      // The mined batch is marked per relay.
      await store.updateRelay(relays[1]!.id, { status: "confirmed", mined: { hash: `0x${"06".repeat(32)}` }, at: new Date(4_000) });
      expect((await store.getRelay(relays[1]!.id))!.transactions.map((t) => t.mined)).to.deep.equal([false, true]);
      expect((await store.getRelay(relays[0]!.id))!.transactions.map((t) => t.mined)).to.deep.equal([false]);
    });
  });
}
