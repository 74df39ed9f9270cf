import { expect } from "chai";
import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import type { Address } from "viem";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import type { Store, TokenDemandObservation } from "../../api/store/store";
import { BufferedDemandRecorder } from "../../api/tokens/bufferedDemandRecorder";

const silent = pino({ level: "silent" });
const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
/** Two runs of one chain id (deploy block hashes), as a restarted devnet has. */
const RUN_A = `0x${"aa".repeat(32)}` as const;
const RUN_B = `0x${"bb".repeat(32)}` as const;
const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1) + seconds * 1000);

/** A store that only collects what the recorder writes, and can be told to fail. */
function collectingStore() {
  const batches: TokenDemandObservation[][] = [];
  let failNext = false;
  const store: Pick<Store, "recordTokenDemand"> = {
    recordTokenDemand: async (rows) => {
      if (failNext) {
        failNext = false;
        throw new Error("disk full");
      }
      batches.push([...rows]);
    },
  };
  return { store, batches, failOnce: () => (failNext = true) };
}

describe("unsupported-token demand recorder", () => {
  it("counts one integrator once per token however often it probes, keeping its first and last time", async () => {
    const { store, batches } = collectingStore();
    const recorder = new BufferedDemandRecorder({ store, logger: silent, maxTracked: 100 });
    for (let i = 0; i < 50; i++) recorder.record({ chainId: 4663, token: token(1), integratorId: 7, at: at(100 - i) });
    recorder.record({ chainId: 4663, token: token(1).toUpperCase().replace("0X", "0x") as Address, integratorId: 7, at: at(500) });
    expect(recorder.stats()).to.deep.equal({ tracked: 1, dropped: 0 });
    expect(await recorder.flush()).to.deep.equal({ written: 1, dropped: 0 });
    expect(batches).to.deep.equal([[{ chainId: 4663, token: token(1), integratorId: 7, firstSeen: at(51), lastSeen: at(500) }]]);
  });

  it("records synchronously without touching the store; only flush writes, in one batch", async () => {
    let calls = 0;
    const recorder = new BufferedDemandRecorder({
      store: { recordTokenDemand: async () => void (calls += 1) },
      logger: silent,
      maxTracked: 1000,
      onFlushWanted: () => undefined,
    });
    for (let i = 0; i < 300; i++) expect(recorder.record({ chainId: 4663, token: token(i % 30), integratorId: i % 10, at: at(i) })).to.equal(undefined);
    expect(calls).to.equal(0);
    expect((await recorder.flush()).written).to.equal(30);
    expect(calls).to.equal(1);
    expect(recorder.stats().tracked).to.equal(0);
  });

  it("ignores what is not a token address: symbols and the native placeholder", () => {
    const recorder = new BufferedDemandRecorder({ store: collectingStore().store, logger: silent, maxTracked: 10 });
    for (const value of ["DOGE", "0x1234", `0x${"e".repeat(40)}`, `0x${"E".repeat(40)}`]) recorder.record({ chainId: 4663, token: value as Address, integratorId: 1, at: at(0) });
    expect(recorder.stats()).to.deep.equal({ tracked: 0, dropped: 0 });
  });

  it("holds at most maxTracked entries: new ones beyond it are dropped and counted, held ones keep updating", async () => {
    const { store, batches } = collectingStore();
    const recorder = new BufferedDemandRecorder({ store, logger: silent, maxTracked: 3, onFlushWanted: () => undefined });
    for (let i = 0; i < 10; i++) recorder.record({ chainId: 4663, token: token(i), integratorId: 1, at: at(i) });
    recorder.record({ chainId: 4663, token: token(0), integratorId: 1, at: at(99) });
    expect(recorder.stats()).to.deep.equal({ tracked: 3, dropped: 7 });
    expect(await recorder.flush()).to.deep.equal({ written: 3, dropped: 7 });
    expect(batches[0]!.map((row) => row.token)).to.deep.equal([token(0), token(1), token(2)]);
    expect(batches[0]![0]!.lastSeen).to.deep.equal(at(99));
    expect(recorder.stats()).to.deep.equal({ tracked: 0, dropped: 0 });
  });

  it("stays within its bound for any sequence of observations (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.record({ chainId: fc.constantFrom(1, 4663), token: fc.integer({ min: 0, max: 30 }), integratorId: fc.integer({ min: 1, max: 5 }) }), { maxLength: 200 }),
        (maxTracked, observations) => {
          const recorder = new BufferedDemandRecorder({ store: collectingStore().store, logger: silent, maxTracked, onFlushWanted: () => undefined });
          const distinct = new Set<string>();
          for (const observation of observations) {
            recorder.record({ ...observation, token: token(observation.token), at: at(0) });
            distinct.add(`${observation.chainId}:${observation.token}:${observation.integratorId}`);
          }
          const { tracked, dropped } = recorder.stats();
          expect(tracked).to.equal(Math.min(maxTracked, distinct.size));
          expect(tracked).to.be.at.most(maxTracked);
          expect(dropped).to.be.at.least(distinct.size - tracked);
        },
      ),
    );
  });

  it("asks for an early flush once the buffer reaches its threshold, once until the next flush", async () => {
    let wanted = 0;
    const recorder = new BufferedDemandRecorder({ store: collectingStore().store, logger: silent, maxTracked: 10, flushAt: 4, onFlushWanted: () => (wanted += 1) });
    for (let i = 0; i < 6; i++) recorder.record({ chainId: 4663, token: token(i), integratorId: 1, at: at(i) });
    expect(wanted).to.equal(1);
    await recorder.flush();
    for (let i = 0; i < 4; i++) recorder.record({ chainId: 4663, token: token(i), integratorId: 2, at: at(i) });
    expect(wanted).to.equal(2);
  });

  it("keeps a batch whose write failed for the next flush", async () => {
    const { store, batches, failOnce } = collectingStore();
    const recorder = new BufferedDemandRecorder({ store, logger: silent, maxTracked: 10, onFlushWanted: () => undefined });
    recorder.record({ chainId: 4663, token: token(1), integratorId: 1, at: at(1) });
    failOnce();
    expect((await recorder.flush()).written).to.equal(0);
    recorder.record({ chainId: 4663, token: token(1), integratorId: 1, at: at(5) });
    expect((await recorder.flush()).written).to.equal(1);
    expect(batches).to.deep.equal([[{ chainId: 4663, token: token(1), integratorId: 1, firstSeen: at(1), lastSeen: at(5) }]]);
  });
});

describe("token demand in the sqlite store", () => {
  let directory: string;
  let store: Store;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "token-demand-"));
    store = openSqliteStore(join(directory, "api.sqlite"));
  });
  afterEach(async () => {
    await store.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it("flushed batches upsert one row per (chain, token, integrator), widening first and last seen", async () => {
    const recorder = new BufferedDemandRecorder({ store, logger: silent, maxTracked: 100 });
    recorder.record({ chainId: 4663, token: token(1), integratorId: 1, at: at(10) });
    recorder.record({ chainId: 4663, token: token(1), integratorId: 2, at: at(20) });
    recorder.record({ chainId: 1, token: token(1), integratorId: 1, at: at(20) });
    await recorder.flush();
    recorder.record({ chainId: 4663, token: token(1), integratorId: 1, at: at(30) });
    recorder.record({ chainId: 4663, token: token(1), integratorId: 1, at: at(5) });
    await recorder.flush();

    expect(await store.listTokenDemand({ since: at(0) })).to.deep.equal([
      { chainId: 4663, token: token(1), integrators: 2, firstSeen: at(5), lastSeen: at(30) },
      { chainId: 1, token: token(1), integrators: 1, firstSeen: at(20), lastSeen: at(20) },
    ]);
    // Integrators last seen before `since` no longer count.
    expect(await store.listTokenDemand({ chainId: 4663, since: at(25) })).to.deep.equal([
      { chainId: 4663, token: token(1), integrators: 1, firstSeen: at(5), lastSeen: at(30) },
    ]);
    expect(await store.listTokenDemand({ chainId: 4663, since: at(0), minIntegrators: 3 })).to.deep.equal([]);
    expect(await store.pruneTokenDemand(at(25))).to.equal(2);
    expect((await store.listTokenDemand({ since: at(0) })).map((row) => row.integrators)).to.deep.equal([1]);
  });

  it("leaves out tokens with a decision when asked, and never lets promotion overwrite the operator", async () => {
    await store.recordTokenDemand([{ chainId: 4663, token: token(2), integratorId: 1, firstSeen: at(1), lastSeen: at(1) }]);
    const disabled = { chainId: 4663, token: token(2), status: "disabled", source: "operator", symbol: undefined, decimals: undefined, pool: undefined, reason: "scam", chainRun: RUN_A, at: at(2) } as const;
    expect(await store.saveTokenOverride(disabled, "replace")).to.equal(true);
    expect(await store.listTokenDemand({ since: at(0), withoutOverride: true })).to.deep.equal([]);
    const pool = { address: token(99), token0: token(2), token1: token(3), type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 } as const;
    const promoted = { ...disabled, status: "promoted", source: "demand", symbol: "T", decimals: 18, pool, reason: "3 integrators", at: at(3) } as const;
    expect(await store.saveTokenOverride(promoted, "if_absent")).to.equal(false);
    const [override] = await store.listTokenOverrides(4663);
    expect(override).to.include({ status: "disabled", source: "operator", reason: "scam" });
    expect(await store.removeTokenOverride(4663, token(2))).to.equal(true);
    expect(await store.saveTokenOverride(promoted, "if_absent")).to.equal(true);
    const [saved] = await store.listTokenOverrides();
    expect(saved).to.deep.include({ status: "promoted", symbol: "T", decimals: 18, createdAt: at(3), updatedAt: at(3) });
    expect(saved!.pool).to.deep.equal({ address: "0x0000000000000000000000000000000000000063", token0: token(2), token1: token(3), type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 });
  });

  it("a decision of an earlier chain run neither hides demand from promotion on the new run nor blocks the new run's promotion", async () => {
    await store.recordTokenDemand([{ chainId: 4663, token: token(4), integratorId: 1, firstSeen: at(1), lastSeen: at(1) }]);
    const pool = { address: token(98), token0: token(4), token1: token(3), type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 } as const;
    const earlier = { chainId: 4663, token: token(4), status: "promoted", source: "demand", symbol: "OLD", decimals: 18, pool, reason: "run A", chainRun: RUN_A, at: at(2) } as const;
    expect(await store.saveTokenOverride(earlier, "if_absent")).to.equal(true);
    expect(await store.listTokenDemand({ since: at(0), withoutOverride: true, chainRun: RUN_A })).to.deep.equal([]);
    expect((await store.listTokenDemand({ since: at(0), withoutOverride: true, chainRun: RUN_B })).map((row) => row.token)).to.deep.equal([token(4)]);

    expect(await store.saveTokenOverride({ ...earlier, symbol: "NEW", chainRun: RUN_B, at: at(3) }, "if_absent")).to.equal(true);
    const [replaced] = await store.listTokenOverrides(4663);
    expect(replaced).to.deep.include({ symbol: "NEW", chainRun: RUN_B, createdAt: at(3) });
    // Within one run, promotion still never overwrites.
    expect(await store.saveTokenOverride({ ...earlier, symbol: "AGAIN", chainRun: RUN_B, at: at(4) }, "if_absent")).to.equal(false);
  });
});
