import type { Address, Hex } from "viem";

/**
 * Who made the operator pay gas that no fee paid for, decided from facts the relayer checks itself
 * (never from revert bytes a taker's code chooses):
 * - `taker`: its wallet, its token, its balance or allowance, its signature;
 * - `integrator`: its own requests, such as cancelling a swap that was already broadcast; and a failed
 *   order no fact attributes (a route that cannot be repriced, nothing traded before it: decideCause
 *   rule 7), which its budget alone bounds, never its taker's;
 * - `market`: the pool moved within the block; nobody did anything wrong, it counts against nobody;
 * - `operator`: a pause, a migration, our own fee or nonce mistakes; metrics and logs only.
 */
export type UnpaidGasCause = "taker" | "integrator" | "market" | "operator";
export const UNPAID_GAS_CAUSES: readonly UnpaidGasCause[] = ["taker", "integrator", "market", "operator"];

/**
 * What the operator paid for:
 * - `reverted_swap`: a relayed swap of its own mined and reverted (or a whole batch did);
 * - `batch_skip`: a batch member's order was skipped (its gas is its cap share, see `batchSkipGas`);
 * - `cancel_replacement`: the self-transfer that replaced a broadcast swap the integrator cancelled;
 * - `nonce_release`: the self-transfer that freed a nonce (the deadline passed with the swap pending);
 * - `failed_retry`: a swap sent again alone after its batch did not settle it, which then failed on chain.
 */
export type UnpaidGasKind = "reverted_swap" | "batch_skip" | "cancel_replacement" | "nonce_release" | "failed_retry";
export const UNPAID_GAS_KINDS: readonly UnpaidGasKind[] = ["reverted_swap", "batch_skip", "cancel_replacement", "nonce_release", "failed_retry"];

/**
 * One transaction's gas the operator paid for one relay with no fee. Written once per (txHash,
 * relayId, kind): recording it again (a crash before the relay's update, a second relayer reading the
 * same receipt) changes nothing, so nothing is counted twice.
 */
export type UnpaidGasEntry = {
  relayId: string;
  taker: Address;
  integratorId: number;
  cause: UnpaidGasCause;
  kind: UnpaidGasKind;
  /** The gas this relay is charged: the receipt's `gasUsed`, or a batch member's share of it. */
  gasUsed: bigint;
  /** The effective price paid per gas (the receipt's `effectiveGasPrice`), in wei. */
  gasPrice: bigint;
  txHash: Hex;
  at: Date;
  /** Why, for people: the decoded reason, the facts checked. */
  detail: string;
};

/**
 * The causes a budget counts: a taker's budget counts what it caused (`taker`); an integrator's counts
 * what its takers and itself caused (`taker`, `integrator`). `market` and `operator` count against nobody.
 */
export const TAKER_BUDGET_CAUSES: readonly UnpaidGasCause[] = ["taker"];
export const INTEGRATOR_BUDGET_CAUSES: readonly UnpaidGasCause[] = ["taker", "integrator"];

/** Whose budget: one taker (any integrator), or one integrator (all its keys and takers). */
export type UnpaidGasSubject = { kind: "taker"; taker: Address } | { kind: "integrator"; integratorId: number };

/** Gas charged to a taker's and to an integrator's budget since a time (cleared charges left out). */
export type UnpaidGasCharged = { taker: bigint; integrator: bigint };

/** The ledger summed by cause and kind (for metrics, all time; for an integrator's usage, since a time). */
export type UnpaidGasTotal = {
  cause: UnpaidGasCause;
  kind: UnpaidGasKind;
  entries: number;
  gasUsed: bigint;
  /** gas × price summed, in wei; a float (SQLite has no exact decimal sum), which metrics are anyway. */
  weiPaid: number;
};

/** A taker or an integrator with gas charged to its budget in the window: the operator's view. */
export type UnpaidGasTally = { kind: "taker" | "integrator"; subject: string; gasUsed: bigint; entries: number; lastAt: Date };

/** The wei an entry cost the operator. */
export function unpaidWei(entry: Pick<UnpaidGasEntry, "gasUsed" | "gasPrice">): bigint {
  return entry.gasUsed * entry.gasPrice;
}
