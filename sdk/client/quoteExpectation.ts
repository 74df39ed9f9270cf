import type { Address } from "viem";
import type { AddressInput } from "./addressInput";

/**
 * What a quote must answer, from the caller's side: the request and who trades. `verifyQuoteOrder`
 * compares the order inside `tx.data` (and the permit message) against it and the quote JSON.
 * Absent fields are checked against the quote JSON alone.
 */
export type QuoteExpectation = {
  /** Who signs (gasless: the order's `taker`) or sends the transaction; a checked address string (the client refuses another with AddressInputError). */
  taker: AddressInput;
  /** Who must receive the output; default `taker`. */
  recipient?: AddressInput;
  /** Token addresses (any case) or "ETH"; symbols resolved by the API cannot be compared and are skipped. */
  sellToken?: string;
  buyToken?: string;
  /** Exact input: the sell amount asked, in base units. */
  sellAmount?: bigint | string;
  /** Exact output: the buy amount asked, in base units; the quote must then be exact-output and buy exactly this. */
  buyAmount?: bigint | string;
  /** The integrator fee asked for: a route paying more is refused. Default: the quote's `platform_fee.bps`. */
  feeBps?: number;
  /** With it, `min_buy_amount` must be at least `buy_amount` less this slippage (exact output: `max_sell_amount` at most `sell_amount` plus it). */
  slippageBps?: number;
  /** Whether a gasless quote was asked for. */
  gasless?: boolean;
  /** The chain the quote must be for (quote `chain_id` and the permit's domain). */
  chainId?: number;
  /** The integrator's fee recipient (the key's `integrator_fee_recipient`): the only address a route may pay a fee to. Default: the quote's `platform_fee.recipient`. */
  feeRecipient?: AddressInput;
  /** The chain's Permit2 the permit's domain must name (the chain file's `permit2`); default the canonical PERMIT2_ADDRESS. verifyQuote fills it from the client's `contracts.permit2`. */
  permit2?: AddressInput;
};

/** The request of GET /quote, as the client sends it (see QuoteParameters). */
export type QuoteRequestFields = {
  chainId?: number;
  sellToken: string;
  buyToken: string;
  /** Exactly one of sellAmount and buyAmount. */
  sellAmount?: bigint | string;
  buyAmount?: bigint | string;
  /** `token`: the amount is in whole tokens with a decimal point ("1.5"); default base units. */
  amountUnit?: "base" | "token";
  taker: AddressInput;
  slippageBps?: number;
  recipient?: AddressInput;
  feeBps?: number;
  gasless?: boolean;
};

/** The API's slippage tolerance when a request gives none (GET /quote's `slippage_bps` default). */
export const API_DEFAULT_SLIPPAGE_BPS = 100;

/**
 * The expectation a request sets. The API's defaults apply where the request is silent: no fee
 * (fee_bps 0) and the taker as recipient; `signer` is who will sign or send, when not the taker.
 */
export function expectationOfRequest(request: QuoteRequestFields, extra: { signer?: Address; chainId: number; feeRecipient?: Address }): QuoteExpectation {
  return {
    taker: extra.signer ?? request.taker,
    recipient: request.recipient ?? request.taker,
    sellToken: request.sellToken,
    buyToken: request.buyToken,
    // An amount in whole tokens is converted by the API with the token's decimals, which the client
    // does not know: it is then checked against the order only (tx.data against the quote JSON).
    ...(request.amountUnit === "token" ? {} : { sellAmount: request.sellAmount, buyAmount: request.buyAmount }),
    feeBps: request.feeBps ?? 0,
    // An exact-output quote's signed maximum is bound by nothing else: the API's default (100) holds it
    // when the request is silent. An exact input keeps the request's own (its debit is fixed anyway).
    slippageBps: request.slippageBps ?? (request.buyAmount !== undefined ? API_DEFAULT_SLIPPAGE_BPS : undefined),
    gasless: request.gasless === true,
    chainId: request.chainId ?? extra.chainId,
    feeRecipient: extra.feeRecipient,
  };
}
