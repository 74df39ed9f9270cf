import { isAddress } from "viem";
import { quoteCallFunction, type QuoteCall } from "../calldata/decodeQuoteOrder";
import { NATIVE_TOKEN } from "../tokens/native";
import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import { amountOf, QuoteFieldCheck } from "./quoteFieldCheck";
import { isExactOutputQuote, readQuoteCall } from "./readQuoteCall";
import type { ExactOutputQuoteCall } from "../calldata/decodeQuoteOrder";
import { verifyExactOutputQuoteOrder } from "./verifyExactOutputQuoteOrder";
import type { RouterV3Venues } from "./routerV3Venues";
import { verifyQuoteActions } from "./verifyQuoteActions";
import { verifyQuotePermit } from "./verifyQuotePermit";
import { optionalAddress } from "./addressInput";

const BPS = 10_000n;

/** A requested token as an address to compare, or undefined for a symbol (the API resolves those). */
function requestedToken(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.toUpperCase() === "ETH") return NATIVE_TOKEN;
  return isAddress(token, { strict: false }) ? token : undefined;
}

/** An exact-output quote's maximum input for `sellAmount` and a slippage tolerance, rounded up as the API rounds it. */
export function maxSellAmountOf(sellAmount: bigint, slippageBps: number): bigint {
  return (sellAmount * (BPS + BigInt(slippageBps)) + BPS - 1n) / BPS;
}

/** The quote JSON against the request: chain, mode, tokens, amount and slippage. */
export function verifyAgainstRequest(check: QuoteFieldCheck, quote: QuoteJson, expected: QuoteExpectation): void {
  if (expected.chainId !== undefined) check.same("chain_id", quote.chain_id, expected.chainId, "the chain quoted for");
  if (expected.gasless !== undefined) check.same("gasless", quote.gasless, expected.gasless, "request (gasless)");
  const sell = requestedToken(expected.sellToken);
  if (sell !== undefined) check.address("sell_token", quote.sell_token, sell, "request sell_token");
  const buy = requestedToken(expected.buyToken);
  if (buy !== undefined) check.address("buy_token", quote.buy_token, buy, "request buy_token");
  const exactOutput = isExactOutputQuote(quote);
  if (expected.buyAmount !== undefined) {
    // Asked with buy_amount: an exact-input quote would spend its sell_amount with no bound on the output but its minimum.
    if (!exactOutput) check.refuse("max_sell_amount", undefined, "present", "request buy_amount (an exact-output quote)", "must be");
    check.amount("buy_amount", quote.buy_amount, BigInt(expected.buyAmount), "request buy_amount");
  }
  if (expected.sellAmount !== undefined) {
    if (exactOutput) check.refuse("max_sell_amount", quote.max_sell_amount, undefined, "request sell_amount (an exact-input quote)", "must be");
    check.amount("sell_amount", quote.sell_amount, BigInt(expected.sellAmount), "request sell_amount");
  }
  if (exactOutput) {
    // The output is bound exactly; the tolerance is on the input.
    check.amount("min_buy_amount", quote.min_buy_amount, BigInt(quote.buy_amount), "buy_amount (an exact output is its own minimum)");
    if (expected.slippageBps !== undefined) {
      const ceiling = maxSellAmountOf(BigInt(quote.sell_amount), expected.slippageBps);
      if (BigInt(quote.max_sell_amount!) > ceiling) check.refuse("max_sell_amount", quote.max_sell_amount, ceiling, `sell_amount plus request slippage_bps ${expected.slippageBps}`, "is above");
    }
  } else if (expected.slippageBps !== undefined) {
    const floor = (BigInt(quote.buy_amount) * (BPS - BigInt(expected.slippageBps))) / BPS;
    if (BigInt(quote.min_buy_amount) < floor) check.refuse("min_buy_amount", quote.min_buy_amount, floor, `buy_amount less request slippage_bps ${expected.slippageBps}`, "is below");
  }
}

/** The call's own fields against the quote JSON: value, signature slot, permit presence, gasless taker and relayer fee. */
export function verifyCallFields(check: QuoteFieldCheck, quote: QuoteJson, call: QuoteCall | ExactOutputQuoteCall, expected: QuoteExpectation): void {
  const { tx } = quote;
  if (call.kind === "native" && "maxSellAmount" in call.order) check.amount("tx.value", tx.value, call.order.maxSellAmount, "tx.data.order.maxSellAmount (an exact-output native sell sends it as value; the rest is refunded)");
  else if (call.kind === "native" && "sellAmount" in call.order) check.amount("tx.value", tx.value, call.order.sellAmount, "tx.data.order.sellAmount (a native sell sends it as value)");
  else check.amount("tx.value", tx.value, 0n, "an ERC20 sell sends no value");
  if (call.kind === "permit" || call.kind === "gasless") {
    if (quote.permit2 === undefined) check.refuse("permit2", undefined, "the Permit2 typed data tx.data spends", quoteCallFunction[call.kind]);
    check.same("tx.signature_offset", tx.signature_offset, call.signatureOffset, "the signature argument of tx.data");
  } else {
    // A permit2 object here would be signed and its signature published in tx.data for anyone to use.
    if (quote.permit2 !== undefined) check.refuse("permit2", "present", "absent", `settlement ${quote.settlement}: nothing is signed`, "must be");
    if (tx.signature_offset !== undefined) check.refuse("tx.signature_offset", tx.signature_offset, undefined, `settlement ${quote.settlement}: nothing is signed`, "must be");
  }
  if (call.kind === "gasless") {
    check.address("tx.data.taker", call.taker, expected.taker, "the wallet that signs");
    const fee = quote.relayer_fee;
    if (fee === null) check.refuse("relayer_fee", null, "the relayer fee tx.data pays", "swapGasless");
    check.amount("tx.data.relayerFee", call.relayerFee, BigInt(fee.amount), "relayer_fee.amount");
    check.address("tx.data.relayerFeeRecipient", call.relayerFeeRecipient, fee.recipient, "relayer_fee.recipient");
    check.address("relayer_fee.token", fee.token, quote.sell_token, "sell_token (the relayer is paid in it)");
  } else if (quote.relayer_fee !== null) {
    // The taker would approve (and be shown) a debit beyond the sell amount.
    check.refuse("relayer_fee", "present", null, `a ${quoteCallFunction[call.kind]} quote pays no relayer`, "must be");
  }
}

/**
 * Decodes the order inside `tx.data` (and, for permit and gasless quotes, reads the typed-data
 * message) and refuses any difference from the request and the quote JSON: the function of the
 * settlement mode, sell and buy token, sell amount, recipient, a minimum other than
 * `min_buy_amount`, the deadline, the value, the signature slot, the relayer fee, a route other than
 * `route`, a fee to anyone but the integrator's fee recipient or above the fee asked for, and a permit
 * that differs from the call it authorises. Pure: reads no chain (verifyQuoteTargets checks the
 * contracts against the registry). Pass the router's V3 venue table (readRouterV3Venues) as `v3Venues`
 * to bind each V3 hop to the pool the quote names; without it a V3 hop is compared by its fee tier and
 * token only (verifyQuote always passes it). Throws QuoteMismatchError, QuoteFeeError or QuoteCalldataError,
 * naming the field; returns the decoded call.
 *
 * @example verifyQuoteOrder(quote, { taker: wallet.account.address, sellAmount: 1_000_000n, feeBps: 0 });
 */
export function verifyQuoteOrder(quote: QuoteJson, expected: QuoteExpectation, v3Venues?: RouterV3Venues): QuoteCall | ExactOutputQuoteCall {
  const check = new QuoteFieldCheck(quote.quote_id);
  verifyAgainstRequest(check, quote, expected);
  if (isExactOutputQuote(quote)) return verifyExactOutputQuoteOrder(check, quote, expected, v3Venues);

  const call = readQuoteCall(quote);

  const { order } = call;
  check.address("tx.data.order.sellToken", order.sellToken, quote.sell_token, "sell_token");
  check.amount("tx.data.order.sellAmount", order.sellAmount, BigInt(quote.sell_amount), "sell_amount");
  check.address("tx.data.order.buyToken", order.buyToken, quote.buy_token, "buy_token");
  const minimum = BigInt(quote.min_buy_amount);
  if (order.minBuyAmount < minimum) check.refuse("tx.data.order.minBuyAmount", order.minBuyAmount, minimum, "min_buy_amount", "is below");
  check.amount("tx.data.order.minBuyAmount", order.minBuyAmount, minimum, "min_buy_amount");
  return verifyRecipientDeadlineAndCall(check, quote, call, expected, v3Venues);
}

/**
 * What an exact-input and an exact-output order share once their amounts are checked: the recipient,
 * the deadline (`expires_at`), the call's own fields (value, signature slot, relayer fee), the route and
 * fee actions, and the permit against the call it authorises. Returns the call.
 */
export function verifyRecipientDeadlineAndCall<Call extends QuoteCall | ExactOutputQuoteCall>(
  check: QuoteFieldCheck,
  quote: QuoteJson,
  call: Call,
  expected: QuoteExpectation,
  v3Venues?: RouterV3Venues,
): Call {
  const { order } = call;
  const recipient = expected.recipient ?? expected.taker;
  check.address("tx.data.order.recipient", order.recipient, recipient, expected.recipient === undefined ? "the taker (no recipient asked for)" : "request recipient");
  const expiresMs = Date.parse(quote.expires_at);
  const expires = Number.isInteger(expiresMs / 1000) ? amountOf(expiresMs / 1000) : undefined;
  if (expires === undefined) return check.refuse("expires_at", quote.expires_at, "a whole second", "the order's deadline", "is not");
  check.amount("tx.data.order.deadline", order.deadline, expires, "expires_at");

  verifyCallFields(check, quote, call, expected);
  verifyQuoteActions(check, quote, order, expected, v3Venues);
  if (call.kind === "permit" || call.kind === "gasless") verifyQuotePermit(check, quote, call, expected.chainId ?? quote.chain_id, optionalAddress("expected.permit2", expected.permit2));
  return call;
}
