import type { Hex } from "viem";
import { QuoteKindError } from "../errors/client";
import type { QuoteJson } from "../wire/quoteJson";
import { approvalTransaction, type UnsignedTransaction } from "./ensureAllowance";
import { assertBalance, signedCalldata, simulateFromTaker, type ExecuteQuoteContext } from "./executeQuote";
import type { TradingWallet } from "./tradingWallet";
import { verifyQuote } from "./verifyQuote";

/** A taker-submitted quote signed and patched, not sent: what a custody or multisig flow proposes. */
export type SignedQuote = {
  quoteId: string;
  /** When set, send it (from the taker) before `transaction`: the approval `issues.allowance` asks for. */
  approval: UnsignedTransaction | undefined;
  /** The quote's transaction with the taker's permit signature patched in; send it from the taker unchanged. */
  transaction: UnsignedTransaction;
  /** The 65-byte Permit2 signature (permit quotes); undefined for native and allowance quotes, which need none. */
  signature: Hex | undefined;
  /** Whether `transaction` was simulated from the taker; it cannot be while an approval is still to be sent. */
  simulated: boolean;
};

/**
 * executeQuote without sending anything: the balance issue, the quote and router checks, the permit signed and
 * patched in at `tx.signature_offset`, and a simulation from the taker when no approval is pending. The
 * approval, if any, is returned unsent, so every transaction leaves through the caller's own channel.
 */
export async function signQuote(quote: QuoteJson, wallet: TradingWallet, { reader, contracts, expected }: Omit<ExecuteQuoteContext, "logger">): Promise<SignedQuote> {
  if (quote.gasless) throw new QuoteKindError(quote.quote_id, "is a gasless quote", "Use signGaslessQuote: a relayer sends it, so there is no transaction to hand back.");
  assertBalance(quote);
  await verifyQuote(reader, contracts, quote, expected ?? { taker: wallet.account.address });
  const from = wallet.account.address;
  const approval = approvalTransaction(quote, from);
  const { data, signature } = await signedCalldata(quote, wallet);
  if (approval === undefined) await simulateFromTaker(quote, data, wallet, reader);
  return { quoteId: quote.quote_id, approval, transaction: { from, to: quote.tx.to, data, value: BigInt(quote.tx.value) }, signature, simulated: approval === undefined };
}
