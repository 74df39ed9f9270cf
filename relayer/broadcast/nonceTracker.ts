import type { Hex } from "viem";

/**
 * One signer's nonces, kept exact locally so several transactions can be in flight at once. It starts
 * from what the chain and our own records say (whichever is higher: a transaction we signed may not
 * have reached the node before a crash) and hands out each nonce once.
 *
 * `resync` moves the counter when the node says our view was wrong ("nonce too low": something else
 * used the key), and `gaps` lists nonces below our counter that the chain has not used and that no
 * transaction of ours holds; the caller fills them so later transactions are not stuck behind a hole.
 */
export class NonceTracker {
  #next: number;
  readonly #held = new Set<number>();
  /** The latest transaction signed at each held nonce, so a reconciliation can send it again (see nonceReconciler.ts). */
  readonly #signed = new Map<number, Hex>();

  constructor(chainPendingCount: number, highestSigned: number | undefined) {
    this.#next = Math.max(chainPendingCount, highestSigned === undefined ? 0 : highestSigned + 1);
  }

  /** The next unused nonce; it stays held until released or mined. */
  allocate(): number {
    const nonce = this.#next++;
    this.#held.add(nonce);
    return nonce;
  }

  /** Marks a nonce as held by a transaction we know (e.g. reloaded after a restart). */
  hold(nonce: number): void {
    this.#held.add(nonce);
    if (nonce >= this.#next) this.#next = nonce + 1;
  }

  /** The chain used this nonce (our transaction, or anything else): it is no longer ours to track. */
  release(nonce: number): void {
    this.#held.delete(nonce);
    this.#signed.delete(nonce);
  }

  /** Whether a transaction of ours holds `nonce` (allocated, or reloaded, and not yet mined or released). */
  holds(nonce: number): boolean {
    return this.#held.has(nonce);
  }

  /** Remembers `raw` as the latest transaction signed (and stored) at a held nonce; ignored once the nonce is let go. */
  signed(nonce: number, raw: Hex): void {
    if (this.#held.has(nonce)) this.#signed.set(nonce, raw);
  }

  /** The latest transaction signed at a held nonce, if this process signed one. */
  signedAt(nonce: number): Hex | undefined {
    return this.#signed.get(nonce);
  }

  /**
   * A nonce allocated for a transaction that was never recorded nor sent (the store refused or failed
   * the write): when it is the last one handed out, as it is inside the signer's lock, the next
   * allocation hands it out again, so no hole opens (on an automining node a hole makes every later
   * transaction of the signer fail as "nonce too high"). Otherwise it is released, a gap to fill.
   */
  giveBack(nonce: number): void {
    this.#held.delete(nonce);
    this.#signed.delete(nonce);
    if (nonce === this.#next - 1) this.#next = nonce;
  }

  /** The node counts `chainPendingCount` transactions: never hand out a nonce below that. */
  resync(chainPendingCount: number): void {
    if (chainPendingCount > this.#next) this.#next = chainPendingCount;
  }

  /**
   * Lets go of held nonces the chain has mined (below `chainMinedCount`): whatever used them, they
   * occupy no place any more. A relay another relayer took over is never finished here, and without
   * this its nonce would count against the signer's pending limit for good. Returns how many went.
   */
  settle(chainMinedCount: number): number {
    let settled = 0;
    for (const nonce of this.#held) {
      if (nonce < chainMinedCount) {
        this.#held.delete(nonce);
        this.#signed.delete(nonce);
        settled++;
      }
    }
    return settled;
  }

  /** Nonces from the chain's mined count up to our counter that nothing of ours holds. */
  gaps(chainMinedCount: number): number[] {
    const gaps: number[] = [];
    for (let nonce = chainMinedCount; nonce < this.#next; nonce++) if (!this.#held.has(nonce)) gaps.push(nonce);
    return gaps;
  }

  get next(): number {
    return this.#next;
  }

  /** Transactions of ours not yet mined. */
  get inFlight(): number {
    return this.#held.size;
  }
}
