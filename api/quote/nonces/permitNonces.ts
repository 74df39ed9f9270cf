import type { Address } from "viem";

/** Takers tracked before expired reservations are swept. */
const SWEEP_THRESHOLD = 10_000;
const BITS = 256;

/**
 * Chooses Permit2 unordered nonces for quotes. A nonce in a bitmap word the taker has already used
 * costs about 20,000 gas less than one in a fresh word, so quotes fill the taker's lowest word that
 * has room. Bits used on chain are never chosen; bits held by the taker's other open quotes are
 * avoided while any other bit is free. When every free bit is held (a taker polling for hundreds of
 * quotes), the bit of the quote that expires first is reused: at most one of the two can fill, and
 * quotes are meant to be refreshed rather than kept. An allocator made `onlyFree` (several API
 * instances, whose shared reservations would refuse a held bit anyway) finds nothing in a word with
 * no free bit, and the caller moves on to the next word instead of asking the database about bits it
 * knows are taken.
 */
export class PermitNonceAllocator {
  /**
   * chain:taker → word → each bit's reservation expiry (ms, 0 when free). Numbers, not bigints: a
   * taker polling quotes scans every bit of a full word per quote, and bigint arithmetic there
   * allocated more than the rest of the quote.
   */
  readonly #reserved = new Map<string, Map<bigint, Float64Array>>();

  constructor(private readonly options: { onlyFree?: boolean } = {}) {}

  /**
   * A nonce in word `word` given its on-chain `bitmap`, reserved until `expiresAt` (ms); undefined
   * when every bit of the word is used on chain (or, `onlyFree`, used or held). `freshWord` tells the
   * gas model the word is zero.
   */
  allocate(
    chainId: number,
    taker: Address,
    word: bigint,
    bitmap: bigint,
    now: number,
    expiresAt: number,
    /** Only bits of these 32-bit slices of the word (slice s: bits 32s to 32s+31); all when absent. */
    slices?: readonly boolean[],
  ): { nonce: bigint; freshWord: boolean } | undefined {
    if (this.#reserved.size > SWEEP_THRESHOLD) this.#sweep(now);
    const key = `${chainId}:${taker.toLowerCase()}`;
    const bit = this.#choose(key, word, bitmap, now, slices);
    if (bit === undefined) return undefined;
    let words = this.#reserved.get(key);
    if (words === undefined) this.#reserved.set(key, (words = new Map()));
    let reservations = words.get(word);
    if (reservations === undefined) words.set(word, (reservations = new Float64Array(BITS)));
    reservations[bit] = expiresAt;
    return { nonce: (word << 8n) | BigInt(bit), freshWord: bitmap === 0n };
  }

  /**
   * The nonce `allocate` would give now, reserving nothing: what an indicative price (GET /price)
   * prices its calldata and gas with, so it matches the firm quote without holding a bit.
   */
  peek(chainId: number, taker: Address, word: bigint, bitmap: bigint, now: number): { nonce: bigint; freshWord: boolean } | undefined {
    const bit = this.#choose(`${chainId}:${taker.toLowerCase()}`, word, bitmap, now);
    return bit === undefined ? undefined : { nonce: (word << 8n) | BigInt(bit), freshWord: bitmap === 0n };
  }

  /**
   * When a bit of `word` within `slices` (not used on chain) frees up: `now` or earlier when one is
   * free, Infinity when every such bit is used on chain. Lets a caller skip a full word until then.
   */
  freeAt(chainId: number, taker: Address, word: bigint, bitmap: bigint, slices: readonly boolean[]): number {
    const until = this.#reserved.get(`${chainId}:${taker.toLowerCase()}`)?.get(word);
    const used = usedBits(bitmap);
    let soonest = Number.POSITIVE_INFINITY;
    for (let bit = 0; bit < BITS; bit++) {
      if (!slices[bit >>> 5] || (used[bit >>> 5]! >>> (bit & 31)) & 1) continue;
      soonest = Math.min(soonest, until === undefined ? 0 : until[bit]!);
    }
    return soonest;
  }

  /** The bit to hand out in `word` (within `slices`): the lowest free one, else (unless onlyFree) the held one that expires first. */
  #choose(key: string, word: bigint, bitmap: bigint, now: number, slices?: readonly boolean[]): number | undefined {
    const until = this.#reserved.get(key)?.get(word);
    const used = usedBits(bitmap);
    let fallback = -1;
    for (let bit = 0; bit < BITS; bit++) {
      if (slices !== undefined && !slices[bit >>> 5]) {
        bit |= 31; // the rest of this slice
        continue;
      }
      if ((used[bit >>> 5]! >>> (bit & 31)) & 1) continue;
      const held = until === undefined ? 0 : until[bit]!;
      if (held <= now) return bit;
      if (this.options.onlyFree) continue;
      if (fallback === -1 || held < until![fallback]!) fallback = bit;
    }
    return fallback === -1 ? undefined : fallback;
  }

  #sweep(now: number): void {
    for (const [key, words] of this.#reserved) {
      for (const [word, until] of words) if (until.every((expiry) => expiry <= now)) words.delete(word);
      if (words.size === 0) this.#reserved.delete(key);
    }
  }
}

/** The bitmap's 256 bits as eight 32-bit numbers, lowest first. */
function usedBits(bitmap: bigint): Uint32Array {
  const used = new Uint32Array(BITS / 32);
  if (bitmap === 0n) return used;
  for (let index = 0; index < used.length; index++) used[index] = Number(BigInt.asUintN(32, bitmap >> BigInt(index * 32)));
  return used;
}
