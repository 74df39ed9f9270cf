import { expect } from "chai";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import type { NewRelay, RelayStore } from "../../relayer/store/relayStore";
import { openSqliteRelayStore } from "../../relayer/store/sqliteRelayStore";

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

describe("relayer SQLite store", () => {
  let directory: string;
  let store: RelayStore;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "relay-store-"));
    store = openSqliteRelayStore(join(directory, "relayer.sqlite"));
  });
  afterEach(() => {
    store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("creates one relay per quote: the same signature finds it, another signature conflicts", () => {
    const relay = newRelay();
    expect(store.createRelay(relay).outcome).to.equal("created");
    const again = store.createRelay({ ...relay, id: randomUUID() });
    expect(again.outcome).to.equal("existing");
    expect(again.relay.id).to.equal(relay.id);
    expect(store.createRelay({ ...relay, id: randomUUID(), signature: signature("22") }).outcome).to.equal("quote_conflict");
  });

  it("an idempotency key returns its relay for the same quote and conflicts for another quote", () => {
    const relay = newRelay({ idempotencyKey: "client-key-1" });
    store.createRelay(relay);
    expect(store.createRelay({ ...relay, id: randomUUID(), signature: signature("33") }).relay.id).to.equal(relay.id);
    expect(store.createRelay(newRelay({ idempotencyKey: "client-key-1" })).outcome).to.equal("idempotency_conflict");
    // Keys are per integrator.
    expect(store.createRelay(newRelay({ idempotencyKey: "client-key-1", integratorId: 2 })).outcome).to.equal("created");
  });

  it("keeps every broadcast transaction, marks the mined one, and refuses moves the state machine forbids", () => {
    const relay = newRelay();
    store.createRelay(relay);
    const fees = { maxFeePerGas: 10n, maxPriorityFeePerGas: 1n };
    store.recordBroadcast(relay.id, { hash: `0x${"01".repeat(32)}`, kind: "swap", signer: SIGNER, nonce: 7, raw: "0xaa", ...fees, sentAt: new Date(2_000) });
    store.recordBroadcast(relay.id, { hash: `0x${"02".repeat(32)}`, kind: "swap", signer: SIGNER, nonce: 7, raw: "0xbb", ...fees, sentAt: new Date(3_000) });
    let stored = store.getRelay(relay.id)!;
    expect(stored.status).to.equal("submitted");
    expect([stored.signer, stored.signerNonce]).to.deep.equal([SIGNER, 7]);
    expect(store.highestNonce(SIGNER)).to.equal(7);
    expect(() => store.updateRelay(relay.id, { status: "rejected", at: new Date(4_000) })).to.throw(/cannot move from submitted to rejected/);
    store.updateRelay(relay.id, { status: "confirmed", mined: { hash: `0x${"02".repeat(32)}` }, at: new Date(4_000) });
    stored = store.getRelay(relay.id)!;
    expect(stored.transactions.map((transaction) => transaction.mined)).to.deep.equal([false, true]);
    expect(store.listOpenRelays()).to.deep.equal([]);
    expect(() => store.updateRelay(relay.id, { status: "failed", at: new Date(5_000) })).to.throw(/cannot move from confirmed/);
  });

  it("records a copier's fill as the mined transaction", () => {
    const relay = newRelay();
    store.createRelay(relay);
    store.updateRelay(relay.id, { status: "confirmed", mined: { hash: `0x${"0c".repeat(32)}`, foreign: { from: TAKER, nonce: 3 } }, at: new Date(2_000) });
    const [fill] = store.getRelay(relay.id)!.transactions;
    expect(fill).to.include({ hash: `0x${"0c".repeat(32)}`, signer: TAKER, nonce: 3, mined: true, raw: undefined });
    expect(store.highestNonce(TAKER)).to.equal(undefined);
  });

  it("forgets the relays of a chain run that is gone, and keeps them otherwise", () => {
    store.createRelay(newRelay());
    expect(store.setChainRun(`0x${"aa".repeat(32)}`, { forgetRelays: false })).to.equal(0);
    expect(store.chainRun()).to.equal(`0x${"aa".repeat(32)}`);
    expect(store.listOpenRelays()).to.have.length(1);
    expect(store.setChainRun(`0x${"bb".repeat(32)}`, { forgetRelays: true })).to.equal(1);
    expect(store.listOpenRelays()).to.deep.equal([]);
  });

  it("survives a reopen: relays and their signed transactions are on disk", () => {
    const relay = newRelay();
    store.createRelay(relay);
    store.recordBroadcast(relay.id, { hash: `0x${"01".repeat(32)}`, kind: "swap", signer: SIGNER, nonce: 0, raw: "0xaa", maxFeePerGas: 1n, maxPriorityFeePerGas: 1n, sentAt: new Date(2_000) });
    store.close();
    store = openSqliteRelayStore(join(directory, "relayer.sqlite"));
    const [open] = store.listOpenRelays();
    expect(open?.transactions[0]?.raw).to.equal("0xaa");
  });
});
