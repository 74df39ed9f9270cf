import type { Address } from "viem";

/** Takers tracked before expired reservations are swept. */
const SWEEP_THRESHOLD = 10_000;

/**
 * Chooses Permit2 unordered nonces for quotes. A nonce in a bitmap word the taker has already used
 * costs about 20,000 gas less than one in a fresh word, so quotes fill the taker's lowest word that
 * has room. Bits used on chain are never chosen; bits held by the taker's other open quotes are
 * avoided while any other bit is free. When every free bit is held (a taker polling for hundreds of
 * quotes), the bit of the quote that expires first is reused: at most one of the two can fill, and
 * quotes are meant to be refreshed rather than kept.
 */
export class PermitNonceAllocator {
  /** chain:taker → nonce → reservation expiry (ms). */
  readonly #reserved = new Map<string, Map<bigint, number>>();

  /**
   * A nonce in word `word` given its on-chain `bitmap`, reserved until `expiresAt` (ms); undefined
   * when every bit of the word is used on chain. `freshWord` tells the gas model the word is zero.
   */
  allocate(chainId: number, taker: Address, word: bigint, bitmap: bigint, now: number, expiresAt: number): { nonce: bigint; freshWord: boolean } | undefined {
    if (this.#reserved.size > SWEEP_THRESHOLD) this.#sweep(now);
    const key = `${chainId}:${taker.toLowerCase()}`;
    const reserved = this.#reserved.get(key) ?? new Map<bigint, number>();
    let fallback: { nonce: bigint; until: number } | undefined;
    for (let bit = 0n; bit < 256n; bit++) {
      if ((bitmap >> bit) & 1n) continue;
      const nonce = (word << 8n) | bit;
      const until = reserved.get(nonce);
      if (until === undefined || until <= now) {
        reserved.set(nonce, expiresAt);
        this.#reserved.set(key, reserved);
        return { nonce, freshWord: bitmap === 0n };
      }
      if (fallback === undefined || until < fallback.until) fallback = { nonce, until };
    }
    if (fallback === undefined) return undefined;
    reserved.set(fallback.nonce, expiresAt);
    return { nonce: fallback.nonce, freshWord: bitmap === 0n };
  }

  #sweep(now: number): void {
    for (const [key, reserved] of this.#reserved) {
      for (const [nonce, until] of reserved) if (until <= now) reserved.delete(nonce);
      if (reserved.size === 0) this.#reserved.delete(key);
    }
  }
}
