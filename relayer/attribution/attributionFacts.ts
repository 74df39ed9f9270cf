/**
 * What the relayer read from the chain itself about a failed order of ours (a mined swap that
 * reverted, or a batch member that was skipped), once a fill, a cancellation and a passed deadline
 * were ruled out. Nothing here comes from the revert data: a taker's wallet code can revert with any
 * bytes at all, the router's own error selectors included.
 */
export type AttributionFacts = Readonly<{
  /**
   * The router refused to settle at the mined block or its parent: its gate copy says paused or past
   * its active window, or the registry has feature 3 paused. Only the operator's pausers and
   * administrator can make this true.
   */
  gateClosed: boolean;
  /**
   * The order's route repriced from the pairs' own reserves (V2 math, no token taxes): at the parent
   * block, and at the state the order met (the last `Sync` of each pair before it in its block, or the
   * parent's reserves). Absent when the route cannot be priced that way (an exact-output order with a SPLIT).
   */
  route?: Readonly<{ minimum: bigint; atParent: bigint; met: bigint }> | undefined;
  /**
   * Some pair of the order's route emitted a `Sync` in its block before it (an earlier transaction, or
   * an earlier batch member): what the market did, read when the route cannot be repriced.
   */
  syncedBefore: boolean;
  /**
   * The order burnt (nearly) all the gas it was given: its whole transaction's limit, for a relay of
   * its own (undefined for a batch member: the receipt has only the batch's total).
   */
  capBurnt: boolean | undefined;
  /** Whether the taker's address held code at the block its relay was accepted in, and at the mined block. */
  takerCode: Readonly<{ whenAccepted: boolean; whenMined: boolean }>;
  /** The taker's Permit2 nonce of this order is spent (not by a fill of this order: those are confirmations). */
  nonceSpent: boolean;
  /** At the parent or the mined block, the taker's sell-token balance, or its allowance to Permit2, was below what the order pulls. */
  fundsShort: boolean;
}>;

/** What the latest block says, for a retry: whether the gate is open, and whether the route fills now. */
export type RetryFacts = Readonly<{
  gateOpen: boolean;
  /** The route repriced at the latest block meets its minimum (undefined: not priceable). */
  fillsNow: boolean | undefined;
  /** The relay was already sent again after a failure of ours (a second mined send): never a third. */
  resentBefore: boolean;
}>;
