import type { Hex } from "viem";

/**
 * Memoises values that only change from block to block (pool reserves, the registry's router) for
 * the latest block seen, keyed by block hash: a reorg (or a devnet snapshot revert) reuses block
 * numbers with other state. Concurrent quotes at one block share one in-flight read.
 */
export class BlockCache {
  #block: Hex | undefined;
  #entries = new Map<unknown, Promise<unknown>>();

  /** `key` is a string, or an object compared by identity (such as a token set's pool list). */
  get<T>(blockHash: Hex, key: string | object, load: () => Promise<T>): Promise<T> {
    if (blockHash !== this.#block) {
      this.#block = blockHash;
      this.#entries = new Map();
    }
    let entry = this.#entries.get(key) as Promise<T> | undefined;
    if (entry === undefined) {
      entry = load();
      const entries = this.#entries;
      entries.set(key, entry);
      // A failed read must not poison the block: the next quote retries it.
      entry.catch(() => entries.get(key) === entry && entries.delete(key));
    }
    return entry;
  }
}
