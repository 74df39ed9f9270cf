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
 * closes. A crash can lose at most that window of quote records, never a partial one; and never a
 * record added with `addDurable` that was answered: `addDurable` resolves once its record is
 * committed (group commit: it starts a write at once, and every record waiting by then shares it).
 */
export class QuoteWriteBuffer {
  readonly #writer: QuoteWriter;
  readonly #onWriteError: WriteErrorListener;
  readonly #pending: QuoteRecord[] = [];
  /** Records the last attempt to write them failed (kept for a retry, or dropped). */
  readonly #unwritten = new WeakMap<QuoteRecord, unknown>();
  #lastError: unknown;
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

  /**
   * Adds `quote` and resolves once it is committed; rejects with the database's error when it could
   * not be (the record is then given up: its quote is never answered, so nothing relies on it).
   */
  async addDurable(quote: QuoteRecord): Promise<void> {
    this.#pending.push(quote);
    await this.flush();
    const index = this.#pending.indexOf(quote);
    if (index === -1 && !this.#unwritten.has(quote)) return;
    // Not written: its own attempt failed, or an earlier batch's did and it was never tried.
    if (index !== -1) this.#pending.splice(index, 1);
    throw this.#unwritten.get(quote) ?? this.#lastError;
  }

  /**
   * Writes what is waiting, after any write already under way, in batches of QUOTE_BATCH_SIZE
   * taken when the write starts (so records added meanwhile share it); never throws.
   */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#writing = this.#writing.then(async () => {
      // Stops at a failed batch: its records wait for the retry timer instead of spinning here.
      while (this.#pending.length > 0 && (await this.#write(this.#pending.splice(0, QUOTE_BATCH_SIZE))));
    });
    return this.#writing;
  }

  /**
   * When the batch's transaction fails, each record is tried alone: one that breaks a constraint
   * is dropped and reported, and the rest are kept for a retry when the database itself refused
   * (busy, full, I/O, unreachable), up to a bound. True when the whole batch was written.
   */
  async #write(batch: QuoteRecord[]): Promise<boolean> {
    try {
      await this.#writer.writeBatch(batch);
      for (const quote of batch) this.#unwritten.delete(quote);
      return true;
    } catch {
      // Fall through to one record at a time, to tell bad records from a refusing database.
    }
    const retry: QuoteRecord[] = [];
    let rejected = 0;
    let lastError: unknown;
    for (const quote of batch) {
      try {
        await this.#writer.writeOne(quote);
        this.#unwritten.delete(quote);
      } catch (error) {
        lastError = error;
        this.#lastError = error;
        this.#unwritten.set(quote, error);
        if (this.#writer.isConstraintError(error)) rejected += 1;
        else retry.push(quote);
      }
    }
    this.#pending.unshift(...retry);
    const dropped = Math.max(0, this.#pending.length - MAX_PENDING_QUOTES);
    for (const quote of this.#pending.splice(0, dropped)) this.#unwritten.set(quote, lastError);
    this.#onWriteError(lastError, { pending: this.#pending.length, dropped: dropped + rejected });
    if (this.#pending.length > 0) this.#timer ??= setTimeout(() => void this.flush(), QUOTE_RETRY_MS).unref();
    return retry.length === 0;
  }
}
