import { expect } from "chai";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { openSqliteStore } from "../../api/store/sqlite/sqliteStore";
import { quote } from "../fixtures/quoteRecord";

describe("quote records", () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), "quotes-"))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("are readable at once, even while their batch is still buffered, and survive a reopen", async () => {
    const path = join(directory, "api.sqlite");
    const store = openSqliteStore(path);
    const record = quote(`0x${"00".repeat(16)}${"ab".repeat(16)}`, "2b7e1516-28ae-4d2a-8f9c-1c4f6b2d3e4a");
    await store.saveQuote(record);
    expect(await store.findQuoteByOnchainId(4663, record.onchainId)).to.deep.equal(record);
    await store.close();
    const reopened = openSqliteStore(path);
    expect(await reopened.findQuoteByOnchainId(4663, record.onchainId.toUpperCase().replace("0X", "0x") as Hex)).to.deep.equal(record);
    expect(await reopened.findQuoteByOnchainId(1, record.onchainId)).to.equal(undefined);
    await reopened.close();
  });

  it("a record that breaks a constraint is dropped and reported, without losing the rest of its batch", async () => {
    const reports: { pending: number; dropped: number }[] = [];
    const store = openSqliteStore(join(directory, "api.sqlite"), { onWriteError: (_error, state) => reports.push(state) });
    const id: Hex = `0x${"00".repeat(31)}01`;
    await store.saveQuote(quote(id, "first"));
    await store.saveQuote(quote(id, "duplicate on-chain id"));
    await store.saveQuote(quote(`0x${"00".repeat(31)}02`, "third"));
    expect((await store.findQuoteByOnchainId(4663, id))?.quoteId).to.equal("first");
    expect((await store.findQuoteByOnchainId(4663, `0x${"00".repeat(31)}02`))?.quoteId).to.equal("third");
    expect(reports).to.deep.equal([{ pending: 0, dropped: 1 }]);
    await store.close();
  });
});
