import type { Selectable } from "kysely";
import { getAddress, type Address, type Hex } from "viem";
import type { ExactOutputOrder, SwapOrder } from "../../../sdk";
import type { QuotesTable } from "../apiSchema";
import type { GaslessTerms, QuoteRecord } from "../store";

/** A `quotes` row, as both engines return it: amounts as decimal text, gasless terms as JSON text. */
export function quoteRow(quote: QuoteRecord) {
  return {
    quote_id: quote.quoteId,
    chain_id: quote.chainId,
    onchain_id: quote.onchainId.toLowerCase(),
    api_key_id: quote.apiKeyId,
    integrator_id: quote.integratorId,
    taker: quote.taker.toLowerCase(),
    recipient: quote.recipient.toLowerCase(),
    sell_token: quote.sellToken.toLowerCase(),
    buy_token: quote.buyToken.toLowerCase(),
    sell_amount: quote.sellAmount.toString(),
    buy_amount: quote.buyAmount.toString(),
    min_buy_amount: quote.minBuyAmount.toString(),
    fee_amount: quote.feeAmount.toString(),
    settlement: quote.settlement,
    router: quote.router.toLowerCase(),
    block_number: quote.blockNumber,
    expires_at: quote.expiresAt.getTime(),
    created_at: quote.createdAt.getTime(),
    gasless: quote.gasless === undefined ? null : JSON.stringify(quote.gasless, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value)),
  };
}

type GaslessTermsJson = {
  /** An exact-output order has maxSellAmount and buyAmount in place of sellAmount and minBuyAmount. */
  order: Record<keyof SwapOrder, string> | Record<keyof ExactOutputOrder, string>;
  permit2Nonce: string;
  relayerFee: string;
  relayerFeeRecipient: string;
  data: string;
  signatureOffset: number;
  estimatedGas: number;
  /** Absent on quotes stored before the fee's worth was kept, and when gas is sponsored. */
  feeWei?: string;
  signatureKind?: "eip1271";
  tokenPermit?: { domain: { name: string; version: string; chainId: number; verifyingContract: string }; nonce: string; value: string; deadline: string };
};

function orderFromJson(order: GaslessTermsJson["order"]): SwapOrder | ExactOutputOrder {
  const end = { recipient: getAddress(order.recipient), deadline: BigInt(order.deadline), quoteId: order.quoteId as Hex, actions: order.actions as Hex };
  if ("maxSellAmount" in order) {
    return { sellToken: getAddress(order.sellToken), maxSellAmount: BigInt(order.maxSellAmount), buyToken: getAddress(order.buyToken), buyAmount: BigInt(order.buyAmount), ...end };
  }
  return { sellToken: getAddress(order.sellToken), sellAmount: BigInt(order.sellAmount), buyToken: getAddress(order.buyToken), minBuyAmount: BigInt(order.minBuyAmount), ...end };
}

function gaslessFromJson(text: string): GaslessTerms {
  const json = JSON.parse(text) as GaslessTermsJson;
  return {
    order: orderFromJson(json.order),
    permit2Nonce: BigInt(json.permit2Nonce),
    relayerFee: BigInt(json.relayerFee),
    relayerFeeRecipient: getAddress(json.relayerFeeRecipient),
    data: json.data as Hex,
    signatureOffset: json.signatureOffset,
    estimatedGas: json.estimatedGas,
    feeWei: json.feeWei === undefined ? undefined : BigInt(json.feeWei),
    ...(json.signatureKind === undefined ? {} : { signatureKind: json.signatureKind }),
    ...(json.tokenPermit === undefined
      ? {}
      : {
          tokenPermit: {
            domain: { ...json.tokenPermit.domain, verifyingContract: getAddress(json.tokenPermit.domain.verifyingContract) },
            nonce: BigInt(json.tokenPermit.nonce),
            value: BigInt(json.tokenPermit.value),
            deadline: BigInt(json.tokenPermit.deadline),
          },
        }),
  };
}

/** What the stores select: every column but the internal `id`. */
export type QuoteRow = Omit<Selectable<QuotesTable>, "id">;

/** Token addresses stay lowercase, as the quote response writes them; wallets come back checksummed. */
export function quoteFromRow(row: QuoteRow): QuoteRecord {
  return {
    quoteId: row.quote_id,
    chainId: row.chain_id,
    onchainId: row.onchain_id as Hex,
    apiKeyId: row.api_key_id,
    integratorId: row.integrator_id,
    taker: getAddress(row.taker),
    recipient: getAddress(row.recipient),
    sellToken: row.sell_token as Address,
    buyToken: row.buy_token as Address,
    sellAmount: BigInt(row.sell_amount),
    buyAmount: BigInt(row.buy_amount),
    minBuyAmount: BigInt(row.min_buy_amount),
    feeAmount: BigInt(row.fee_amount),
    settlement: row.settlement,
    router: getAddress(row.router),
    blockNumber: BigInt(row.block_number),
    expiresAt: new Date(row.expires_at),
    createdAt: new Date(row.created_at),
    ...(row.gasless === null ? {} : { gasless: gaslessFromJson(row.gasless) }),
  };
}
