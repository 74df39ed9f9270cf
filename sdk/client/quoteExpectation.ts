import type { Address } from "viem";

/**
 * What a quote must answer, from the caller's side: the request and who trades. `verifyQuoteOrder`
 * compares the order inside `tx.data` (and the permit message) against it and the quote JSON.
 * Absent fields are checked against the quote JSON alone.
 */
export type QuoteExpectation = {
  /** Who signs (gasless: the order's `taker`) or sends the transaction. */
  taker: Address;
  /** Who must receive the output; default `taker`. */
  recipient?: Address;
  /** Token addresses (any case) or "ETH"; symbols resolved by the API cannot be compared and are skipped. */
  sellToken?: string;
  buyToken?: string;
  sellAmount?: bigint | string;
  /** The integrator fee asked for: a route paying more is refused. Default: the quote's `platform_fee.bps`. */
  feeBps?: number;
  /** With it, `min_buy_amount` must be at least `buy_amount` less this slippage. */
  slippageBps?: number;
  /** Whether a gasless quote was asked for. */
  gasless?: boolean;
  /** The chain the quote must be for (quote `chain_id` and the permit's domain). */
  chainId?: number;
  /** The integrator's fee recipient (the key's `integrator_fee_recipient`): the only address a route may pay a fee to. Default: the quote's `platform_fee.recipient`. */
  feeRecipient?: Address;
};

/** The request of GET /quote, as the client sends it (see QuoteParameters). */
export type QuoteRequestFields = {
  chainId?: number;
  sellToken: string;
  buyToken: string;
  sellAmount: bigint | string;
  taker: Address;
  slippageBps?: number;
  recipient?: Address;
  feeBps?: number;
  gasless?: boolean;
};

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
    sellAmount: request.sellAmount,
    feeBps: request.feeBps ?? 0,
    slippageBps: request.slippageBps,
    gasless: request.gasless === true,
    chainId: request.chainId ?? extra.chainId,
    feeRecipient: extra.feeRecipient,
  };
}
