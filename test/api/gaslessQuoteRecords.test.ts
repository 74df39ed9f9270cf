import { expect } from "chai";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Pool } from "pg";
import type { Hex } from "viem";
import { openPostgresStore } from "../../api/store/postgres/postgresStore";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import type { QuoteRecord, Store } from "../../api/store/store";
import { createTestDatabase } from "../fixtures/postgresServer";
import { quote } from "../fixtures/quoteRecord";

/** A gasless quote record: what POST /gasless/submit looks up, on whichever instance it reaches. */
function gaslessQuote(index: number): QuoteRecord {
  const base = quote(`0x${"00".repeat(30)}${index.toString(16).padStart(4, "0")}` as Hex, `gasless-${index}`);
  return {
    ...base,
    gasless: {
      order: {
        sellToken: base.sellToken,
        sellAmount: base.sellAmount,
        buyToken: base.buyToken,
        minBuyAmount: base.minBuyAmount,
        recipient: base.recipient,
        deadline: 1_800_000_000n,
        quoteId: base.onchainId,
        actions: "0x",
      },
      permit2Nonce: BigInt(index),
      relayerFee: 1n,
      relayerFeeRecipient: base.router,
      data: "0x1234",
      signatureOffset: 2,
      estimatedGas: 200_000,
    },
  };
}

/**
 * Per engine: the store, and a second connection of its own that reads the `quotes` table the way
 * another API instance (or the same one after a crash) would, bypassing the first store's buffer.
 */
const engines: { name: string; open(): Promise<{ store: Store; committedIds(): Promise<string[]>; sql(statement: string): Promise<void>; close(): Promise<void> }> }[] = [
  {
    name: "SQLite",
    open: async () => {
      const directory = mkdtempSync(join(tmpdir(), "gasless-records-"));
      const path = join(directory, "api.sqlite");
      const store = openSqliteStore(path);
      const other = new Database(path);
      return {
        store,
        committedIds: async () => (other.prepare("SELECT quote_id FROM quotes ORDER BY quote_id").all() as { quote_id: string }[]).map((row) => row.quote_id),
        sql: async (statement) => void other.exec(statement),
        close: async () => {
          other.close();
          await store.close();
          rmSync(directory, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      const url = await createTestDatabase("gasless_records");
      const store = await openPostgresStore(url);
      const other = new Pool({ connectionString: url, max: 4 });
      return {
        store,
        committedIds: async () => (await other.query<{ quote_id: string }>("SELECT quote_id FROM quotes ORDER BY quote_id")).rows.map((row) => row.quote_id),
        sql: async (statement) => void (await other.query(statement)),
        close: async () => {
          await other.end();
          await store.close();
        },
      };
    },
  },
];

for (const engine of engines) {
  describe(`gasless quote records on ${engine.name}`, () => {
    let opened: Awaited<ReturnType<(typeof engines)[number]["open"]>>;
    beforeEach(async () => (opened = await engine.open()));
    afterEach(() => opened.close());

    it("commits a gasless quote's record before saveQuote resolves, so another instance (or a restart) finds it at once", async () => {
      // Plain quotes stay write-behind (statistics only); the gasless one does not wait for their timer.
      await opened.store.saveQuote(quote(`0x${"00".repeat(31)}aa`, "plain"));
      await opened.store.saveQuote(gaslessQuote(1));
      expect(await opened.committedIds()).to.include("gasless-1");
    });

    it("commits many concurrent gasless records, every one before its own saveQuote resolves", async () => {
      await Promise.all(
        Array.from({ length: 40 }, async (_, index) => {
          await opened.store.saveQuote(gaslessQuote(index + 100));
          expect(await opened.committedIds()).to.include(`gasless-${index + 100}`);
        }),
      );
      expect(await opened.committedIds()).to.have.length(40);
    });

    it("rejects saveQuote when a gasless record cannot be committed, and never writes that record later", async () => {
      await opened.sql("ALTER TABLE quotes RENAME TO quotes_away");
      try {
        let refused: unknown;
        await opened.store.saveQuote(gaslessQuote(7)).catch((error: unknown) => (refused = error));
        expect(refused, "saveQuote resolved without a committed record").to.be.instanceOf(Error);
      } finally {
        await opened.sql("ALTER TABLE quotes_away RENAME TO quotes");
      }
      await opened.store.saveQuote(gaslessQuote(8));
      expect(await opened.committedIds()).to.deep.equal(["gasless-8"]);
      // The refused quote was never answered: a retry after the table is back must not bring it in.
      expect(await opened.store.findQuote("gasless-7")).to.equal(undefined);
    });
  });
}
