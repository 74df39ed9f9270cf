import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import type { ChainReader } from "./tradingWallet";
import { verifyQuoteOrder } from "./verifyQuoteOrder";
import { verifyQuoteTargets, type TrustedContracts } from "./verifyQuoteTargets";

/**
 * Every check of a quote before anything is signed or sent: what `tx.data` and the permit message
 * say against the request and the quote JSON (verifyQuoteOrder, no chain reads), then the contracts
 * against the router registry (verifyQuoteTargets).
 */
export async function verifyQuote(reader: ChainReader, contracts: TrustedContracts, quote: QuoteJson, expected: QuoteExpectation): Promise<void> {
  verifyQuoteOrder(quote, expected);
  await verifyQuoteTargets(reader, contracts, quote);
}
