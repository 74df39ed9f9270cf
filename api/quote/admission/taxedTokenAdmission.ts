import { ApiError } from "../../../sdk/server/apiError";
import type { ChainContext } from "../../chains/chainContext";
import type { SupportedToken } from "../../tokens/supportedTokens";
import { isTaxed, type TransferTax } from "../../tokens/transferTax";
import type { QuoteQuery } from "./quoteQuery";

const BPS = 10_000;

/** The transfer taxes of a quote's two tokens, as `token_metadata` shows them. */
export type QuoteTaxes = Readonly<{ sell: TransferTax; buy: TransferTax }>;

function describe(tax: TransferTax): string {
  return `buy ${tax.buyTaxBps} bps, sell ${tax.sellTaxBps} bps, transfer ${tax.transferTaxBps} bps`;
}

/** A 400 `token_taxed` whose body also names the parameter and the token, with its taxes. */
function taxed(parameter: "sell_token" | "buy_token", token: SupportedToken, tax: TransferTax, message: string): ApiError {
  return new ApiError("token_taxed", message, {
    body: { parameter, token: token.address, buy_tax_bps: tax.buyTaxBps, sell_tax_bps: tax.sellTaxBps, transfer_tax_bps: tax.transferTaxBps },
  });
}

/**
 * The two tokens' transfer taxes, and the refusals they call for, before any routing (400
 * `token_taxed`, naming the token):
 * - selling a token that taxes any transfer: the routers price each hop from the amount they send,
 *   so a pool that receives less than that refuses the swap (and a sell may start with a transfer to
 *   the router, which the transfer tax hits); such a quote could only revert;
 * - buying a token that keeps everything (10,000 bps), or that taxes the pool's payout when an
 *   integrator fee is asked: the fee is paid out of the router's balance, which the tax left short.
 * - buying an exact output (`buy_amount`) of a token that taxes transfers: the routers check the
 *   output they compute before the tax, so the recipient would get less than the exact amount bound
 *   in the signature, by a tax the token may change at will; quote it with sell_amount instead.
 * Buying a taxed token otherwise is quoted, with the buy tax taken out of `buy_amount` (buildQuote).
 */
export async function admitTaxedTokens(chain: ChainContext, query: Pick<QuoteQuery, "feeBps" | "feeBpsName"> & Partial<Pick<QuoteQuery, "buyAmount">>, sellToken: SupportedToken, buyToken: SupportedToken): Promise<QuoteTaxes> {
  const [sell, buy] = await Promise.all([chain.taxes.of(sellToken.address), chain.taxes.of(buyToken.address)]);
  if (isTaxed(sell)) {
    throw taxed(
      "sell_token",
      sellToken,
      sell,
      `sell_token ${sellToken.symbol} (${sellToken.address}) takes a tax from its transfers (${describe(sell)}): selling it is refused, since the pool would receive less than the route sends and the swap would revert`,
    );
  }
  if (buy.buyTaxBps >= BPS) {
    throw taxed("buy_token", buyToken, buy, `buy_token ${buyToken.symbol} (${buyToken.address}) keeps everything its pool pays out (${describe(buy)}): nothing can be bought`);
  }
  if (isTaxed(buy) && query.buyAmount !== undefined) {
    throw taxed(
      "buy_token",
      buyToken,
      buy,
      `buy_token ${buyToken.symbol} (${buyToken.address}) takes a tax from its transfers (${describe(buy)}): an exact output (buy_amount) of it cannot be guaranteed, since the tax is taken after the router checks the output; ask with sell_amount instead (the tax is then taken out of buy_amount and min_buy_amount)`,
    );
  }
  if (isTaxed(buy) && query.feeBps > 0) {
    throw taxed(
      "buy_token",
      buyToken,
      buy,
      `buy_token ${buyToken.symbol} (${buyToken.address}) takes a tax from its transfers (${describe(buy)}): an integrator fee (${query.feeBpsName}) cannot be taken from it, since the router pays the fee out of an output the tax has already cut; ask without ${query.feeBpsName}`,
    );
  }
  return { sell, buy };
}

/** `gross` of the buy token less its buy tax, rounded against the taker (the measured tax is rounded up too). */
export function afterBuyTax(gross: bigint, tax: TransferTax): bigint {
  const bps = BigInt(tax.buyTaxBps);
  return gross - (gross * bps + BigInt(BPS) - 1n) / BigInt(BPS);
}
