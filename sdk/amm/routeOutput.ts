import type { Address } from "viem";
import { isHopAction, splitAmounts, type PropAmmHop, type RouteAction, type RouteHopAction, type V3Hop, type V4Hop } from "../calldata/routeActions";
import { getAmountOut } from "./v2Math";
import { quoteConcentratedExactInput } from "./v3/swapSimulator";
import type { V3PoolState } from "./v3/v3PoolState";

/** A V2 pair's state: which token is token0, and both reserves. */
export type PairReserves = { token0: Address; reserve0: bigint; reserve1: bigint };

/** A swap hop of a route and the token it sells (the running token where it runs). */
export type RouteHop = Readonly<{ hop: RouteHopAction; tokenIn: Address }>;

/**
 * Where a route's venues' states come from, at one point of the chain. Each answers undefined when it
 * does not know (a pair or pool not read, a propAMM that would not quote): the route is then not priced.
 */
export type RouteVenueStates = Readonly<{
  /** A V2 pair's reserves. */
  v2Pair: (pair: Address) => PairReserves | undefined;
  /** The pool a V3 hop from `tokenIn` swaps in (the router computes it from its venue table). */
  v3Pool?: (hop: V3Hop, tokenIn: Address) => V3PoolState | undefined;
  /** The V4 pool a V4 hop from `tokenIn` swaps in (its key: the sorted currencies, fee, tick spacing and hooks). */
  v4Pool?: (hop: V4Hop, tokenIn: Address) => V3PoolState | undefined;
  /** A propAMM's output for exactly `amountIn` of `tokenIn` (its `getAmountOut`, oracle-priced: read, not modelled). */
  propAmmOut?: (hop: PropAmmHop, tokenIn: Address, amountIn: bigint) => Promise<bigint | undefined>;
}>;

/**
 * Every swap hop of `actions` with the token it sells, in execution order (split legs in leg order),
 * for a route selling `sellToken`: what decides the pool a V3 hop names and a propAMM hop's direction.
 * WRAP and UNWRAP leave the token as it is: an order that sells an ERC-20 never wraps before a hop,
 * and a hop after a WRAP of native ETH names no pool (so such a route is simply not priced).
 */
export function routeHops(actions: readonly RouteAction[], sellToken: Address): RouteHop[] {
  const hops: RouteHop[] = [];
  let token = sellToken;
  for (const action of actions) {
    if (isHopAction(action)) {
      hops.push({ hop: action, tokenIn: token });
      token = action.tokenOut;
    } else if (action.type === "split") {
      let legEnd = token;
      for (const leg of action.legs) {
        let legToken = token;
        for (const hop of leg.hops) {
          hops.push({ hop, tokenIn: legToken });
          legToken = hop.tokenOut;
        }
        legEnd = legToken;
      }
      token = legEnd;
    }
  }
  return hops;
}

/**
 * What `amountIn` of `sellToken` run through `actions` pays at the end, at the given venue states,
 * as the routers compute an exact-input route: V2 math, V3's swap loop over the pool's ticks (the
 * whole input or nothing, as the router requires; V4 pools the same, over their LP and protocol fees), a propAMM's own quote, FEE rounding down, SPLIT's
 * leg amounts. A V2 pair or V3 pool used twice sees its own earlier hop, as on chain; a propAMM used
 * twice is not priced (its quote at the block does not see the route's earlier swap through it).
 * Undefined when any hop cannot be priced. Token transfer taxes are not modelled: a taxed token's
 * route pays less than this.
 *
 * @example await routeOutput(decodeRouteActions(order.actions), order.sellToken, order.sellAmount, { v2Pair: (pair) => states.get(pair) })
 */
export async function routeOutput(actions: readonly RouteAction[], sellToken: Address, amountIn: bigint, venues: RouteVenueStates): Promise<bigint | undefined> {
  const movedPairs = new Map<string, PairReserves>();
  const movedPools = new Map<string, V3PoolState>();
  const propAmmsUsed = new Set<string>();
  const hop = async (amount: bigint, action: RouteHopAction, tokenIn: Address): Promise<bigint | undefined> => {
    switch (action.type) {
      case "swapV2": {
        const { pair, tokenOut, feeBps } = action;
        const state = movedPairs.get(pair.toLowerCase()) ?? venues.v2Pair(pair);
        if (state === undefined) return undefined;
        const outIsToken0 = state.token0.toLowerCase() === tokenOut.toLowerCase();
        const [reserveIn, reserveOut] = outIsToken0 ? [state.reserve1, state.reserve0] : [state.reserve0, state.reserve1];
        const out = getAmountOut(amount, reserveIn, reserveOut, feeBps);
        movedPairs.set(pair.toLowerCase(), outIsToken0 ? { ...state, reserve0: state.reserve0 - out, reserve1: state.reserve1 + amount } : { ...state, reserve0: state.reserve0 + amount, reserve1: state.reserve1 - out });
        return out;
      }
      case "swapV3":
      case "swapV4": {
        const found = action.type === "swapV3" ? venues.v3Pool?.(action, tokenIn) : venues.v4Pool?.(action, tokenIn);
        if (found === undefined) return undefined;
        const pool = movedPools.get(found.address.toLowerCase()) ?? found;
        const zeroForOne = pool.token0.toLowerCase() === tokenIn.toLowerCase();
        const swap = quoteConcentratedExactInput(pool, zeroForOne, amount);
        // The router refuses a partial fill and a swap that pays nothing (SwapV3ZeroOutput); a swap past
        // the ticks read is not known either.
        if (swap === undefined || !swap.filled || swap.amountOut === 0n) return undefined;
        movedPools.set(pool.address.toLowerCase(), { ...pool, sqrtPriceX96: swap.sqrtPriceAfter, tick: swap.tickAfter, liquidity: swap.liquidityAfter });
        return swap.amountOut;
      }
      case "swapPropAmm": {
        const pair = action.pair.toLowerCase();
        if (venues.propAmmOut === undefined || propAmmsUsed.has(pair)) return undefined;
        propAmmsUsed.add(pair);
        return venues.propAmmOut(action, tokenIn, amount);
      }
    }
  };
  let running: bigint | undefined = amountIn;
  let token = sellToken;
  for (const action of actions) {
    if (running === undefined) return undefined;
    switch (action.type) {
      case "swapV2":
      case "swapV3":
      case "swapPropAmm":
      case "swapV4":
        running = await hop(running, action, token);
        token = action.tokenOut;
        break;
      case "fee":
        running -= (running * BigInt(action.bps)) / 10_000n;
        break;
      case "split": {
        const legIns = splitAmounts(running, action.legs.map((leg) => leg.shareBps));
        let total = 0n;
        let legEnd = token;
        for (const [index, leg] of action.legs.entries()) {
          let legAmount: bigint | undefined = legIns[index]!;
          let legToken = token;
          for (const legHop of leg.hops) {
            legAmount = legAmount === undefined ? undefined : await hop(legAmount, legHop, legToken);
            legToken = legHop.tokenOut;
          }
          if (legAmount === undefined) return undefined;
          total += legAmount;
          legEnd = legToken;
        }
        running = total;
        token = legEnd;
        break;
      }
      case "wrap":
      case "unwrap":
        break;
    }
  }
  return running;
}

/** Every V2 pair a route swaps through, lowercase, once each. */
export function routePairs(actions: readonly RouteAction[]): Address[] {
  const pairs = new Set<Address>();
  for (const action of actions) {
    if (action.type === "swapV2") pairs.add(action.pair.toLowerCase() as Address);
    if (action.type === "split") for (const leg of action.legs) for (const hop of leg.hops) if (hop.type === "swapV2") pairs.add(hop.pair.toLowerCase() as Address);
  }
  return [...pairs];
}
