import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import type { NewRelay, RelayStore } from "../../relayer/store/relayStore";
import { openPostgresRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { createTestDatabase } from "../fixtures/postgresServer";

const TAKER = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const SIGNER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";
const signature = (byte: string): Hex => `0x${byte.repeat(65)}`;

function newRelay(overrides: Partial<NewRelay> = {}): NewRelay {
  return {
    id: randomUUID(),
    chainId: 4663,
    quoteId: randomUUID(),
    onchainQuoteId: `0x${"00".repeat(16)}${"ab".repeat(16)}`,
    integratorId: 1,
    apiKeyId: 1,
    idempotencyKey: undefined,
    taker: TAKER,
    router: SIGNER,
    data: "0x1234",
    signature: signature("11"),
    permit2Nonce: 5n,
    deadline: 1_900_000_000n,
    estimatedGas: 200_000,
    acceptedBlock: 10n,
    createdAt: new Date(1_000),
    ...overrides,
  };
}

async function expectRejection(
  promise: Promise<unknown>,
  message: RegExp,
): Promise<void> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome, "expected a rejection").to.be.instanceOf(Error);
  expect((outcome as Error).message).to.match(message);
}

/** Each engine opens a fresh store, and can open a second connection (another relayer) to the same one. */
type Engine = {
  name: string;
  open(): Promise<void>;
  connect(): Promise<RelayStore>;
  reopen(): Promise<RelayStore>;
  cleanup(): void;
};
let directory: string;
let url: string;
const engines: Engine[] = [
  {
    name: "SQLite",
    open: async () =>
      void (directory = mkdtempSync(join(tmpdir(), "relay-store-"))),
    connect: async () =>
      openSqliteRelayStore(join(directory, "relayer.sqlite")),
    reopen: async () => openSqliteRelayStore(join(directory, "relayer.sqlite")),
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
  {
    name: "PostgreSQL",
    open: async () => void (url = await createTestDatabase("relay_store")),
    connect: async () => openPostgresRelayStore(url),
    reopen: async () => openPostgresRelayStore(url),
    cleanup: () => undefined,
  },
];

for (const engine of engines) {
  describe(`relay store on ${engine.name}`, () => {
    let store: RelayStore;
    beforeEach(async () => {
      await engine.open();
      store = await engine.connect();
    });
    afterEach(async () => {
      await store.close();
      engine.cleanup();
    });

    it("creates one relay per quote: the same signature finds it, another signature conflicts", async () => {
      const relay = newRelay();
      expect((await store.createRelay(relay)).outcome).to.equal("created");
      const again = await store.createRelay({ ...relay, id: randomUUID() });
      expect(again.outcome).to.equal("existing");
      expect(again.relay.id).to.equal(relay.id);
      expect(
        (
          await store.createRelay({
            ...relay,
            id: randomUUID(),
            signature: signature("22"),
          })
        ).outcome,
      ).to.equal("quote_conflict");
    });

    it("records a failure whose text holds NUL (a node's message, a revert reason: anyone's bytes), NUL replaced by U+FFFD", async () => {
      const relay = newRelay();
      await store.createRelay(relay);
      await store.updateRelay(relay.id, { status: "rejected", reason: "simulation_failed", error: "execution reverted: bad\u0000reason", at: new Date(2_000) });
      const stored = await store.getRelay(relay.id);
      expect([stored?.status, stored?.error]).to.deep.equal(["rejected", "execution reverted: bad\ufffdreason"]);
    });

    it("an idempotency key returns its relay for the same quote and conflicts for another quote", async () => {
      const relay = newRelay({ idempotencyKey: "client-key-1" });
      await store.createRelay(relay);
      expect(
        (
          await store.createRelay({
            ...relay,
            id: randomUUID(),
            signature: signature("33"),
          })
        ).relay.id,
      ).to.equal(relay.id);
      expect(
        (await store.createRelay(newRelay({ idempotencyKey: "client-key-1" })))
          .outcome,
      ).to.equal("idempotency_conflict");
      // Keys are per integrator.
      expect(
        (
          await store.createRelay(
            newRelay({ idempotencyKey: "client-key-1", integratorId: 2 }),
          )
        ).outcome,
      ).to.equal("created");
    });

    it("keeps every broadcast transaction, marks the mined one, and refuses moves the state machine forbids", async () => {
      const relay = newRelay();
      await store.createRelay(relay);
      const fees = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
      await store.recordBroadcast(relay.id, {
        hash: `0x${"01".repeat(32)}`,
        kind: "swap",
        signer: SIGNER,
        nonce: 7,
        raw: "0xaa",
        ...fees,
        sentAt: new Date(2_000),
      }, { owner: "relayer-1", now: new Date(2_000) });
      await store.recordBroadcast(relay.id, {
        hash: `0x${"02".repeat(32)}`,
        kind: "swap",
        signer: SIGNER,
        nonce: 7,
        raw: "0xbb",
        ...fees,
        sentAt: new Date(3_000),
      }, { owner: "relayer-1", now: new Date(2_000) });
      let stored = (await store.getRelay(relay.id))!;
      expect(stored.status).to.equal("submitted");
      expect([stored.signer, stored.signerNonce]).to.deep.equal([SIGNER, 7]);
      expect(await store.highestNonce(SIGNER)).to.equal(7);
      await expectRejection(
        store.updateRelay(relay.id, {
          status: "rejected",
          at: new Date(4_000),
        }),
        /cannot move from submitted to rejected/,
      );
      await store.updateRelay(relay.id, {
        status: "confirmed",
        mined: { hash: `0x${"02".repeat(32)}` },
        at: new Date(4_000),
      });
      stored = (await store.getRelay(relay.id))!;
      expect(
        stored.transactions.map((transaction) => transaction.mined),
      ).to.deep.equal([false, true]);
      expect(await store.listOpenRelays()).to.deep.equal([]);
      await expectRejection(
        store.updateRelay(relay.id, { status: "failed", at: new Date(5_000) }),
        /cannot move from confirmed/,
      );
    });

    it("records a copier's fill as the mined transaction", async () => {
      const relay = newRelay();
      await store.createRelay(relay);
      await store.updateRelay(relay.id, {
        status: "confirmed",
        mined: {
          hash: `0x${"0c".repeat(32)}`,
          foreign: { from: TAKER, nonce: 3 },
        },
        at: new Date(2_000),
      });
      const [fill] = (await store.getRelay(relay.id))!.transactions;
      expect(fill).to.include({
        hash: `0x${"0c".repeat(32)}`,
        signer: TAKER,
        nonce: 3,
        mined: true,
        raw: undefined,
      });
      expect(await store.highestNonce(TAKER)).to.equal(undefined);
    });

    it("keeps a relay's transactions in the order they were recorded, also within one millisecond, and names the last one recorded at a nonce as its newest", async () => {
      const relay = newRelay();
      await store.createRelay(relay);
      // Hashes whose text sorts against the recording order: only the recording order can give this back.
      const hashes = ["f0", "0f", "80"].map((byte) => `0x${byte.repeat(32)}` as Hex);
      for (const hash of hashes) {
        const sent = { hash, kind: "swap" as const, signer: SIGNER as Address, nonce: 7, raw: "0xaa" as Hex, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, sentAt: new Date(2_000) };
        expect(await store.recordBroadcast(relay.id, sent, { owner: "a", now: new Date(2_000) })).to.equal("recorded");
      }
      expect((await store.getRelay(relay.id))!.transactions.map((transaction) => transaction.hash)).to.deep.equal(hashes);
      expect(await store.latestAtNonce(SIGNER as Address, 7)).to.equal(hashes[2]);
      const reopened = await engine.reopen();
      try {
        expect((await reopened.listOpenRelays())[0]!.transactions.map((transaction) => transaction.hash)).to.deep.equal(hashes);
      } finally {
        await reopened.close();
      }
    });

    it("forgets the relays of a chain run that is gone, and keeps them otherwise", async () => {
      await store.createRelay(newRelay());
      expect(
        await store.setChainRun(`0x${"aa".repeat(32)}`, {
          forgetRelays: false,
        }),
      ).to.equal(0);
      expect(await store.chainRun()).to.equal(`0x${"aa".repeat(32)}`);
      expect(await store.listOpenRelays()).to.have.length(1);
      expect(
        await store.setChainRun(`0x${"bb".repeat(32)}`, { forgetRelays: true }),
      ).to.equal(1);
      expect(await store.listOpenRelays()).to.deep.equal([]);
    });

    it("records a broadcast only while the recording relayer holds the relay's lease: another relayer's (not_ours) or a lapsed lease writes nothing", async () => {
      const relay = newRelay();
      await store.createRelay(relay, { owner: "a", until: new Date(5_000) });
      const other = await engine.connect();
      try {
        const transaction = (byte: string) => ({ hash: `0x${byte.repeat(32)}` as Hex, kind: "swap" as const, signer: SIGNER as Hex, nonce: 4, raw: "0xaa" as Hex, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, sentAt: new Date(2_000) });
        expect(await other.recordBroadcast(relay.id, transaction("01"), { owner: "b", now: new Date(2_000) })).to.equal("not_ours");
        expect(await store.recordBroadcast(relay.id, transaction("02"), { owner: "a", now: new Date(5_000) })).to.equal("lapsed");
        let stored = (await store.getRelay(relay.id))!;
        expect([stored.status, stored.signer, stored.transactions.length]).to.deep.equal(["accepted", undefined, 0]);

        expect(await store.signerHasOpenRelays(SIGNER as Address, "a")).to.equal(false);
        expect(await store.recordBroadcast(relay.id, transaction("03"), { owner: "a", now: new Date(4_999) })).to.equal("recorded");
        stored = (await store.getRelay(relay.id))!;
        expect([stored.status, stored.signer, stored.transactions.map((t) => t.hash)]).to.deep.equal(["submitted", SIGNER, [`0x${"03".repeat(32)}`]]);
        // Its signer has a relay open for "a" (any case of the address), none for "b".
        expect(await store.signerHasOpenRelays(SIGNER.toLowerCase() as Address, "a")).to.equal(true);
        expect(await other.signerHasOpenRelays(SIGNER as Address, "b")).to.equal(false);
        // A renewal gives "a" its relay back; once "b" takes a lapsed relay over, "a" can no longer add a replacement.
        expect(await store.renewLeases({ owner: "a", until: new Date(5_500) })).to.equal(1);
        expect(await store.recordBroadcast(relay.id, transaction("05"), { owner: "a", now: new Date(5_200) })).to.equal("recorded");
        expect((await other.claimOpenRelays({ owner: "b", until: new Date(20_000) }, new Date(6_000), 10, { own: false })).map(({ relay: claimed }) => claimed.id)).to.deep.equal([relay.id]);
        expect(await store.recordBroadcast(relay.id, transaction("04"), { owner: "a", now: new Date(4_000) })).to.equal("not_ours");
        expect((await other.getRelay(relay.id))!.transactions.map((t) => t.hash)).to.deep.equal([`0x${"03".repeat(32)}`, `0x${"05".repeat(32)}`]);
        // Taken over: the relay is "b"'s now; once final, it is open for nobody.
        expect([await store.signerHasOpenRelays(SIGNER as Address, "a"), await other.signerHasOpenRelays(SIGNER as Address, "b")]).to.deep.equal([false, true]);
        await other.updateRelay(relay.id, { status: "confirmed", mined: { hash: `0x${"05".repeat(32)}` }, at: new Date(7_000) });
        expect(await other.signerHasOpenRelays(SIGNER as Address, "b")).to.equal(false);
      } finally {
        await other.close();
      }
    });

    it("survives a reopen: relays and their signed transactions are on disk", async () => {
      const relay = newRelay();
      await store.createRelay(relay);
      await store.recordBroadcast(relay.id, {
        hash: `0x${"01".repeat(32)}`,
        kind: "swap",
        signer: SIGNER,
        nonce: 0,
        raw: "0xaa",
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
        sentAt: new Date(2_000),
      }, { owner: "relayer-1", now: new Date(2_000) });
      await store.close();
      store = await engine.reopen();
      const [open] = await store.listOpenRelays();
      expect(open?.transactions[0]?.raw).to.equal("0xaa");
    });

    it("gives each open relay to exactly one of two relayers claiming at once, and renews only the owner's leases", async () => {
      const other = await engine.connect();
      try {
        for (let index = 0; index < 30; index++)
          await store.createRelay(
            newRelay({ createdAt: new Date(1_000 + index) }),
          );
        const now = new Date(10_000);
        const until = new Date(40_000);
        const claims = await Promise.all([
          store.claimOpenRelays({ owner: "a", until }, now, 20, { own: false }),
          other.claimOpenRelays({ owner: "b", until }, now, 20, { own: false }),
          store.claimOpenRelays({ owner: "a", until }, now, 20, { own: false }),
        ]);
        const ids = claims.flat().map(({ relay }) => relay.id);
        expect(ids).to.have.length(30);
        expect(new Set(ids).size).to.equal(30);
        const owners = new Map(
          claims.flat().map(({ relay }) => [relay.id, relay.claimedBy]),
        );
        expect(
          (await store.listOpenRelays()).map((relay) => relay.claimedBy),
        ).to.deep.equal(
          (await store.listOpenRelays()).map((relay) => owners.get(relay.id)),
        );
        expect(
          await store.claimOpenRelays({ owner: "c", until }, now, 100, {
            own: false,
          }),
        ).to.deep.equal([]);
        const heldByA = claims[0]!.length + claims[2]!.length;
        expect(
          await store.renewLeases({ owner: "a", until: new Date(90_000) }),
        ).to.equal(heldByA);
      } finally {
        await other.close();
      }
    });

    it("lets another relayer take over a relay whose lease ran out, with its transactions and the previous owner", async () => {
      const relay = newRelay();
      await store.createRelay(relay, { owner: "dead", until: new Date(5_000) });
      await store.recordBroadcast(relay.id, {
        hash: `0x${"01".repeat(32)}`,
        kind: "swap",
        signer: SIGNER,
        nonce: 3,
        raw: "0xaa",
        maxFeePerGas: 1n,
        maxPriorityFeePerGas: 1n,
        sentAt: new Date(2_000),
      }, { owner: "dead", now: new Date(2_000) });
      expect(
        await store.claimOpenRelays(
          { owner: "alive", until: new Date(9_000) },
          new Date(4_000),
          10,
          { own: false },
        ),
      ).to.deep.equal([]);
      expect(
        (
          await store.claimOpenRelays(
            { owner: "dead", until: new Date(9_000) },
            new Date(4_000),
            10,
            { own: true },
          )
        ).map(({ relay }) => relay.id),
      ).to.deep.equal([relay.id]);
      const [taken] = await store.claimOpenRelays(
        { owner: "alive", until: new Date(20_000) },
        new Date(9_001),
        10,
        { own: false },
      );
      expect(taken?.previousOwner).to.equal("dead");
      expect(taken?.relay).to.deep.include({
        claimedBy: "alive",
        leaseUntil: new Date(20_000),
        signer: SIGNER,
        signerNonce: 3,
      });
      expect(
        taken?.relay.transactions.map((transaction) => transaction.raw),
      ).to.deep.equal(["0xaa"]);
      // The winner's hash, already on record as the dead relayer's, is marked mined when it fills the order.
      await store.updateRelay(relay.id, {
        releaseSigner: true,
        at: new Date(9_500),
      });
      await store.updateRelay(relay.id, {
        status: "confirmed",
        mined: {
          hash: `0x${"01".repeat(32)}`,
          foreign: { from: SIGNER, nonce: 3 },
        },
        at: new Date(10_000),
      });
      const done = (await store.getRelay(relay.id))!;
      expect(
        done.transactions.map((transaction) => [
          transaction.hash,
          transaction.mined,
        ]),
      ).to.deep.equal([[`0x${"01".repeat(32)}`, true]]);
    });

    it("keeps the fee's worth in wei with the relay (absent when gas is sponsored)", async () => {
      const priced = newRelay({ feeWei: 123_456_789_000_000n });
      await store.createRelay(priced);
      expect((await store.getRelay(priced.id))!.feeWei).to.equal(123_456_789_000_000n);
      const sponsored = newRelay();
      await store.createRelay(sponsored);
      expect((await store.getRelay(sponsored.id))!.feeWei).to.equal(undefined);
    });

    it("gives a signer address to one live relayer: another is refused until the first stops or its registration lapses; a restart of the same one is not", async () => {
      const now = new Date("2026-03-01T12:00:00Z");
      const until = new Date(now.getTime() + 30_000);
      const peer = await engine.reopen();
      try {
        expect(await store.claimSigners({ relayerId: "relayer-a", signers: [SIGNER, TAKER], until, now })).to.deep.equal([]);
        const refused = await peer.claimSigners({ relayerId: "relayer-b", signers: [SIGNER], until, now });
        expect(refused).to.deep.equal([{ signer: SIGNER, relayerId: "relayer-a", until }]);
        expect(await peer.claimSigners({ relayerId: "relayer-a", signers: [SIGNER], until, now })).to.deep.equal([]);
        // Renewed, it stays live; past its registration it is dead and the signer is free. An address
        // it no longer renews (TAKER: let go) lapses on its own, and one taken over leaves its held list.
        await store.renewSigners("relayer-a", new Date(now.getTime() + 60_000), [SIGNER]);
        expect(await peer.claimSigners({ relayerId: "relayer-b", signers: [SIGNER], until, now: new Date(now.getTime() + 45_000) })).to.have.length(1);
        expect(await peer.claimSigners({ relayerId: "relayer-b", signers: [TAKER], until, now: new Date(now.getTime() + 45_000) })).to.deep.equal([]);
        expect(await store.heldSigners("relayer-a")).to.deep.equal([SIGNER]);
        expect(await peer.claimSigners({ relayerId: "relayer-b", signers: [SIGNER], until: new Date(now.getTime() + 120_000), now: new Date(now.getTime() + 61_000) })).to.deep.equal([]);
        expect(await store.heldSigners("relayer-a")).to.deep.equal([]);
        await peer.releaseSigners("relayer-b");
        expect(await store.claimSigners({ relayerId: "relayer-c", signers: [SIGNER], until, now })).to.deep.equal([]);
      } finally {
        await peer.close();
      }
    });

    it("creates one relay when 10 hand-offs of one quote race", async () => {
      const relay = newRelay();
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.createRelay({ ...relay, id: randomUUID() }),
        ),
      );
      expect(
        outcomes.filter((outcome) => outcome.outcome === "created"),
      ).to.have.length(1);
      expect(
        new Set(outcomes.map((outcome) => outcome.relay.id)).size,
      ).to.equal(1);
    });
  });
}
