import type { Address } from "viem";
import type { RouteHopAction } from "../../../sdk";
import type { PricedPool } from "./pricedPool";

/**
 * The part of a path's output beyond an input already taken, as `p·d / (1 + q·d)` for `d` more input
 * (integer rounding ignored): `p` is the marginal price there, fee included, and `q` how fast it
 * falls. A V2 pair's curve is exactly this shape for any input; a V3 pool's is within its current
 * tick range (constant product over virtual reserves), so the split allotment re-reads it at the
 * allotted amount. Curves compose along a path (splitRoute.ts `composeCurve`).
 */
export type HopCurve = Readonly<{ p: number; q: number }>;

/** The route action that executes one hop through a pool (SWAP_V2, SWAP_V3 or SWAP_PROPAMM; sdk/calldata/routeActions.ts). */
export type HopAction = RouteHopAction;

/**
 * Everything route search, splitting, gas estimation and the response need of one venue type. One
 * adapter is registered per `kind` (venues/venueAdapters.ts); a pool's `source` names its venue, so
 * Uniswap V3 and a V3 fork share the V3 adapter, and every V2 fork shares the V2 one. Amounts are
 * exact (what the router will receive on chain at this state); curves and prices are for choosing.
 */
export interface VenueAdapter<P extends PricedPool = PricedPool> {
  /** The venue type its pools carry as `kind` ("v2", "v3", "propamm"). */
  readonly kind: string;
  /** Whether its pools can be priced backwards (exact output): propAMMs are exact-in only. */
  readonly exactOutput: boolean;
  /** Whether this pool of a venue that prices backwards may be priced so today (V4: whether its routers run its hops backwards); undefined: yes. */
  backwards?(pool: P): boolean;
  /**
   * Whether, in an exact-output path (or SPLIT leg), its hops may only come before any other venue's:
   * the routers run such a venue's hops backwards together, paid from the order's input (V4: the
   * leading V4 hops in one unlock), so another venue's hop cannot pay one of them. Undefined: anywhere.
   */
  readonly exactOutputFirst?: boolean;
  /** Whether `curve(pool, tokenIn, 0n)` is the pool's output curve for every input (V2): a split over such pools needs no refinement. */
  readonly exactCurve: boolean;
  /** What `amountIn` of `tokenIn` buys through `pool`; 0n when the pool cannot take it (no hop). */
  amountOut(pool: P, tokenIn: Address, amountIn: bigint): bigint;
  /** The least input that buys `amountOut` of the other token, as the router's backward pass computes it; undefined when it cannot. */
  amountIn(pool: P, tokenIn: Address, amountOut: bigint): bigint | undefined;
  /** The marginal price at zero input, fee included, as an exact ratio (out per in); undefined when the pool has no price. */
  spotPrice(pool: P, tokenIn: Address): readonly [numerator: bigint, denominator: bigint] | undefined;
  /** The local output curve beyond `amountIn` already sold through the pool (see HopCurve); undefined when it cannot take more. */
  curve(pool: P, tokenIn: Address, amountIn: bigint): HopCurve | undefined;
  /**
   * Execution gas of one hop selling `amountIn` (V2: constant, plus the oracle's first write; V3: a
   * base plus each tick crossed; propAMM: its measured p90 plus a margin). Candidates are ranked by
   * output net of this, priced in the buy token.
   */
  hopGas(pool: P, tokenIn: Address, amountIn: bigint): number;
  /**
   * What a hop saves of `hopGas` when it directly follows a hop of this venue in a route's only path,
   * where the routers run the two together (V4: inside one unlock). Undefined: nothing shared.
   */
  readonly runHopSaving?: number;
  /** The route action of a hop through `pool` into `tokenOut`. */
  action(pool: P, tokenOut: Address): HopAction;
  /** The pool's fee in hundredths of a bip (V2's 30 bps: 3000; a propAMM: 0), as leg names state it. */
  feePips(pool: P): number;
}
