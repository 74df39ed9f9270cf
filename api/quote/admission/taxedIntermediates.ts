import type { Address } from "viem";
import type { PricedMarket } from "../routing/poolGraph";
import { marketWhere } from "../market/marketView";
import type { RouteHop } from "../routing/routeSearch";

/** `market` without the pools of `taxed` tokens other than `tokenIn` and `tokenOut` (lowercase); the market itself when none apply. */
export function marketAvoidingTaxed<M extends PricedMarket>(market: M, taxed: ReadonlySet<Address>, tokenIn: Address, tokenOut: Address): M {
  const avoided = new Set([...taxed].filter((token) => token !== tokenIn && token !== tokenOut));
  if (avoided.size === 0) return market;
  // A taxed token in the middle of a route would hand the next pool less than the router priced, and
  // the swap would revert.
  return marketWhere(market, (pool) => !avoided.has(pool.token0) && !avoided.has(pool.token1));
}

/** The tokens a route passes through between its two ends (lowercase, as hops carry them). */
export function intermediateTokens(hops: readonly RouteHop[], tokenIn: Address, tokenOut: Address): Address[] {
  const tokens = new Set<Address>();
  for (const hop of hops) for (const token of [hop.tokenIn, hop.tokenOut]) if (token !== tokenIn && token !== tokenOut) tokens.add(token);
  return [...tokens];
}
