import { formatEther, formatUnits } from "viem";
import { exactOutputPermitTypes, gaslessExactOutputPermitTypes, gaslessPermitTypes, NATIVE_TOKEN, swapPermitTypes, withDomainType } from "../../../sdk";
import type { Quote } from "./buildQuote";
import { approvalJson } from "./tokenPermitOffer";
import { hopGasAt, hopsGas } from "../routing/prunedRouteSearch";
import type { RouteHop } from "../routing/routeSearch";
import { legName } from "../venues/venueAdapters";
import type { TransferTax } from "../../tokens/transferTax";

/** The same for every quote of a kind: built once. EIP712Domain is included, as the spec's clients expect. */
const TYPES_WITH_DOMAIN = new Map<object, ReturnType<typeof withDomainType>>(
  [swapPermitTypes, gaslessPermitTypes, exactOutputPermitTypes, gaslessExactOutputPermitTypes].map((types) => [types, withDomainType(types)]),
);

/** JSON has no bigint: amounts travel as decimal strings, which wallets sign as uint256 values. */
function permit2Json(permit2: NonNullable<Quote["permit2"]>) {
  const { message } = permit2;
  // Every witness field, in the type's order: the exact-input witnesses bind minBuyAmount, the
  // exact-output ones buyAmount and maxSellAmount; gasless ones add the relayer fee.
  const witness = Object.fromEntries(Object.entries(message.witness).map(([name, value]) => [name, typeof value === "bigint" ? value.toString() : value])) as Record<string, string>;
  return {
    // The live service's clients read these at the top; they repeat message.nonce and message.deadline.
    nonce: message.nonce.toString(),
    deadline: message.deadline.toString(),
    domain: permit2.domain,
    types: TYPES_WITH_DOMAIN.get(permit2.types) ?? withDomainType(permit2.types),
    primaryType: permit2.primaryType,
    message: {
      permitted: { token: message.permitted.token, amount: message.permitted.amount.toString() },
      spender: message.spender,
      nonce: message.nonce.toString(),
      deadline: message.deadline.toString(),
      witness,
    },
  };
}

/** A token's transfer taxes as `token_metadata` shows them (bps of the amount sent). */
function taxJson(tax: TransferTax) {
  return { buy_tax_bps: tax.buyTaxBps, sell_tax_bps: tax.sellTaxBps, transfer_tax_bps: tax.transferTaxBps };
}

/** A hop as `route` shows it: its venue (`source`), its pool in the live service's form (`leg`), its amounts and gas. */
function hopJson(hops: readonly RouteHop[], index: number, sharedRuns: boolean, chainId: number) {
  const hop = hops[index]!;
  return {
    pool: hop.pool.address,
    source: hop.pool.source,
    leg: legName(hop.pool, chainId),
    token_in: hop.tokenIn,
    token_out: hop.tokenOut,
    amount_in: hop.amountIn.toString(),
    amount_out: hop.amountOut.toString(),
    gas: hopGasAt(hops, index, sharedRuns),
  };
}

/** The live service's `platform_fee.fees[]`: one entry per fee taken, ours only from the buy token (the destination side). */
function platformFeeJson(fee: Quote["platformFee"]) {
  return {
    token: fee.token,
    amount: fee.amount.toString(),
    bps: fee.bps,
    recipient: fee.recipient,
    total_bps: fee.bps,
    fees:
      fee.bps === 0
        ? []
        : [
            {
              side: "destination",
              token: fee.token,
              symbol: fee.symbol,
              decimals: fee.decimals,
              bps: fee.bps,
              amount: fee.amount.toString(),
              amount_decimal: formatUnits(fee.amount, fee.decimals),
              recipient: fee.recipient,
            },
          ],
  };
}

/** The transaction's expected cost in ETH (see docs/integrators/quotes.md, "network_fee"). */
function networkFeeJson(fee: Quote["networkFee"]) {
  return {
    token: NATIVE_TOKEN,
    symbol: "ETH",
    decimals: 18,
    gas: String(fee.gas),
    gas_price: fee.gasPrice.toString(),
    gas_price_gwei: formatUnits(fee.gasPrice, 9),
    l1_fee: fee.l1FeeWei.toString(),
    amount: fee.amount.toString(),
    amount_eth: formatEther(fee.amount),
  };
}

/** The GET /price response body: everything of a quote but what only a firm quote has (quote_id, tx, permit2). */
export function priceResponse(quote: Quote) {
  const routeStats = {
    candidate_paths: quote.routeStats.candidatePaths,
    successful_routes: quote.routeStats.successfulRoutes,
    failed_routes: quote.routeStats.candidatePaths - quote.routeStats.successfulRoutes,
  };
  // A route of one path runs a venue's consecutive hops together (V4: one unlock); a SPLIT leg does not.
  const shared = quote.legs.length === 1;
  return {
    chain_id: quote.chainId,
    block_number: quote.blockNumber.toString(),
    sell_token: quote.sellToken,
    buy_token: quote.buyToken,
    sell_amount: quote.sellAmount.toString(),
    // Exact-output quotes: the most the taker spends (sell_amount is the input expected at the quote's block).
    ...(quote.maxSellAmount === undefined ? {} : { max_sell_amount: quote.maxSellAmount.toString() }),
    buy_amount: quote.buyAmount.toString(),
    min_buy_amount: quote.minBuyAmount.toString(),
    token_metadata: { sell_token: taxJson(quote.taxes.sell), buy_token: taxJson(quote.taxes.buy) },
    route: {
      hops: quote.legs.flatMap((leg) => leg.hops.map((_, index) => hopJson(leg.hops, index, shared, quote.chainId))),
      legs: quote.legs.map((leg) => ({
        share_bps: leg.shareBps,
        sell_amount: leg.amountIn.toString(),
        buy_amount: leg.amountOut.toString(),
        gas: hopsGas(leg.hops, shared),
        hops: leg.hops.map((_, index) => hopJson(leg.hops, index, shared, quote.chainId)),
      })),
    },
    platform_fee: platformFeeJson(quote.platformFee),
    integrator_fee: { bps: quote.platformFee.bps, recipient: quote.platformFee.recipient, id: quote.integratorSlug },
    network_fee: networkFeeJson(quote.networkFee),
    taker: quote.taker,
    slippage_bps: quote.slippageBps,
    ...routeStats,
    // The live service's integrators read these at the top level; route_stats keeps our own shape.
    route_stats: { ...routeStats, candidates_by_source: { ...quote.routeStats.bySource } },
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
    issues: {
      allowance: quote.issues.allowance === null ? null : { spender: quote.issues.allowance.spender, actual: quote.issues.allowance.actual.toString() },
      balance:
        quote.issues.balance === null
          ? null
          : { token: quote.issues.balance.token, actual: quote.issues.balance.actual.toString(), expected: quote.issues.balance.expected.toString() },
      simulationIncomplete: quote.issues.simulationIncomplete,
      // An unknown name in excluded_sources is refused with a 400 naming it, so none reaches a quote.
      invalidSourcesPassed: [] as string[],
    },
  };
}

/** The GET /quote response body (see docs/integrators/quotes.md): the price plus the quote's id, its tx and its Permit2 data. */
export function quoteResponse(quote: Quote) {
  const { tx } = quote;
  return {
    quote_id: quote.quoteId,
    ...priceResponse(quote),
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
    ...(quote.signatureKind === undefined || quote.permit2 === undefined
      ? {}
      : { approval: quote.tokenPermit === undefined ? null : approvalJson(quote.tokenPermit, quote.taker, quote.permit2.domain.verifyingContract) }),
  };
}
