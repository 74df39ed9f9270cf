import type { ApiKeyPrincipal } from "../../middleware/apiKeyAuth";
import type { QuoteRecord } from "../../store/store";
import type { Quote } from "./buildQuote";

/** What the store keeps of a served quote. */
export function quoteRecordOf(quote: Quote, principal: ApiKeyPrincipal, createdAt: Date): QuoteRecord {
  return {
    quoteId: quote.quoteId,
    chainId: quote.chainId,
    onchainId: quote.quoteIdBytes32,
    apiKeyId: principal.keyId,
    integratorId: principal.integratorId,
    taker: quote.taker,
    recipient: quote.order.recipient,
    sellToken: quote.sellToken,
    buyToken: quote.buyToken,
    sellAmount: quote.sellAmount,
    buyAmount: quote.buyAmount,
    minBuyAmount: quote.minBuyAmount,
    feeAmount: quote.platformFee.amount,
    settlement: quote.settlement,
    router: quote.router,
    blockNumber: quote.blockNumber,
    expiresAt: quote.expiresAt,
    createdAt,
    ...(quote.relayerFee === undefined || quote.permit2Nonce === undefined || quote.tx.signatureOffset === undefined
      ? {}
      : {
          gasless: {
            order: quote.order,
            permit2Nonce: quote.permit2Nonce,
            relayerFee: quote.relayerFee.amount,
            relayerFeeRecipient: quote.relayerFee.recipient,
            data: quote.tx.data,
            signatureOffset: quote.tx.signatureOffset,
            estimatedGas: quote.tx.estimatedGas,
            feeWei: quote.relayerFee.costWei,
            ...(quote.signatureKind === "eip1271" ? { signatureKind: "eip1271" as const } : {}),
            ...(quote.tokenPermit === undefined ? {} : { tokenPermit: quote.tokenPermit }),
          },
        }),
  };
}
