/**
 * A gasless relay's lifecycle, written down once: the API, the relayer and clients all ask this
 * module which statuses exist, which are final, and which moves are allowed.
 *
 * - `accepted`: validated by the API and stored by the relayer; nothing broadcast yet.
 * - `submitted`: at least one transaction was broadcast; `tx_hash` is the latest attempt.
 * - `confirmed`: the swap was mined successfully (by us or, when someone copied it, by them) and has
 *   the configured number of confirmations.
 * - `failed`: broadcast, but the swap reverted or could not be confirmed.
 * - `expired`: the quote's deadline passed before the swap was mined.
 * - `rejected`: it failed a check before any broadcast (for example the Permit2 nonce was spent).
 * - `cancelled`: the integrator cancelled it (`POST /gasless/cancel/{relay_id}`) and the order did not
 *   fill: it was never broadcast, or a zero-value self-transfer at its nonce was mined instead. A relay
 *   whose cancellation was asked while its swap was pending stays `submitted` until the chain decides.
 */
export const relayStatuses = ["accepted", "submitted", "confirmed", "failed", "expired", "rejected", "cancelled"] as const;
export type RelayStatus = (typeof relayStatuses)[number];

export const finalRelayStatuses: ReadonlySet<RelayStatus> = new Set(["confirmed", "failed", "expired", "rejected", "cancelled"]);

/** Every allowed move, `from → to`. A final status has none. */
export const relayTransitions: Readonly<Record<RelayStatus, readonly RelayStatus[]>> = {
  // Someone else may fill the order before we broadcast: that is a confirmation without a submission.
  accepted: ["submitted", "confirmed", "rejected", "expired", "cancelled"],
  // A cancellation of a broadcast relay ends `cancelled` only once the chain has decided.
  submitted: ["confirmed", "failed", "expired", "cancelled"],
  confirmed: [],
  failed: [],
  expired: [],
  rejected: [],
  cancelled: [],
};

export function isFinalRelayStatus(status: RelayStatus): boolean {
  return finalRelayStatuses.has(status);
}

export function canMoveRelay(from: RelayStatus, to: RelayStatus): boolean {
  return relayTransitions[from].includes(to);
}

/** Machine-readable reasons a relay ended `failed`, `expired` or `rejected`. */
export const relayReasons = [
  /** The swap transaction was mined and reverted, and nobody else filled the order. */
  "reverted",
  /** The quote's deadline passed before the swap was mined. */
  "deadline_passed",
  /** The taker's Permit2 nonce was spent by something other than this order's fill. */
  "nonce_used",
  /** The swap no longer simulates (balances, allowance or pool state changed). */
  "simulation_failed",
  /** The relayer's signers could not pay for the transaction. */
  "insufficient_funds",
  /**
   * The deadline passed while the gas limit's cost at the network's fees stayed above the signed
   * relayer fee (beyond RELAYER_MAX_LOSS_BPS): the relayer would have paid for the swap.
   */
  "fee_below_cost",
  /**
   * A pool of its route moved past the order's minimum output (another party's trade, in its block
   * or before it) and it is not sent again: repriced at the latest block it would still miss, or it
   * was already sent once more. Counted against nobody.
   */
  "market_moved",
] as const;
export type RelayReason = (typeof relayReasons)[number];
