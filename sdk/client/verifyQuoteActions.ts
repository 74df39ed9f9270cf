import { isAddress, zeroAddress, type Address } from "viem";
import { v3PoolAddress } from "../amm/v3/poolAddress";
import { v4HopPoolKey, v4PoolId } from "../amm/v4/poolKey";
import { decodeRouteActions, isHopAction, type RouteAction, type RouteHopAction } from "../calldata/routeActions";
import type { SwapOrder } from "../calldata/swapOrder";
import { QuoteCalldataError } from "../errors/quoteCheck";
import { SdkError } from "../errors/base";
import { isNativeToken } from "../tokens/native";
import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import type { QuoteFieldCheck } from "./quoteFieldCheck";
import type { RouterV3Venues } from "./routerV3Venues";

const FIELD = "tx.data.order.actions";

type Hop = { pool: Address; token_out: Address; leg: string };

const hopText = (pair: string, tokenOut: string) => `${pair.toLowerCase()}→${tokenOut.toLowerCase()}`;
/** The fee of a hop's `leg` (`<venue>:chain-<id>:<pool>:<fee>`). */
const legFee = (hop: Hop) => hop.leg.slice(hop.leg.lastIndexOf(":") + 1);
/** A single swap action's type: the JSON tells V2 and propAMM hops apart only by venue name, so both read "swap". */
const swapType = (type: RouteHopAction["type"] | undefined) => (type === "swapV3" || type === "swapV4" ? type : "swap");
/** Whether a hop names no pool but has the router compute it (V3 from its venue table, V4 from the pool key). */
const computesPool = (hop: RouteHopAction | undefined): hop is Extract<RouteHopAction, { type: "swapV3" | "swapV4" }> => hop?.type === "swapV3" || hop?.type === "swapV4";
/** A computed hop as text when its pool cannot be computed (no venue table read): its kind and fee. */
const feeText = (type: "swapV3" | "swapV4", fee: string | number) => `${type === "swapV3" ? "v3" : "v4"}:${fee}`;

/**
 * How the actions' V3 hops are read. With the router's venue table (verifyQuote reads it), a V3 hop
 * is the pool the router will compute from its venue, its input and output tokens and its fee, and
 * must be the pool the quote names. Without it (verifyQuoteOrder alone, which reads no chain) only
 * the fee tier and token are compared: the venue index is not in the quote JSON.
 */
type V3Binding = { kind: "pool"; table: RouterV3Venues; start: Address | undefined } | { kind: "fee" };

/** The pool a SWAP_V3 hop from `tokenIn` swaps with, as the router computes it, or why it computes none. */
function v3HopPool(table: RouterV3Venues, tokenIn: Address | undefined, hop: Extract<RouteHopAction, { type: "swapV3" }>): string {
  const venue = table.venues[hop.venue];
  if (venue === undefined) return `no V3 venue ${hop.venue} on router ${table.router}`;
  if (tokenIn === undefined || isNativeToken(tokenIn) || tokenIn === zeroAddress || !isAddress(tokenIn, { strict: false })) return `no V3 pool (input ${tokenIn ?? "unknown"})`;
  return v3PoolAddress(venue.factory, venue.poolInitCodeHash, tokenIn, hop.tokenOut, hop.fee);
}

/**
 * The id of the V4 pool a SWAP_V4 hop from `tokenIn` swaps in (its key: the sorted currencies, fee,
 * tick spacing and hooks; address(0) is native ETH), or why there is none.
 */
function v4HopPool(tokenIn: Address | undefined, hop: Extract<RouteHopAction, { type: "swapV4" }>): string {
  if (tokenIn === undefined || isNativeToken(tokenIn) || !isAddress(tokenIn, { strict: false })) return `no V4 pool (input ${tokenIn ?? "unknown"})`;
  return v4PoolId(v4HopPoolKey(tokenIn, hop));
}

/**
 * A hop's pool as the router trades it: a V2 or propAMM pair as named, a V3 pool as computed from the
 * router's venue table, a V4 pool's id from its key (or, without the table, `v3:<fee>` / `v4:<fee>`).
 */
function swapText(binding: V3Binding, tokenIn: Address | undefined, hop: RouteHopAction): string {
  if (!computesPool(hop)) return hopText(hop.pair, hop.tokenOut);
  if (binding.kind === "fee") return hopText(feeText(hop.type, hop.fee), hop.tokenOut);
  return hopText(hop.type === "swapV3" ? v3HopPool(binding.table, tokenIn, hop) : v4HopPool(tokenIn, hop), hop.tokenOut);
}
/** A JSON hop as swapText writes the action hop it is paired with. */
const jsonHopText = (binding: V3Binding, hop: Hop, action: RouteHopAction | undefined) =>
  computesPool(action) && binding.kind === "fee" ? hopText(feeText(action.type, legFee(hop)), hop.token_out) : hopText(hop.pool, hop.token_out);

/** The hops of a path as text, each V3 hop's input being the previous hop's output (the path starts at `tokenIn`). */
function pathText(binding: V3Binding, tokenIn: Address | undefined, hops: readonly RouteHopAction[]): { text: string[]; tokenOut: Address | undefined } {
  let token = tokenIn;
  const text = hops.map((hop) => {
    const step = swapText(binding, token, hop);
    token = hop.tokenOut;
    return step;
  });
  return { text, tokenOut: token };
}

/** A route's steps as text: pools and tokens, split shares; not the pool fee (the router checks it against the venue). */
function actionsText(actions: readonly RouteAction[], binding: V3Binding): string[] {
  let token = binding.kind === "pool" ? binding.start : undefined;
  return actions.map((action) => {
    switch (action.type) {
      case "swapV2":
      case "swapV3":
      case "swapPropAmm":
      case "swapV4": {
        const path = pathText(binding, token, [action]);
        token = path.tokenOut;
        return `${swapType(action.type)} ${path.text[0]}`;
      }
      case "split": {
        const legs = action.legs.map((leg) => pathText(binding, token, leg.hops));
        token = legs[0]?.tokenOut;
        return `split [${action.legs.map((leg, index) => `${leg.shareBps} bps: ${legs[index]!.text.join(", ")}`).join(" | ")}]`;
      }
      case "wrap":
        if (binding.kind === "pool") token = binding.table.weth;
        return action.type;
      case "fee":
        return "fee";
      default:
        return action.type;
    }
  });
}

/**
 * The steps the quote's `route` (and its native ends and fee) says the order takes, as actionsText writes
 * them. A native end goes through WETH (WRAP first, UNWRAP last) unless the route's hops start (end) at
 * native ETH itself, a V4 pool's address(0), which SWAP_V4 pays (takes) without either.
 */
function routeSteps(quote: QuoteJson, actions: readonly RouteAction[], binding: V3Binding): string[] {
  const steps: string[] = [];
  const { hops, legs } = quote.route;
  const isV4Native = (token: string | undefined) => token !== undefined && token.toLowerCase() === zeroAddress;
  if (isNativeToken(quote.sell_token) && !isV4Native(hops[0]?.token_in)) steps.push("wrap");
  // The actions' swaps in order, each JSON hop paired with the one in its place.
  const split = actions.find((action): action is Extract<RouteAction, { type: "split" }> => action.type === "split");
  const singles = actions.filter(isHopAction);
  if (legs.length > 1) {
    const legText = (leg: (typeof legs)[number], index: number) => `${leg.share_bps} bps: ${leg.hops.map((hop, at) => jsonHopText(binding, hop, split?.legs[index]?.hops[at])).join(", ")}`;
    steps.push(`split [${legs.map(legText).join(" | ")}]`);
  } else {
    (legs[0]?.hops ?? quote.route.hops).forEach((hop, at) => {
      const action = singles[at];
      steps.push(`${swapType(action?.type)} ${jsonHopText(binding, hop, action)}`);
    });
  }
  if (isNativeToken(quote.buy_token) && !isV4Native(hops.at(-1)?.token_out)) steps.push("unwrap");
  if (quote.platform_fee.bps > 0) steps.push("fee");
  return steps;
}

/**
 * Checks the order's route actions: a fee goes only to the integrator's fee recipient and is at most
 * the fee asked for (and what `platform_fee` states), and every other step is the quote's `route`
 * (pairs, tokens, split shares, wrap and unwrap) in order. With `v3Venues` (the router's venue table,
 * readRouterV3Venues), each V3 hop must be the pool the quote names, as the router computes it.
 */
export function verifyQuoteActions(check: QuoteFieldCheck, quote: QuoteJson, order: Pick<SwapOrder, "actions">, expected: QuoteExpectation, v3Venues?: RouterV3Venues): void {
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

  // A native sell's route runs native ETH (V4's address(0)) until a WRAP makes it the router's wrapped token; any other starts at the sell token.
  const binding: V3Binding = v3Venues === undefined ? { kind: "fee" } : { kind: "pool", table: v3Venues, start: isNativeToken(quote.sell_token) ? zeroAddress : quote.sell_token };
  const actual = actionsText(actions, binding).join("; ");
  const steps = routeSteps(quote, actions, binding).join("; ");
  if (actual !== steps) check.refuse(FIELD, actual, steps, "route, settlement ends and platform_fee of the quote JSON");
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
