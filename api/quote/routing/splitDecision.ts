import { zeroAddress, type Address } from "viem";
import { SPLIT_GAS } from "../gas/gasEstimate";
import type { PricedMarket } from "./poolGraph";
import { hopsGas, searchRoute, type GasCost } from "./prunedRouteSearch";
import type { FoundRoute, RouteHop } from "./routeSearch";
import { priceImpactLoss, splitRoute, type SplitLeg } from "./splitRoute";

/**
 * The tip a taker-submitted quote assumes on top of the block's base fee when it weighs a split's
 * extra gas against its gain (gasless quotes use the relayer's configured tip).
 */
export const ASSUMED_PRIORITY_FEE_WEI = 1_000_000_000n;

/** WETH priced to convert gas costs into the buy token: small enough to sit at the marginal price. */
const PRICE_PROBE_WEI = 10n ** 15n;

export type Execution = Readonly<{ legs: readonly SplitLeg[]; amountOut: bigint }>;

/**
 * The route a quote settles: the best single path, or a split of it across up to 3 paths when that
 * pays more after its extra gas, priced at `gasPriceWei` in the buy token as the gas model counts it
 * (SPLIT_GAS). Splitting is searched only when the single path loses more to price impact than the
 * cheapest split costs: the search of further paths and the allotment are skipped for the small
 * orders that make up most quotes. The buy token's price of gas comes from selling a little WETH for
 * it; a buy token with no route from WETH is not split (its gas cannot be priced).
 */
export function bestExecution(
  market: PricedMarket,
  tokenIn: Address,
  tokenOut: Address,
  amountIn: bigint,
  single: FoundRoute,
  gasPriceWei: bigint,
  weth: Address,
  maxHops?: number,
): Execution {
  const singleExecution: Execution = { legs: [{ ...single, amountIn, shareBps: 10_000 }], amountOut: single.amountOut };
  const inBuyToken = gasPricer(market, tokenOut, weth);
  if (inBuyToken === undefined) return singleExecution;
  const gasCost: GasCost = (gas) => inBuyToken(BigInt(gas) * gasPriceWei);
  // Each leg's hops cost what their venues' adapters say (a V3 hop's ticks, a propAMM's measured gas).
  // A leg's V4 hops unlock one by one (no shared runs).
  const legCost = (hops: readonly RouteHop[]) => gasCost(SPLIT_GAS.perLeg + hopsGas(hops, false));
  const splitCost = gasCost(SPLIT_GAS.base + SPLIT_GAS.perLeg);
  // The cheapest split there is: its base and one more leg, no extra hops.
  if (priceImpactLoss(single) <= splitCost + legCost([])) return singleExecution;
  const split = splitRoute(market, tokenIn, tokenOut, amountIn, { single, splitCost, legCost, gasCost, maxHops });
  return split === undefined ? singleExecution : { legs: split.legs, amountOut: split.amountOut };
}

/**
 * What PRICE_PROBE_WEI of WETH buys of each token, per snapshot: one search per token and block rather
 * than one per quote (null: no route). Snapshots never change and are held weakly, so this is a pure
 * memo of the market's state.
 */
const probes = new WeakMap<PricedMarket, Map<Address, bigint | null>>();

/**
 * Gas at `gasPriceWei` in `token` at the market's price (what ranking net of gas subtracts), or
 * undefined when no route from WETH prices it.
 */
export function gasCostIn(market: PricedMarket, token: Address, weth: Address, gasPriceWei: bigint): GasCost | undefined {
  const inToken = gasPricer(market, token, weth);
  return inToken === undefined ? undefined : (gas) => inToken(BigInt(gas) * gasPriceWei);
}

/** Converts wei into `token` at the market's price, or undefined when no pool route prices it. */
function gasPricer(market: PricedMarket, token: Address, weth: Address): ((wei: bigint) => bigint) | undefined {
  // WETH, and native ETH (a V4 pool's address(0), where a route buying ETH may end), are wei.
  if (token === weth || token === zeroAddress) return (wei) => wei;
  let known = probes.get(market);
  if (known === undefined) probes.set(market, (known = new Map()));
  let probe = known.get(token);
  if (probe === undefined) {
    probe = searchRoute(market, weth, token, PRICE_PROBE_WEI)?.amountOut ?? null;
    known.set(token, probe);
  }
  if (probe === null) return undefined;
  const perProbe = probe;
  return (wei) => (wei * perProbe) / PRICE_PROBE_WEI;
}
