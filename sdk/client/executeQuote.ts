import type { Hash, Hex, TransactionReceipt } from "viem";
import { patchSignature } from "../calldata/patchSignature";
import { InsufficientBalanceError, QuoteKindError, StaleQuoteError, TransactionRevertedError } from "../errors/client";
import type { QuoteJson } from "../wire/quoteJson";
import type { ClientLogger } from "./clientLogger";
import { ensureAllowance } from "./ensureAllowance";
import { signQuotePermit } from "./signQuotePermit";
import type { ChainReader, TradingWallet } from "./tradingWallet";
import type { QuoteExpectation } from "./quoteExpectation";
import { verifyQuote } from "./verifyQuote";
import { withWalletNonce } from "./walletNonceQueue";
import { isNativeToken } from "../tokens/native";
import type { TrustedContracts } from "./verifyQuoteTargets";

/** `expected`: the request the quote answers (default: the wallet as taker and recipient, the rest from the quote JSON). */
export type ExecuteQuoteContext = { reader: ChainReader; contracts: TrustedContracts; logger: ClientLogger; expected?: QuoteExpectation };

export type ExecutedQuote = { quoteId: string; hash: Hash; receipt: TransactionReceipt; approvalHash: Hash | undefined };

/** Refuses a quote whose `issues.balance` says the taker cannot pay. */
export function assertBalance(quote: QuoteJson): void {
  const balance = quote.issues.balance;
  if (balance !== null) throw new InsufficientBalanceError(balance.token, BigInt(balance.actual), BigInt(balance.expected));
}

/** `tx.data` with the taker's signature at `tx.signature_offset`, for permit and gasless quotes; unchanged otherwise. */
export async function signedCalldata(quote: QuoteJson, wallet: TradingWallet): Promise<{ data: Hex; signature: Hex | undefined }> {
  if (quote.permit2 === undefined || quote.tx.signature_offset === undefined) return { data: quote.tx.data, signature: undefined };
  const signature = await signQuotePermit(quote, wallet);
  return { data: patchSignature(quote.tx.data, quote.tx.signature_offset, signature), signature };
}

/** eth_call of the transaction from the taker: a failure means the quote no longer fills. */
export async function simulateFromTaker(quote: QuoteJson, data: Hex, wallet: TradingWallet, reader: ChainReader): Promise<void> {
  try {
    await reader.call({ account: wallet.account.address, to: quote.tx.to, data, value: BigInt(quote.tx.value) });
  } catch (cause) {
    throw new StaleQuoteError(quote.quote_id, cause);
  }
}

/**
 * Executes a taker-submitted quote (permit, allowance or native) with the taker's wallet: checks the
 * balance issue, verifies the order in tx.data against the request and the quote's contracts against
 * the registry (verifyQuote), approves when needed, signs the permit and patches the signature in,
 * simulates from the taker, sends, and waits for the receipt. Nothing else of the quote is changed.
 *
 * Trades of one wallet may run at once: its approvals and sends take turns (withWalletNonce). An
 * allowance-holder quote holds the wallet from its approval to its receipt, since its approval is
 * exactly its own debit and another trade's approval would overwrite it.
 */
export async function executeQuote(quote: QuoteJson, wallet: TradingWallet, { reader, contracts, logger, expected }: ExecuteQuoteContext): Promise<ExecutedQuote> {
  if (quote.gasless) throw new QuoteKindError(quote.quote_id, "is a gasless quote", "Use swapGasless (or signGaslessQuote + submitGasless): a relayer sends it.");
  assertBalance(quote);
  await verifyQuote(reader, contracts, quote, expected ?? { taker: wallet.account.address });
  const address = wallet.account.address;
  /** Signs, simulates and sends; `ownTurn` when the caller does not already hold the wallet's turn. */
  const signSimulateSend = async (ownTurn: boolean): Promise<Hash> => {
    const { data } = await signedCalldata(quote, wallet);
    await simulateFromTaker(quote, data, wallet, reader);
    logger.info?.(`sending quote ${quote.quote_id} to ${quote.tx.to}`);
    const send = () => wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to: quote.tx.to, data, value: BigInt(quote.tx.value) });
    return ownTurn ? withWalletNonce(address, send) : send();
  };
  let sent: { hash: Hash; approvalHash: Hash | undefined };
  if (quote.settlement === "allowance" && !isNativeToken(quote.sell_token)) {
    sent = await withWalletNonce(address, async () => {
      const approvalHash = await ensureAllowance(quote, wallet, reader, logger);
      const hash = await signSimulateSend(false);
      // The holder pulls exactly the approved debit: the next trade may approve only after this one is mined.
      await reader.waitForTransactionReceipt({ hash });
      return { hash, approvalHash };
    });
  } else {
    // Signing and simulating need no nonce: only the approval and the send take the wallet's turn.
    const approvalHash = await withWalletNonce(address, () => ensureAllowance(quote, wallet, reader, logger));
    sent = { hash: await signSimulateSend(true), approvalHash };
  }
  const receipt = await reader.waitForTransactionReceipt({ hash: sent.hash });
  if (receipt.status !== "success") throw new TransactionRevertedError(sent.hash, "swap");
  return { quoteId: quote.quote_id, hash: sent.hash, receipt, approvalHash: sent.approvalHash };
}
