import { randomBytes, randomUUID } from "node:crypto";
import type { Address } from "viem";
import type { PermitNonceAllocator } from "./permitNonces";

/** A word of 256 Permit2 nonces is leased in slices of 32 bits (slice s: bits 32s to 32s+31). */
export const SLICES_PER_WORD = 8;
/** Dense nonce words (cheap to fill) leased a slice at a time, before a taker who used them all gets random words. */
export const DENSE_NONCE_WORDS = 4n;
/** How long past the expiry of the quote that claims it a range stays this instance's (chain time). */
export const RANGE_LEASE_MS = 60_000;
/** How long a slice another instance holds is not asked for again (chain time). */
const REFUSED_RETRY_MS = 10_000;
/** Allocations between two sweeps of takers whose leases all ended (a taker never seen again is forgotten). */
const SWEEP_EVERY = 10_000;

/**
 * Where instances lease nonce ranges: a row per (chain, taker, word, slice) naming its holder and
 * until when. One call claims several slices of one word in one round trip.
 */
export interface NonceRangeLeases {
  /**
   * Claims for `holder`, until `untilMs`, each of `slices` that no one holds, whose lease ended before
   * `nowMs`, or that `holder` already holds (its lease is then extended, never shortened); resolves
   * with the slices granted.
   */
  claim(chainId: number, taker: string, word: bigint, slices: readonly number[], holder: string, untilMs: number, nowMs: number): Promise<number[]>;
  close(): Promise<void>;
}

type Allocated = { nonce: bigint; freshWord: boolean };

/** This instance's ranges in one word of one taker: each slice's lease end (0: not held), and refusals. */
type HeldWord = { until: Float64Array; refusedUntil: Float64Array; fullUntil: number };

/**
 * Permit2 nonces for several API instances on one database, without a round trip per quote. An
 * instance leases ranges (32-bit slices of a taker's nonce words) and allocates inside them from
 * memory; another instance never allocates in a range this one holds. A quote is only issued from a
 * range whose lease outlasts the quote's expiry, and a lease is taken over only once it ended
 * (`until < now`), so every quote an instance issued from a range has expired, its Permit2
 * deadline passed, before anyone else hands out a nonce of that range again. A crashed or restarted
 * instance (a new holder name) loses its ranges until their leases end: their unused nonces are
 * skipped for that time, never handed out while one of its quotes could still fill.
 *
 * Dense words are leased one slice at a time, so two instances quoting one taker both stay in its
 * cheap words; random words (a taker who holds every dense bit) are leased whole.
 */
export class NonceRanges {
  /** This process's name on its leases: a restarted process is a new holder. */
  readonly holder = randomUUID();
  /** chain:taker → word → this instance's slices. */
  readonly #held = new Map<string, Map<bigint, HeldWord>>();
  /** chain:taker → the claim under way: one at a time per taker, the others wait and use what it got. */
  readonly #claiming = new Map<string, Promise<unknown>>();
  #allocations = 0;

  constructor(
    private readonly leases: NonceRangeLeases,
    private readonly allocator: PermitNonceAllocator,
  ) {}

  /**
   * A nonce of `taker` for a quote issued at `nowMs` (chain time) that expires at `expiresMs`: from a
   * range this instance holds if one has a free bit, else from a range claimed now (a dense word's
   * slice first, then a random word). `bitmapOf` reads the taker's on-chain nonce word.
   */
  async allocate(
    chainId: number,
    taker: Address,
    nowMs: number,
    expiresMs: number,
    bitmapOf: (word: bigint) => Promise<bigint>,
  ): Promise<{ nonce: bigint; freshWord: boolean }> {
    const key = `${chainId}:${taker.toLowerCase()}`;
    if (++this.#allocations % SWEEP_EVERY === 0) this.#sweep(nowMs);
    for (;;) {
      const held = await this.#fromHeld(chainId, taker, key, nowMs, expiresMs, bitmapOf);
      if (held !== undefined) return held;
      const underWay = this.#claiming.get(key);
      if (underWay === undefined) break;
      // Another quote of this taker is claiming: use what it gets rather than claiming beside it.
      await underWay.catch(() => undefined);
    }
    const claim = this.#claim(chainId, taker, key, nowMs, expiresMs, bitmapOf);
    this.#claiming.set(key, claim);
    try {
      return await claim;
    } finally {
      this.#claiming.delete(key);
    }
  }

  /** Leases this instance holds for `taker`, by word (for tests and metrics). */
  heldSlices(chainId: number, taker: Address, nowMs: number): { word: bigint; slice: number }[] {
    const held: { word: bigint; slice: number }[] = [];
    for (const [word, state] of this.#held.get(`${chainId}:${taker.toLowerCase()}`) ?? []) {
      state.until.forEach((until, slice) => (until >= nowMs ? held.push({ word, slice }) : undefined));
    }
    return held;
  }

  #sweep(nowMs: number): void {
    for (const [key, words] of this.#held) {
      for (const [word, state] of words) if (state.until.every((until) => until < nowMs)) words.delete(word);
      if (words.size === 0) this.#held.delete(key);
    }
  }

  /** A nonce from a held range usable for `expiresMs`, lowest word first; no round trip. */
  async #fromHeld(chainId: number, taker: Address, key: string, nowMs: number, expiresMs: number, bitmapOf: (word: bigint) => Promise<bigint>) {
    const words = this.#held.get(key);
    if (words === undefined) return undefined;
    const candidates: bigint[] = [];
    for (const [word, state] of words) {
      if (state.until.every((until) => until < nowMs)) words.delete(word);
      else if (state.fullUntil <= nowMs && state.until.some((until) => until >= expiresMs)) candidates.push(word);
    }
    if (words.size === 0) this.#held.delete(key);
    candidates.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const word of candidates) {
      const bitmap = await bitmapOf(word);
      const state = words.get(word);
      if (state === undefined) continue;
      const usable = Array.from(state.until, (until) => until >= expiresMs);
      const allocated = this.allocator.allocate(chainId, taker, word, bitmap, nowMs, expiresMs, usable);
      if (allocated !== undefined) return allocated;
      state.fullUntil = this.allocator.freeAt(chainId, taker, word, bitmap, usable);
    }
    return undefined;
  }

  /** Claims a slice of the lowest dense word that has one to give, else a whole random word, and allocates in it. */
  async #claim(chainId: number, taker: Address, key: string, nowMs: number, expiresMs: number, bitmapOf: (word: bigint) => Promise<bigint>) {
    for (let word = 0n; word < DENSE_NONCE_WORDS; word++) {
      const allocated = await this.#claimIn(chainId, taker, key, word, false, nowMs, expiresMs, bitmapOf);
      if (allocated !== undefined) return allocated;
    }
    for (;;) {
      const word = DENSE_NONCE_WORDS + BigInt(`0x${randomBytes(8).toString("hex")}`);
      const allocated = await this.#claimIn(chainId, taker, key, word, true, nowMs, expiresMs, bitmapOf);
      if (allocated !== undefined) return allocated;
    }
  }

  async #claimIn(
    chainId: number,
    taker: Address,
    key: string,
    word: bigint,
    whole: boolean,
    nowMs: number,
    expiresMs: number,
    bitmapOf: (word: bigint) => Promise<bigint>,
  ): Promise<Allocated | undefined> {
    const bitmap = await bitmapOf(word);
    let words = this.#held.get(key);
    const state = words?.get(word) ?? { until: new Float64Array(SLICES_PER_WORD), refusedUntil: new Float64Array(SLICES_PER_WORD), fullUntil: 0 };
    // Slices worth asking for: some bit not used on chain, not held by another instance as far as we
    // know, and not already ours for long enough (one of ours that is too short is extended).
    const wanted: number[] = [];
    for (let slice = 0; slice < SLICES_PER_WORD; slice++) {
      const usedOnChain = BigInt.asUintN(32, bitmap >> BigInt(slice * 32)) === 0xffffffffn;
      if (usedOnChain || state.refusedUntil[slice]! > nowMs || state.until[slice]! >= expiresMs) continue;
      // A slice of ours whose bits are all held by open quotes gains nothing from a longer lease.
      if (state.until[slice]! >= nowMs && this.allocator.freeAt(chainId, taker, word, bitmap, sliceOnly(slice)) > nowMs) continue;
      wanted.push(slice);
      if (!whole) break;
    }
    if (wanted.length === 0) return undefined;
    const untilMs = expiresMs + RANGE_LEASE_MS;
    const granted = new Set(await this.leases.claim(chainId, taker.toLowerCase(), word, wanted, this.holder, untilMs, nowMs));
    for (const slice of wanted) {
      if (granted.has(slice)) state.until[slice] = Math.max(state.until[slice]!, untilMs);
      else {
        state.until[slice] = 0;
        state.refusedUntil[slice] = nowMs + REFUSED_RETRY_MS;
      }
    }
    state.fullUntil = 0;
    if (words === undefined) this.#held.set(key, (words = new Map()));
    words.set(word, state);
    if (granted.size === 0) return this.#claimIn(chainId, taker, key, word, whole, nowMs, expiresMs, bitmapOf);
    const usable = Array.from(state.until, (until) => until >= expiresMs);
    return this.allocator.allocate(chainId, taker, word, bitmap, nowMs, expiresMs, usable);
  }
}

function sliceOnly(slice: number): boolean[] {
  return Array.from({ length: SLICES_PER_WORD }, (_, index) => index === slice);
}
