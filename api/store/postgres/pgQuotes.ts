import type { Hex } from "viem";
import { isPostgresConstraintError, type PostgresPool } from "../../../sdk/storage/postgresPool";
import { QuoteWriteBuffer, type WriteErrorListener } from "../quoteWriteBuffer";
import { quoteFromRow, quoteRow, type QuoteRow } from "../rows/quoteRow";
import type { QuoteRecord, QuoteStore } from "../store";

const COLUMNS = [
  "quote_id", "chain_id", "onchain_id", "api_key_id", "integrator_id", "taker", "recipient", "sell_token", "buy_token", "sell_amount",
  "buy_amount", "min_buy_amount", "fee_amount", "settlement", "router", "block_number", "expires_at", "created_at", "gasless",
] as const;

/** Quote records on PostgreSQL: buffered like SQLite's, each batch one multi-row INSERT. Reads flush first. */
export class PgQuotes implements QuoteStore {
  readonly #pool: PostgresPool;
  readonly #buffer: QuoteWriteBuffer;

  constructor(pool: PostgresPool, onWriteError: WriteErrorListener) {
    this.#pool = pool;
    this.#buffer = new QuoteWriteBuffer(
      {
        writeBatch: (batch) => this.#insert(batch),
        writeOne: (quote) => this.#insert([quote]),
        isConstraintError: isPostgresConstraintError,
      },
      onWriteError,
    );
  }

  /** A gasless quote's record is committed before this resolves (POST /gasless/submit, on any instance, needs it); others are buffered. */
  async saveQuote(quote: QuoteRecord): Promise<void> {
    if (quote.gasless !== undefined) return this.#buffer.addDurable(quote);
    this.#buffer.add(quote);
  }

  async findQuote(quoteId: string): Promise<QuoteRecord | undefined> {
    await this.#buffer.flush();
    const { rows } = await this.#pool.query<QuoteRow>(`SELECT ${COLUMNS.join(", ")} FROM quotes WHERE quote_id = $1`, [quoteId]);
    return rows[0] && quoteFromRow(rows[0]);
  }

  async findQuoteByOnchainId(chainId: number, onchainId: Hex): Promise<QuoteRecord | undefined> {
    await this.#buffer.flush();
    const { rows } = await this.#pool.query<QuoteRow>(`SELECT ${COLUMNS.join(", ")} FROM quotes WHERE chain_id = $1 AND onchain_id = $2`, [chainId, onchainId.toLowerCase()]);
    return rows[0] && quoteFromRow(rows[0]);
  }

  flush(): Promise<void> {
    return this.#buffer.flush();
  }

  async #insert(batch: readonly QuoteRecord[]): Promise<void> {
    const values: unknown[] = [];
    const tuples = batch.map((quote) => {
      const row = quoteRow(quote);
      const start = values.length;
      for (const column of COLUMNS) values.push(column === "block_number" ? row.block_number.toString() : row[column]);
      return `(${COLUMNS.map((_, index) => `$${start + index + 1}`).join(", ")})`;
    });
    await this.#pool.query(`INSERT INTO quotes (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`, values);
  }
}
