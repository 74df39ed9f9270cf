import type { Hex, TypedDataDomain } from "viem";
import { QuoteKindError } from "../errors/client";
import type { QuoteJson } from "../wire/quoteJson";
import type { TradingWallet } from "./tradingWallet";

/**
 * Signs the quote's `permit2` typed data with the wallet, exactly as served: only `EIP712Domain` is
 * removed from `types` (viem derives it from `domain`); message and witness are passed unchanged.
 */
export async function signQuotePermit(quote: QuoteJson, wallet: TradingWallet): Promise<Hex> {
  const permit2 = quote.permit2;
  if (permit2 === undefined) throw new QuoteKindError(quote.quote_id, `settlement ${quote.settlement} has no permit2 to sign`, "Send its tx unchanged with executeQuote.");
  const { EIP712Domain: _domainType, ...types } = permit2.types;
  return wallet.signTypedData({
    account: wallet.account,
    domain: permit2.domain as TypedDataDomain,
    types,
    primaryType: permit2.primaryType,
    message: permit2.message,
  });
}
