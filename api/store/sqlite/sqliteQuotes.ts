import type Database from "better-sqlite3";
import type { Hex } from "viem";
import { QuoteWriteBuffer, type WriteErrorListener } from "../quoteWriteBuffer";
import { quoteFromRow, quoteRow, type QuoteRow } from "../rows/quoteRow";
import type { QuoteRecord, QuoteStore } from "../store";

/** Quote records on SQLite, written in batches (see QuoteWriteBuffer); reads flush first. */
export class SqliteQuotes implements QuoteStore {
  readonly #db: Database.Database;
  readonly #statements;
  readonly #buffer: QuoteWriteBuffer;

  constructor(db: Database.Database, onWriteError: WriteErrorListener) {
    this.#db = db;
    this.#statements = {
      insert: db.prepare(`INSERT INTO quotes (quote_id, chain_id, onchain_id, api_key_id, integrator_id, taker, recipient,
         sell_token, buy_token, sell_amount, buy_amount, min_buy_amount, fee_amount, settlement, router, block_number,
         expires_at, created_at, gasless)
        VALUES (@quote_id, @chain_id, @onchain_id, @api_key_id, @integrator_id, @taker, @recipient, @sell_token, @buy_token,
         @sell_amount, @buy_amount, @min_buy_amount, @fee_amount, @settlement, @router, @block_number, @expires_at, @created_at,
         @gasless)`),
      findByOnchainId: db.prepare("SELECT * FROM quotes WHERE chain_id = ? AND onchain_id = ?"),
      find: db.prepare("SELECT * FROM quotes WHERE quote_id = ?"),
    };
    this.#buffer = new QuoteWriteBuffer(
      {
        writeBatch: async (batch) => {
          if (!this.#db.open) return;
          this.#db.transaction(() => {
            for (const quote of batch) this.#statements.insert.run(quoteRow(quote));
          })();
        },
        writeOne: async (quote) => void this.#statements.insert.run(quoteRow(quote)),
        isConstraintError: (error) => {
          const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
          return typeof code === "string" && code.startsWith("SQLITE_CONSTRAINT");
        },
      },
      onWriteError,
    );
  }

  /** A gasless quote's record is committed before this resolves (POST /gasless/submit needs it after a crash too); others are buffered. */
  async saveQuote(quote: QuoteRecord): Promise<void> {
    if (quote.gasless !== undefined) return this.#buffer.addDurable(quote);
    this.#buffer.add(quote);
  }

  async findQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    await this.#buffer.flush();
    const row = this.#statements.find.get(quoteId) as QuoteRow | undefined;
    return row === undefined ? undefined : quoteFromRow(row);
  }

  async findQuoteByOnchainId(chainId: number, onchainId: Hex): Promise<QuoteRecord | undefined> {
    await this.#buffer.flush();
    const row = this.#statements.findByOnchainId.get(chainId, onchainId.toLowerCase()) as QuoteRow | undefined;
    return row === undefined ? undefined : quoteFromRow(row);
  }

  /** Writes what is buffered; the store's `close` calls it before closing the database. */
  flush(): Promise<void> {
    return this.#buffer.flush();
  }
}
