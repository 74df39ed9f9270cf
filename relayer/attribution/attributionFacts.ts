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
   * The order's route repriced from its venues' own state (no token taxes): at the parent block, and
   * at the state the order met. V2 pairs: reserves, with each pair's last `Sync` before the order in its
   * block; V3 pools: the pool's price, liquidity and ticks, with its `Swap`, `Mint` and `Burn` events
   * before the order applied; V4 pools: the same read through StateView, with the PoolManager's `Swap`,
   * `ModifyLiquidity` and `ProtocolFeeUpdated` events of that pool id before the order applied; propAMMs: `getAmountOut` at the parent block, and for the state met the
   * lower of the parent's and the mined block's end (the parent's alone when the propAMM logged in the
   * block only after the order). Absent when the route cannot be priced that way
   * (an exact-output order with a SPLIT, a hop the router would refuse, a V3 or V4 swap past the ticks read,
   * a V4 pool in a PoolManager the relayer has no StateView for,
   * a propAMM that would not quote or that logged anything in the block before the order).
   */
  route?:
    Readonly<{ minimum: bigint; atParent: bigint; met: bigint }> | undefined;
  /**
   * Some venue of the order's route traded or changed in its block before it (a V2 pair's `Sync`, a V3
   * pool's `Swap`/`Mint`/`Burn`, a V4 pool's `Swap`/`ModifyLiquidity`/`ProtocolFeeUpdated`, any log of a propAMM; an earlier transaction, or an earlier batch
   * member): what the market did, read when the route cannot be repriced.
   */
  tradedBefore: boolean;
  /**
   * The route names a hop its router does not reach at the parent block or the mined block's end (a V3 venue index it lacks, a
   * pool its factory does not have, a V4 pool not initialised in its PoolManager or no PoolManager at all, V4 hops of an exact-output order on a router built before exact output over V4, a propAMM its allowlist does not hold for those tokens), or the
   * order's calldata or actions no longer decode: what the API quoted, or the hand-off accepted, or the
   * operator's administrators changed since. The operator's side, whoever else could be suspected.
   */
  routeRefused: boolean;
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
  /**
   * At the parent or the mined block, the taker-side transfers simulated (the token permit it carries,
   * then Permit2's pull of what the order takes from the taker: see takerPull.ts) are refused: its
   * balance, its allowance, its permit or its token refusing its account (false when the calldata
   * does not decode: no fact).
   */
  takerPullRefused: boolean;
}>;

/** What the latest block says, for a retry: whether the gate is open, and whether the route fills now. */
export type RetryFacts = Readonly<{
  gateOpen: boolean;
  /** The route repriced at the latest block meets its minimum (undefined: not priceable). */
  fillsNow: boolean | undefined;
  /** The relay was already sent again after a failure of ours (a second mined send): never a third. */
  resentBefore: boolean;
}>;
