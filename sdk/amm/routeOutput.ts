import type { Address } from "viem";
import { splitAmounts, type RouteAction, type RouteHopAction } from "../calldata/routeActions";
import { getAmountOut } from "./v2Math";

/** A V2 pair's state: which token is token0, and both reserves. */
export type PairReserves = { token0: Address; reserve0: bigint; reserve1: bigint };

/**
 * What `amountIn` run through `actions` pays at the end, at the given pair states, exactly as the
 * routers compute an exact-input route (V2 math, FEE rounding down, SPLIT's leg amounts); a pair
 * used twice sees its own earlier hop, as on chain. Undefined when a pair's state is missing, and for
 * a route through another venue (V3, propAMM), which V2 pair states cannot price.
 * Token transfer taxes are not modelled: a taxed token's route pays less than this.
 *
 * @example routeOutput(decodeRouteActions(order.actions), order.sellAmount, (pair) => states.get(pair))
 */
export function routeOutput(actions: readonly RouteAction[], amountIn: bigint, pairState: (pair: Address) => PairReserves | undefined): bigint | undefined {
  const moved = new Map<string, PairReserves>();
  const stateOf = (pair: Address) => moved.get(pair.toLowerCase()) ?? pairState(pair);
  const hop = (amount: bigint, action: RouteHopAction): bigint | undefined => {
    if (action.type !== "swapV2") return undefined;
    const { pair, tokenOut, feeBps } = action;
    const state = stateOf(pair);
    if (state === undefined) return undefined;
    const outIsToken0 = state.token0.toLowerCase() === tokenOut.toLowerCase();
    const [reserveIn, reserveOut] = outIsToken0 ? [state.reserve1, state.reserve0] : [state.reserve0, state.reserve1];
    const out = getAmountOut(amount, reserveIn, reserveOut, feeBps);
    moved.set(pair.toLowerCase(), outIsToken0 ? { ...state, reserve0: state.reserve0 - out, reserve1: state.reserve1 + amount } : { ...state, reserve0: state.reserve0 + amount, reserve1: state.reserve1 - out });
    return out;
  };
  let running: bigint | undefined = amountIn;
  for (const action of actions) {
    if (running === undefined) return undefined;
    switch (action.type) {
      case "swapV2":
      case "swapV3":
      case "swapPropAmm":
        running = hop(running, action);
        break;
      case "fee":
        running -= (running * BigInt(action.bps)) / 10_000n;
        break;
      case "split": {
        const legIns = splitAmounts(running, action.legs.map((leg) => leg.shareBps));
        let total = 0n;
        for (const [index, leg] of action.legs.entries()) {
          let legAmount: bigint | undefined = legIns[index]!;
          for (const legHop of leg.hops) legAmount = legAmount === undefined ? undefined : hop(legAmount, legHop);
          if (legAmount === undefined) return undefined;
          total += legAmount;
        }
        running = total;
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
