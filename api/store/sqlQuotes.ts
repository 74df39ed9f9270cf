import type { Hex } from "viem";
import type { SqlDatabase } from "../../sdk/storage/sqlDatabase";
import type { ApiSchema } from "./apiSchema";
import { QuoteWriteBuffer, type WriteErrorListener } from "./quoteWriteBuffer";
import { quoteFromRow, quoteRow } from "./rows/quoteRow";
import type { QuoteRecord, QuoteStore } from "./store";

const COLUMNS = [
  "quote_id", "chain_id", "onchain_id", "api_key_id", "integrator_id", "taker", "recipient", "sell_token", "buy_token", "sell_amount",
  "buy_amount", "min_buy_amount", "fee_amount", "settlement", "router", "block_number", "expires_at", "created_at", "gasless",
] as const;

/**
 * Quote records, written once for SQLite and PostgreSQL: buffered (see QuoteWriteBuffer), each batch
 * one multi-row INSERT, so all of it or none. Reads flush first.
 */
export class SqlQuotes implements QuoteStore {
  readonly #db: SqlDatabase<ApiSchema>;
  readonly #buffer: QuoteWriteBuffer;

  constructor(db: SqlDatabase<ApiSchema>, onWriteError: WriteErrorListener) {
    this.#db = db;
    this.#buffer = new QuoteWriteBuffer(
      {
        // After close there is nowhere to write buffered quotes (the store's close flushed them first);
        // a durable one must fail instead, so its caller never answers a quote that was not recorded.
        writeBatch: async (batch) => {
          if (this.#db.isOpen()) await this.#insert(batch);
        },
        writeOne: (quote) => this.#insert([quote]),
        isConstraintError: (error) => db.isConstraintError(error),
      },
      onWriteError,
    );
  }

  /** A gasless quote's record is committed before this resolves (POST /gasless/submit, on any instance, needs it after a crash too); others are buffered. */
  async saveQuote(quote: QuoteRecord): Promise<void> {
    if (quote.gasless !== undefined) return this.#buffer.addDurable(quote);
    this.#buffer.add(quote);
  }

  async findQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    await this.#buffer.flush();
    const row = await this.#db.first(this.#db.build.selectFrom("quotes").select(COLUMNS).where("quote_id", "=", quoteId));
    return row && quoteFromRow(row);
  }

  async findQuoteByOnchainId(chainId: number, onchainId: Hex): Promise<QuoteRecord | undefined> {
    await this.#buffer.flush();
    const row = await this.#db.first(
      this.#db.build.selectFrom("quotes").select(COLUMNS).where("chain_id", "=", chainId).where("onchain_id", "=", onchainId.toLowerCase()),
    );
    return row && quoteFromRow(row);
  }

  /** Writes what is buffered; the store's `close` calls it before closing the database. */
  flush(): Promise<void> {
    return this.#buffer.flush();
  }

  async #insert(batch: readonly QuoteRecord[]): Promise<void> {
    await this.#db.changes(this.#db.build.insertInto("quotes").values(batch.map(quoteRow)));
  }
}
