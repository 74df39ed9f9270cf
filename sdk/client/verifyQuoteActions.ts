import type { Address } from "viem";
import { decodeRouteActions, type RouteAction, type RouteHopAction } from "../calldata/routeActions";
import type { SwapOrder } from "../calldata/swapOrder";
import { QuoteCalldataError } from "../errors/quoteCheck";
import { SdkError } from "../errors/base";
import { isNativeToken } from "../tokens/native";
import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import type { QuoteFieldCheck } from "./quoteFieldCheck";

const FIELD = "tx.data.order.actions";

type Hop = { pool: Address; token_out: Address; leg: string };

const hopText = (pair: string, tokenOut: string) => `${pair.toLowerCase()}→${tokenOut.toLowerCase()}`;
/**
 * A hop's pool: a V2 or propAMM pair, or (the router computes V3 pools from its venue table) the V3
 * fee tier. The venue index is not compared: the quote JSON names the venue, not its index in the
 * router's table, and the router only swaps with the pool its venue, the tokens and the fee give.
 */
const swapText = (hop: RouteHopAction) => (hop.type === "swapV3" ? hopText(`v3:${hop.fee}`, hop.tokenOut) : hopText(hop.pair, hop.tokenOut));
/** The fee of a hop's `leg` (`<venue>:chain-<id>:<pool>:<fee>`). */
const legFee = (hop: Hop) => hop.leg.slice(hop.leg.lastIndexOf(":") + 1);
/** A JSON hop as swapText writes the action hop it is paired with: a V3 action is compared by fee tier and token. */
const jsonHopText = (hop: Hop, action: RouteHopAction | undefined) => (action?.type === "swapV3" ? hopText(`v3:${legFee(hop)}`, hop.token_out) : hopText(hop.pool, hop.token_out));
/** A single swap action's type: the JSON tells V2 and propAMM hops apart only by venue name, so both read "swap". */
const swapType = (type: RouteHopAction["type"]) => (type === "swapV3" ? "swapV3" : "swap");

/** A route's steps as text: pairs and tokens, split shares; not the pool fee (the router checks it against the venue). */
function actionText(action: RouteAction): string {
  switch (action.type) {
    case "swapV2":
    case "swapV3":
    case "swapPropAmm":
      return `${swapType(action.type)} ${swapText(action)}`;
    case "split":
      return `split [${action.legs.map((leg) => `${leg.shareBps} bps: ${leg.hops.map(swapText).join(", ")}`).join(" | ")}]`;
    case "fee":
      return "fee";
    default:
      return action.type;
  }
}

/** The steps the quote's `route` (and its native ends and fee) says the order takes, as actionText writes them. */
function routeSteps(quote: QuoteJson, actions: readonly RouteAction[]): string[] {
  const steps: string[] = [];
  if (isNativeToken(quote.sell_token)) steps.push("wrap");
  const { legs } = quote.route;
  // The actions' swaps in order, each JSON hop paired with the one in its place.
  const split = actions.find((action): action is Extract<RouteAction, { type: "split" }> => action.type === "split");
  const singles = actions.filter((action): action is RouteHopAction => action.type === "swapV2" || action.type === "swapV3" || action.type === "swapPropAmm");
  if (legs.length > 1) {
    const legText = (leg: (typeof legs)[number], index: number) => `${leg.share_bps} bps: ${leg.hops.map((hop, at) => jsonHopText(hop, split?.legs[index]?.hops[at])).join(", ")}`;
    steps.push(`split [${legs.map(legText).join(" | ")}]`);
  } else {
    (legs[0]?.hops ?? quote.route.hops).forEach((hop, at) => {
      const action = singles[at];
      steps.push(`${swapType(action?.type === "swapV3" ? "swapV3" : "swapV2")} ${jsonHopText(hop, action)}`);
    });
  }
  if (isNativeToken(quote.buy_token)) steps.push("unwrap");
  if (quote.platform_fee.bps > 0) steps.push("fee");
  return steps;
}

/**
 * Checks the order's route actions: a fee goes only to the integrator's fee recipient and is at most
 * the fee asked for (and what `platform_fee` states), and every other step is the quote's `route`
 * (pairs, tokens, split shares, wrap and unwrap) in order.
 */
export function verifyQuoteActions(check: QuoteFieldCheck, quote: QuoteJson, order: Pick<SwapOrder, "actions">, expected: QuoteExpectation): void {
  let actions: RouteAction[];
  try {
    actions = decodeRouteActions(order.actions);
  } catch (cause) {
    throw new QuoteCalldataError(check.quoteId, FIELD, `${FIELD} do not decode: ${cause instanceof SdkError ? cause.shortMessage : String(cause)}`, cause);
  }

  const platformFee = quote.platform_fee;
  const recipient = expected.feeRecipient ?? platformFee.recipient;
  const recipientSource = expected.feeRecipient === undefined ? "platform_fee.recipient" : "the integrator's fee recipient (client configuration)";
  if (expected.feeRecipient !== undefined && platformFee.bps > 0 && !sameAddress(platformFee.recipient, expected.feeRecipient)) {
    check.refuseFee("platform_fee.recipient", platformFee.recipient, expected.feeRecipient, recipientSource);
  }
  const cap = expected.feeBps ?? platformFee.bps;
  const capSource = expected.feeBps === undefined ? "platform_fee.bps" : "request fee_bps";
  if (platformFee.bps > cap) check.refuseFee("platform_fee.bps", platformFee.bps, cap, capSource, "is above");
  const fees = actions.filter((action): action is Extract<RouteAction, { type: "fee" }> => action.type === "fee");
  if (fees.length > 1) check.refuseFee(`${FIELD}.fee`, `${fees.length} fee actions`, "at most one", "route actions", "is not");
  for (const fee of fees) {
    if (!sameAddress(fee.recipient, recipient)) check.refuseFee(`${FIELD}.fee.recipient`, fee.recipient, recipient, recipientSource);
    if (fee.bps > cap) check.refuseFee(`${FIELD}.fee.bps`, fee.bps, cap, capSource, "is above");
    if (fee.bps !== platformFee.bps) check.refuseFee(`${FIELD}.fee.bps`, fee.bps, platformFee.bps, "platform_fee.bps");
  }

  const actual = actions.map(actionText).join("; ");
  const steps = routeSteps(quote, actions).join("; ");
  if (actual !== steps) check.refuse(FIELD, actual, steps, "route, settlement ends and platform_fee of the quote JSON");
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
