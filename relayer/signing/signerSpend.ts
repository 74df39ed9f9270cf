/** The spend cap's window: a rolling day, as the unpaid-gas budgets count theirs. */
export const SPEND_WINDOW_MS = 24 * 3_600_000;

/**
 * One signer's spending against its daily cap, counted where signatures are made. Each nonce counts
 * the worst case (gas limit × max fee + value) of the costliest transaction signed for it, once:
 * a replacement at the same nonce raises that nonce's count, never adds a second one, since only one
 * of them can be mined. The count is an upper bound of what the chain charged; entries older than a
 * day drop out.
 *
 * A new nonce whose cost would pass the cap is refused; a replacement of a nonce already counted is
 * not (the signer finishes what it has: refusing the bump of a stuck swap would strand it).
 */
export class SignerSpend {
  readonly #entries = new Map<number, { cost: bigint; at: number }>();
  /** The cost of the last new nonce refused: the signer counts as exhausted until that much frees up. */
  #refusedCost = 0n;

  constructor(readonly capWei: bigint | undefined) {}

  /** Wei counted within the window ending at `now`. */
  spent(now: number): bigint {
    let total = 0n;
    for (const [nonce, entry] of this.#entries) {
      if (entry.at <= now - SPEND_WINDOW_MS) this.#entries.delete(nonce);
      else total += entry.cost;
    }
    return total;
  }

  /**
   * Whether a transaction of `cost` at `nonce` fits; when it does, it is counted. `always` counts it
   * without the cap's say: a self-transfer at an allocated nonce (a cancel, a gap fill) must go out
   * even past the cap, or every later transaction of the signer waits behind its nonce.
   */
  admit(nonce: number, cost: bigint, now: number, always = false): boolean {
    const previous = this.#entries.get(nonce);
    if (previous !== undefined && previous.at > now - SPEND_WINDOW_MS) {
      if (cost > previous.cost) this.#entries.set(nonce, { cost, at: previous.at });
      return true;
    }
    if (!always && this.capWei !== undefined && this.spent(now) + cost > this.capWei) {
      this.#refusedCost = cost;
      return false;
    }
    this.#refusedCost = 0n;
    this.#entries.set(nonce, { cost, at: now });
    return true;
  }

  /** Past the cap (or too near it for the last new transaction asked): no new relays for this signer. */
  exhausted(now: number): boolean {
    if (this.capWei === undefined) return false;
    const spent = this.spent(now);
    return spent >= this.capWei || spent + this.#refusedCost > this.capWei;
  }
}
