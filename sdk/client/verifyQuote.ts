import type { QuoteJson } from "../wire/quoteJson";
import type { QuoteExpectation } from "./quoteExpectation";
import type { ChainReader } from "./tradingWallet";
import { verifyQuoteOrder } from "./verifyQuoteOrder";
import { verifyQuoteTargets, type TrustedContracts } from "./verifyQuoteTargets";

/**
 * Every check of a quote before anything is signed or sent: the contracts against the router registry
 * (verifyQuoteTargets; first, so a foreign router is reported as such), then what `tx.data` and the
 * permit message say against the request and the quote JSON (verifyQuoteOrder).
 */
export async function verifyQuote(reader: ChainReader, contracts: TrustedContracts, quote: QuoteJson, expected: QuoteExpectation): Promise<void> {
  await verifyQuoteTargets(reader, contracts, quote);
  verifyQuoteOrder(quote, expected);
}
