import type { Address } from "viem";
import { ApiError } from "../../../sdk/server/apiError";
import type { RoutePlan } from "../routing/routePlan";
import type { RouteHop } from "../routing/routeSearch";
import type { SplitLeg } from "../routing/splitRoute";
import type { PropAmmQuoteRequest } from "./propAmmPricing";
import { adapterOf } from "./venueAdapters";

/** `getAmountOut` at exact amounts at the quote's block (PropAmmPricing.exactQuotes). */
export type ExactPropAmmQuotes = (requests: readonly PropAmmQuoteRequest[]) => Promise<bigint[]>;

/**
 * The chosen exact-input route with each propAMM hop priced exactly: `getAmountOut` at the amount the
 * hop really sells, instead of the ladder's chord that chose the route (which never promises more, so
 * the quote's amounts only rise). A hop after a propAMM hop is priced again from its new input by its
 * venue's adapter. A route without propAMM hops is returned as it is, with no read.
 */
export async function requotePropAmmHops(plan: RoutePlan, exact: ExactPropAmmQuotes): Promise<RoutePlan> {
  if (!plan.hops.some((hop) => hop.pool.kind === "propamm")) return plan;
  const legs = await Promise.all(plan.legs.map((leg) => requoteLeg(leg, exact)));
  const hops = legs.flatMap((leg) => leg.hops);
  return { ...plan, legs, hops, grossOut: legs.reduce((total, leg) => total + leg.amountOut, 0n) };
}

/** One leg, hop by hop: each hop sells what the one before it bought. */
async function requoteLeg(leg: SplitLeg, exact: ExactPropAmmQuotes): Promise<SplitLeg> {
  const hops: RouteHop[] = [];
  let amountIn = leg.amountIn;
  for (const hop of leg.hops) {
    const amountOut = hop.pool.kind === "propamm" ? (await exact([{ pair: hop.pool.address, zeroForOne: sameToken(hop.tokenIn, hop.pool.token0), amountIn }]))[0]! : adapterOf(hop.pool).amountOut(hop.pool, hop.tokenIn, amountIn);
    if (amountOut === 0n) throw new ApiError("no_route", `the route's ${hop.pool.source} hop ${hop.pool.address} no longer fills ${amountIn} at the quoted block; retry the quote`);
    hops.push({ ...hop, amountIn, amountOut });
    amountIn = amountOut;
  }
  return { ...leg, hops, amountOut: amountIn };
}

const sameToken = (a: Address, b: Address) => a.toLowerCase() === b.toLowerCase();
