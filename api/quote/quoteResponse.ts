import type { Quote } from "./buildQuote";

/** JSON has no bigint: amounts travel as decimal strings, like the EIP-712 message values wallets sign. */
function jsonSafe(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (Array.isArray(value)) return value.map(jsonSafe);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, jsonSafe(inner)]));
  }
  return value;
}

/** The GET /quote response body (see README, "GET /quote"). */
export function quoteResponse(quote: Quote) {
  const { tx } = quote;
  return {
    quote_id: quote.quoteId,
    chain_id: quote.chainId,
    block_number: quote.blockNumber.toString(),
    sell_token: quote.sellToken,
    buy_token: quote.buyToken,
    sell_amount: quote.sellAmount.toString(),
    buy_amount: quote.buyAmount.toString(),
    min_buy_amount: quote.minBuyAmount.toString(),
    route: {
      hops: quote.hops.map((hop) => ({
        pool: hop.pool.address,
        source: hop.pool.source,
        token_in: hop.tokenIn,
        token_out: hop.tokenOut,
        amount_in: hop.amountIn.toString(),
        amount_out: hop.amountOut.toString(),
      })),
    },
    platform_fee: {
      token: quote.platformFee.token,
      amount: quote.platformFee.amount.toString(),
      bps: quote.platformFee.bps,
      recipient: quote.platformFee.recipient,
    },
    settlement: quote.settlement,
    expires_at: quote.expiresAt.toISOString(),
    tx: {
      to: tx.to,
      data: tx.data,
      value: tx.value.toString(),
      estimated_gas: tx.estimatedGas,
      ...(tx.signatureOffset === undefined ? {} : { signature_offset: tx.signatureOffset }),
    },
    ...(quote.permit2 === undefined ? {} : { permit2: jsonSafe(quote.permit2) }),
    issues: {
      allowance: quote.issues.allowance === null ? null : { spender: quote.issues.allowance.spender, actual: quote.issues.allowance.actual.toString() },
      balance:
        quote.issues.balance === null
          ? null
          : { token: quote.issues.balance.token, actual: quote.issues.balance.actual.toString(), expected: quote.issues.balance.expected.toString() },
    },
  };
}
