import type { QuoteRecord } from "./store";

/** Told when buffered quote records could not be written (they are kept and retried, up to a bound). */
export type WriteErrorListener = (error: unknown, state: { pending: number; dropped: number }) => void;

/** How one engine writes quote records: a batch in one transaction, or one record alone. */
export type QuoteWriter = {
  writeBatch(batch: readonly QuoteRecord[]): Promise<void>;
  writeOne(quote: QuoteRecord): Promise<void>;
  /** A refusal that retrying cannot fix (a duplicate id): the record is dropped. */
  isConstraintError(error: unknown): boolean;
};

const QUOTE_BATCH_SIZE = 256;
const QUOTE_FLUSH_MS = 25;
const QUOTE_RETRY_MS = 1000;
/** Quote records held while the database refuses writes; older ones are dropped past this. */
const MAX_PENDING_QUOTES = 10_000;

/**
 * Quotes are the API's hottest write: one commit each would cost more than building the quote.
 * They are buffered and written together, one transaction per batch: when QUOTE_BATCH_SIZE are
 * waiting, or QUOTE_FLUSH_MS after the first one, and always before a quote is read or the store
 * closes. A crash can lose at most that window of quote records, never a partial one.
 */
export class QuoteWriteBuffer {
  readonly #writer: QuoteWriter;
  readonly #onWriteError: WriteErrorListener;
  readonly #pending: QuoteRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(writer: QuoteWriter, onWriteError: WriteErrorListener) {
    this.#writer = writer;
    this.#onWriteError = onWriteError;
  }

  add(quote: QuoteRecord): void {
    this.#pending.push(quote);
    if (this.#pending.length >= QUOTE_BATCH_SIZE) void this.flush();
    else this.#timer ??= setTimeout(() => void this.flush(), QUOTE_FLUSH_MS).unref();
  }

  /** Writes what is waiting, after any write already under way; never throws. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#pending.splice(0);
    this.#writing = this.#writing.then(() => (batch.length === 0 ? undefined : this.#write(batch)));
    return this.#writing;
  }

  /**
   * When the batch's transaction fails, each record is tried alone: one that breaks a constraint
   * is dropped and reported, and the rest are kept for a retry when the database itself refused
   * (busy, full, I/O, unreachable), up to a bound.
   */
  async #write(batch: QuoteRecord[]): Promise<void> {
    try {
      await this.#writer.writeBatch(batch);
      return;
    } catch {
      // Fall through to one record at a time, to tell bad records from a refusing database.
    }
    const retry: QuoteRecord[] = [];
    let rejected = 0;
    let lastError: unknown;
    for (const quote of batch) {
      try {
        await this.#writer.writeOne(quote);
      } catch (error) {
        lastError = error;
        if (this.#writer.isConstraintError(error)) rejected += 1;
        else retry.push(quote);
      }
    }
    this.#pending.unshift(...retry);
    const dropped = Math.max(0, this.#pending.length - MAX_PENDING_QUOTES);
    if (dropped > 0) this.#pending.splice(0, dropped);
    this.#onWriteError(lastError, { pending: this.#pending.length, dropped: dropped + rejected });
    if (this.#pending.length > 0) this.#timer ??= setTimeout(() => void this.flush(), QUOTE_RETRY_MS).unref();
  }
}
