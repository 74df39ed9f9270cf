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

type Hop = { pool: Address; token_out: Address };

const hopText = (pair: string, tokenOut: string) => `${pair.toLowerCase()}→${tokenOut.toLowerCase()}`;
/** A hop's pool: a V2 or propAMM pair, or (the router computes V3 pools) the V3 venue and fee tier. */
const swapText = (hop: RouteHopAction) => (hop.type === "swapV3" ? hopText(`v3:${hop.venue}:${hop.fee}`, hop.tokenOut) : hopText(hop.pair, hop.tokenOut));
const jsonHopText = (hop: Hop) => hopText(hop.pool, hop.token_out);

/** A route's steps as text: pairs and tokens, split shares; not the pool fee (the router checks it against the venue). */
function actionText(action: RouteAction): string {
  switch (action.type) {
    case "swapV2":
    case "swapV3":
    case "swapPropAmm":
      return `${action.type} ${swapText(action)}`;
    case "split":
      return `split [${action.legs.map((leg) => `${leg.shareBps} bps: ${leg.hops.map(swapText).join(", ")}`).join(" | ")}]`;
    case "fee":
      return "fee";
    default:
      return action.type;
  }
}

/** The steps the quote's `route` (and its native ends and fee) says the order takes, as actionText writes them. */
function routeSteps(quote: QuoteJson): string[] {
  const steps: string[] = [];
  if (isNativeToken(quote.sell_token)) steps.push("wrap");
  const { legs } = quote.route;
  if (legs.length > 1) {
    steps.push(`split [${legs.map((leg) => `${leg.share_bps} bps: ${leg.hops.map(jsonHopText).join(", ")}`).join(" | ")}]`);
  } else {
    for (const hop of legs[0]?.hops ?? quote.route.hops) steps.push(`swapV2 ${jsonHopText(hop)}`);
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
  const steps = routeSteps(quote).join("; ");
  if (actual !== steps) check.refuse(FIELD, actual, steps, "route, settlement ends and platform_fee of the quote JSON");
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
