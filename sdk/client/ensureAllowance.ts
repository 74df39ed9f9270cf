import { erc20Abi, maxUint256, type Hash } from "viem";
import { TransactionRevertedError } from "../errors/client";
import type { QuoteJson } from "../wire/quoteJson";
import type { ClientLogger } from "./clientLogger";
import type { ChainReader, TradingWallet } from "./tradingWallet";

/** How much the taker's debit is: the sell amount, plus the relayer's fee for a gasless quote. */
export function takerDebit(quote: QuoteJson): bigint {
  return BigInt(quote.sell_amount) + (quote.relayer_fee === null ? 0n : BigInt(quote.relayer_fee.amount));
}

/**
 * When `issues.allowance` is set, approves its spender (already verified) and waits for the receipt:
 * Permit2 once per token with the maximum (permits then bound each swap), the allowance holder for
 * exactly the taker's debit (it hands out only transient, exact allowances anyway).
 */
export async function ensureAllowance(quote: QuoteJson, wallet: TradingWallet, reader: ChainReader, logger: ClientLogger): Promise<Hash | undefined> {
  const issue = quote.issues.allowance;
  if (issue === null) return undefined;
  const amount = quote.settlement === "allowance" ? takerDebit(quote) : maxUint256;
  logger.info?.(`approving ${issue.spender} to spend ${quote.sell_token}`);
  const hash = await wallet.writeContract({
    account: wallet.account,
    chain: wallet.chain,
    address: quote.sell_token,
    abi: erc20Abi,
    functionName: "approve",
    args: [issue.spender, amount],
  });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new TransactionRevertedError(hash, "approval");
  return hash;
}
