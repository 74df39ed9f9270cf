import { gaslessPermitTypes, swapPermitTypes, withDomainType } from "../../sdk";
import type { Quote } from "./buildQuote";
import { approvalJson } from "./tokenPermitOffer";
import type { RouteHop } from "./routeSearch";

/** The same for every quote: built once. EIP712Domain is included, as the spec's clients expect. */
const PERMIT2_TYPES = withDomainType(swapPermitTypes);
const GASLESS_PERMIT2_TYPES = withDomainType(gaslessPermitTypes);

/** JSON has no bigint: amounts travel as decimal strings, which wallets sign as uint256 values. */
function permit2Json(permit2: NonNullable<Quote["permit2"]>) {
  const { message } = permit2;
  const { witness } = message;
  const gasless = "relayerFee" in witness;
  return {
    // The live service's clients read these at the top; they repeat message.nonce and message.deadline.
    nonce: message.nonce.toString(),
    deadline: message.deadline.toString(),
    domain: permit2.domain,
    types: gasless ? GASLESS_PERMIT2_TYPES : PERMIT2_TYPES,
    primaryType: permit2.primaryType,
    message: {
      permitted: { token: message.permitted.token, amount: message.permitted.amount.toString() },
      spender: message.spender,
      nonce: message.nonce.toString(),
      deadline: message.deadline.toString(),
      witness: {
        recipient: witness.recipient,
        buyToken: witness.buyToken,
        minBuyAmount: witness.minBuyAmount.toString(),
        deadline: witness.deadline.toString(),
        quoteId: witness.quoteId,
        actionsHash: witness.actionsHash,
        ...(gasless ? { relayerFee: witness.relayerFee.toString(), relayerFeeRecipient: witness.relayerFeeRecipient } : {}),
      },
    },
  };
}

function hopJson(hop: RouteHop) {
  return {
    pool: hop.pool.address,
    source: hop.pool.source,
    token_in: hop.tokenIn,
    token_out: hop.tokenOut,
    amount_in: hop.amountIn.toString(),
    amount_out: hop.amountOut.toString(),
  };
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
      hops: quote.hops.map(hopJson),
      legs: quote.legs.map((leg) => ({
        share_bps: leg.shareBps,
        sell_amount: leg.amountIn.toString(),
        buy_amount: leg.amountOut.toString(),
        hops: leg.hops.map(hopJson),
      })),
    },
    platform_fee: {
      token: quote.platformFee.token,
      amount: quote.platformFee.amount.toString(),
      bps: quote.platformFee.bps,
      recipient: quote.platformFee.recipient,
    },
    integrator_fee: { bps: quote.platformFee.bps, recipient: quote.platformFee.recipient, id: quote.integratorSlug },
    taker: quote.taker,
    slippage_bps: quote.slippageBps,
    route_stats: {
      candidate_paths: quote.routeStats.candidatePaths,
      successful_routes: quote.routeStats.successfulRoutes,
      failed_routes: quote.routeStats.candidatePaths - quote.routeStats.successfulRoutes,
    },
    settlement: quote.settlement,
    gasless: quote.relayerFee !== undefined,
    relayer_fee:
      quote.relayerFee === undefined
        ? null
        : {
            token: quote.sellToken,
            amount: quote.relayerFee.amount.toString(),
            recipient: quote.relayerFee.recipient,
            gas: quote.relayerFee.gas,
            gas_price: quote.relayerFee.gasPrice.toString(),
          },
    expires_at: quote.expiresAt.toISOString(),
    tx: {
      to: tx.to,
      data: tx.data,
      value: tx.value.toString(),
      estimated_gas: tx.estimatedGas,
      ...(tx.signatureOffset === undefined ? {} : { signature_offset: tx.signatureOffset }),
    },
    ...(quote.permit2 === undefined
      ? {}
      : { permit2: { ...permit2Json(quote.permit2), ...(quote.signatureKind === undefined ? {} : { signature_kind: quote.signatureKind }) } }),
    // Gasless quotes: the token permit that approves Permit2 in the relayed transaction, or null.
    ...(quote.signatureKind === undefined
      ? {}
      : { approval: quote.tokenPermit === undefined ? null : approvalJson(quote.tokenPermit, quote.taker, quote.permit2!.domain.verifyingContract) }),
    issues: {
      allowance: quote.issues.allowance === null ? null : { spender: quote.issues.allowance.spender, actual: quote.issues.allowance.actual.toString() },
      balance:
        quote.issues.balance === null
          ? null
          : { token: quote.issues.balance.token, actual: quote.issues.balance.actual.toString(), expected: quote.issues.balance.expected.toString() },
    },
  };
}
