import { expect } from "chai";
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256, toHex, type Address, type Hex } from "viem";
import { applyPostgresMigrations, openPostgresPool } from "../../sdk/storage/postgresPool";
import type { UnpaidGasEntry } from "../../relayer/ledger/unpaidGas";
import { openPostgresRelayStore, openSqliteRelayStore } from "../../relayer/store/openRelayStore";
import { relayMigrations } from "../../relayer/store/relayMigrations";
import type { RelayStore } from "../../relayer/store/relayStore";
import { createTestDatabase } from "../fixtures/postgresServer";
import { withOldRelayDatabase } from "../fixtures/oldRelayDatabase";

const TAKER: Address = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OTHER: Address = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const HOUR = 3_600_000;
const NOW = new Date("2026-03-01T12:00:00Z");
const WINDOW_START = new Date(NOW.getTime() - 24 * HOUR);

function entry(overrides: Partial<UnpaidGasEntry> = {}): UnpaidGasEntry {
  return {
    relayId: randomUUID(),
    taker: TAKER,
    integratorId: 7,
    cause: "taker",
    kind: "reverted_swap",
    gasUsed: 100_000n,
    gasPrice: 2_000_000_000n,
    txHash: keccak256(toHex(randomUUID())),
    at: NOW,
    detail: "the swap reverted",
    ...overrides,
  };
}

type Engine = { name: string; open(): Promise<RelayStore>; reopen(): Promise<RelayStore>; cleanup(): void };
let directory: string;
let url: string;
const engines: Engine[] = [
  {
    name: "SQLite",
    open: async () => {
      directory = mkdtempSync(join(tmpdir(), "unpaid-gas-"));
      return openSqliteRelayStore(join(directory, "relayer.sqlite"));
    },
    reopen: async () => openSqliteRelayStore(join(directory, "relayer.sqlite")),
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  },
  {
    name: "PostgreSQL",
    open: async () => openPostgresRelayStore((url = await createTestDatabase("unpaid_gas"))),
    reopen: async () => openPostgresRelayStore(url),
    cleanup: () => undefined,
  },
];

for (const engine of engines) {
  describe(`the unpaid-gas ledger on ${engine.name}`, () => {
    let store: RelayStore;
    beforeEach(async () => {
      store = await engine.open();
    });
    afterEach(async () => {
      await store.close();
      engine.cleanup();
    });

    it("records an entry once per (transaction, relay, kind): a retry after a crash, or a second relayer, counts nothing twice", async () => {
      const first = entry();
      expect(await store.recordUnpaidGas(first)).to.equal(true);
      const peer = await engine.reopen();
      try {
        // The same receipt read again, even with another cause or gas: the first write stands.
        expect(await peer.recordUnpaidGas({ ...first, cause: "market", gasUsed: 1n, at: new Date(NOW.getTime() + 1_000) })).to.equal(false);
        expect(await store.recordUnpaidGas({ ...first, txHash: first.txHash.toUpperCase().replace("0X", "0x") as Hex })).to.equal(false);
        // Another kind of the same transaction and relay (a batch skip then its retry's revert) is another entry.
        expect(await store.recordUnpaidGas({ ...first, kind: "failed_retry" })).to.equal(true);
        expect(await peer.unpaidGasCharged({ taker: TAKER, integratorId: 7, since: WINDOW_START })).to.deep.equal({ taker: 200_000n, integrator: 200_000n });
        expect(await peer.unpaidGasTotals({})).to.deep.equal([
          { cause: "taker", kind: "failed_retry", entries: 1, gasUsed: 100_000n, weiPaid: 2e14 },
          { cause: "taker", kind: "reverted_swap", entries: 1, gasUsed: 100_000n, weiPaid: 2e14 },
        ]);
      } finally {
        await peer.close();
      }
    });

    it("charges a taker's budget with what it caused and an integrator's with what its takers and itself caused, in the window; market and operator gas with nobody", async () => {
      await store.recordUnpaidGas(entry({ gasUsed: 120_000n }));
      await store.recordUnpaidGas(entry({ gasUsed: 30_000n, integratorId: 8, at: new Date(NOW.getTime() - HOUR) })); // same taker, other integrator
      await store.recordUnpaidGas(entry({ gasUsed: 21_000n, cause: "integrator", kind: "cancel_replacement" })); // the integrator's cancel
      await store.recordUnpaidGas(entry({ gasUsed: 200_000n, cause: "market" }));
      await store.recordUnpaidGas(entry({ gasUsed: 21_000n, cause: "operator", kind: "nonce_release" }));
      await store.recordUnpaidGas(entry({ gasUsed: 90_000n, taker: OTHER }));
      await store.recordUnpaidGas(entry({ gasUsed: 500_000n, at: new Date(WINDOW_START.getTime() - 1) })); // slid out of the window
      expect(await store.unpaidGasCharged({ taker: TAKER, integratorId: 7, since: WINDOW_START })).to.deep.equal({ taker: 150_000n, integrator: 231_000n });
      expect(await store.unpaidGasCharged({ taker: OTHER, integratorId: 8, since: WINDOW_START })).to.deep.equal({ taker: 90_000n, integrator: 30_000n });
      expect(await store.unpaidGasCharged({ taker: OTHER, integratorId: 9, since: WINDOW_START })).to.deep.equal({ taker: 90_000n, integrator: 0n });

      // Per integrator and cause, for the CLI (every cause, the market's and the operator's too).
      const usage = await store.unpaidGasTotals({ integratorId: 7, since: WINDOW_START });
      expect(usage.map((total) => [total.cause, total.kind, total.entries, total.gasUsed])).to.deep.equal([
        ["integrator", "cancel_replacement", 1, 21_000n],
        ["market", "reverted_swap", 1, 200_000n],
        ["operator", "nonce_release", 1, 21_000n],
        ["taker", "reverted_swap", 2, 210_000n],
      ]);
      expect(usage.find((total) => total.cause === "market")?.weiPaid).to.equal(200_000 * 2e9);

      expect((await store.listUnpaidGasTallies(WINDOW_START)).map((tally) => [tally.kind, tally.subject, tally.gasUsed, tally.entries])).to.deep.equal([
        ["integrator", "7", 231_000n, 3],
        ["taker", TAKER, 150_000n, 2],
        ["taker", OTHER, 90_000n, 1],
        ["integrator", "8", 30_000n, 1],
      ]);
    });

    it("says when a spent budget frees up: the charge whose leaving the window brings the total below the budget, oldest first", async () => {
      const at = (hoursAgo: number) => new Date(NOW.getTime() - hoursAgo * HOUR);
      await store.recordUnpaidGas(entry({ gasUsed: 100_000n, at: at(20) }));
      await store.recordUnpaidGas(entry({ gasUsed: 100_000n, at: at(10) }));
      await store.recordUnpaidGas(entry({ gasUsed: 100_000n, at: at(5) }));
      const taker = { kind: "taker", taker: TAKER } as const;
      // 300k charged; a budget of 250k (keep 249,999) frees once the oldest leaves, 200k once two have left.
      expect(await store.unpaidGasReleaseAt(taker, { since: WINDOW_START, keep: 249_999n })).to.deep.equal(at(20));
      expect(await store.unpaidGasReleaseAt(taker, { since: WINDOW_START, keep: 199_999n })).to.deep.equal(at(10));
      expect(await store.unpaidGasReleaseAt(taker, { since: WINDOW_START, keep: 0n })).to.deep.equal(at(5));
      expect(await store.unpaidGasReleaseAt(taker, { since: WINDOW_START, keep: 300_000n })).to.equal(undefined);
      expect(await store.unpaidGasReleaseAt({ kind: "integrator", integratorId: 7 }, { since: WINDOW_START, keep: 100_000n })).to.deep.equal(at(10));
      expect(await store.unpaidGasReleaseAt({ kind: "integrator", integratorId: 99 }, { since: WINDOW_START, keep: 0n })).to.equal(undefined);
    });

    it("clears a taker's or an integrator's charges for its budget, kept on record for the operator's totals", async () => {
      await store.recordUnpaidGas(entry());
      await store.recordUnpaidGas(entry({ taker: OTHER }));
      await store.recordUnpaidGas(entry({ integratorId: 8 }));
      expect(await store.clearUnpaidGas({ kind: "taker", taker: TAKER })).to.equal(2);
      expect(await store.unpaidGasCharged({ taker: TAKER, integratorId: 7, since: WINDOW_START })).to.deep.equal({ taker: 0n, integrator: 200_000n });
      expect(await store.clearUnpaidGas({ kind: "integrator", integratorId: 7 })).to.equal(2);
      expect(await store.unpaidGasCharged({ taker: OTHER, integratorId: 7, since: WINDOW_START })).to.deep.equal({ taker: 100_000n, integrator: 0n });
      expect(await store.unpaidGasReleaseAt({ kind: "integrator", integratorId: 7 }, { since: WINDOW_START, keep: 0n })).to.equal(undefined);
      expect((await store.unpaidGasTotals({})).map((total) => total.entries)).to.deep.equal([3]);
    });
  });
}

/** A relay row and its mined transaction, as the schema before the ledger held them. */
const RELAY_COLUMNS = `id, chain_id, quote_id, onchain_quote_id, integrator_id, api_key_id, taker, router, data, signature, permit2_nonce,
  deadline, estimated_gas, accepted_block, status, created_at, updated_at`;
const OLD_ROWS = {
  relay: ["r-solo", 4663, "q1", "0x01", 7, 1, TAKER.toLowerCase(), TAKER.toLowerCase(), "0x12", "0x34", "5", 1_900_000_000, 180_000, 10, "failed", 1_000, 2_000],
  batchRelay: ["r-batch", 4663, "q2", "0x02", 7, 1, TAKER.toLowerCase(), TAKER.toLowerCase(), "0x12", "0x35", "6", 1_900_000_000, 150_000, 10, "failed", 1_000, 2_000],
  soloHash: `0x${"aa".repeat(32)}`,
  batchHash: `0x${"bb".repeat(32)}`,
};

/** What every engine's migration must make of the old revert counts. */
async function expectCarriedOver(store: RelayStore): Promise<void> {
  const since = new Date(0);
  // r-solo: its estimate at its transaction's max fee; r-batch: a batch skip; r-gone: its relay was forgotten (no gas); cleared flags kept.
  expect(await store.unpaidGasCharged({ taker: TAKER, integratorId: 7, since })).to.deep.equal({ taker: 180_000n, integrator: 330_000n });
  expect((await store.unpaidGasTotals({})).map((total) => [total.cause, total.kind, total.entries, total.gasUsed, total.weiPaid])).to.deep.equal([
    ["taker", "batch_skip", 1, 150_000n, 150_000 * 30],
    ["taker", "reverted_swap", 2, 180_000n, 180_000 * 20],
  ]);
  // The ledger takes new entries after the migration.
  expect(await store.recordUnpaidGas(entry({ at: new Date(5_000) }))).to.equal(true);
}

describe("the unpaid-gas ledger's migration of an existing database", () => {
  it("SQLite: a version-7 database's revert counts become ledger entries charged to their takers, in place", async () => {
    await withOldRelayDatabase(7, (old) => {
      const insertRelay = old.prepare(`INSERT INTO relays (${RELAY_COLUMNS}) VALUES (${Array(17).fill("?").join(", ")})`);
      insertRelay.run(...OLD_ROWS.relay);
      insertRelay.run(...OLD_ROWS.batchRelay);
      old.prepare(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at, mined)
        VALUES (?, 'r-solo', 'swap', ?, 1, '0x', '20', '1', 1500, 1)`).run(OLD_ROWS.soloHash, TAKER.toLowerCase());
      old.prepare(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at, mined, batch_position, batch_size)
        VALUES (?, 'r-batch', 'swap', ?, 2, '0x', '30', '1', 1500, 1, 0, 2)`).run(OLD_ROWS.batchHash, TAKER.toLowerCase());
      const revert = old.prepare("INSERT INTO gasless_reverts (relay_id, taker, integrator_id, reverted_at, cleared_taker, cleared_integrator) VALUES (?, ?, 7, 2000, ?, 0)");
      revert.run("r-solo", TAKER.toLowerCase(), 0);
      revert.run("r-batch", TAKER.toLowerCase(), 1);
      revert.run("r-gone", TAKER.toLowerCase(), 0);
    }, async (path) => {
      const store = openSqliteRelayStore(path);
      try {
        await expectCarriedOver(store);
      } finally {
        await store.close();
      }
      const check = new Database(path, { readonly: true });
      try {
        expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'gasless_reverts'").get()).to.equal(undefined);
        expect(check.prepare("SELECT tx_hash FROM unpaid_gas WHERE relay_id = 'r-gone'").get()).to.deep.equal({ tx_hash: "0x" });
      } finally {
        check.close();
      }
    });
  });

  it("PostgreSQL: a version-5 schema's revert counts become ledger entries charged to their takers, in place", async () => {
    const databaseUrl = await createTestDatabase("unpaid_gas_migrate");
    const pool = openPostgresPool(databaseUrl, { max: 1, applicationName: "migration-test" });
    try {
      await applyPostgresMigrations(pool, "relayer_schema_migrations", relayMigrations.filter((migration) => migration.version <= 7));
      const placeholders = Array.from({ length: 17 }, (_, index) => `$${index + 1}`).join(", ");
      await pool.query(`INSERT INTO relays (${RELAY_COLUMNS}) VALUES (${placeholders})`, OLD_ROWS.relay);
      await pool.query(`INSERT INTO relays (${RELAY_COLUMNS}) VALUES (${placeholders})`, OLD_ROWS.batchRelay);
      await pool.query(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at, mined)
        VALUES ($1, 'r-solo', 'swap', $2, 1, '0x', '20', '1', 1500, 1)`, [OLD_ROWS.soloHash, TAKER.toLowerCase()]);
      await pool.query(`INSERT INTO relay_transactions (hash, relay_id, kind, signer, nonce, raw, max_fee_per_gas, max_priority_fee_per_gas, sent_at, mined, batch_position, batch_size)
        VALUES ($1, 'r-batch', 'swap', $2, 2, '0x', '30', '1', 1500, 1, 0, 2)`, [OLD_ROWS.batchHash, TAKER.toLowerCase()]);
      for (const [relayId, cleared] of [["r-solo", 0], ["r-batch", 1], ["r-gone", 0]] as const) {
        await pool.query("INSERT INTO gasless_reverts (relay_id, taker, integrator_id, reverted_at, cleared_taker, cleared_integrator) VALUES ($1, $2, 7, 2000, $3, 0)", [relayId, TAKER.toLowerCase(), cleared]);
      }
    } finally {
      await pool.end();
    }
    const store = await openPostgresRelayStore(databaseUrl);
    try {
      await expectCarriedOver(store);
    } finally {
      await store.close();
    }
  });
});
