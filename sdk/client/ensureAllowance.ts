import { decodeFunctionResult, encodeFunctionData, erc20Abi, maxUint256, type Address, type Hash, type Hex } from "viem";
import { TransactionRevertedError } from "../errors/client";
import type { QuoteJson } from "../wire/quoteJson";
import type { ClientLogger } from "./clientLogger";
import type { ChainReader, TradingWallet } from "./tradingWallet";

/** A transaction for the taker to send as it is (its account signs it and pays its gas). */
export type UnsignedTransaction = { from: Address; to: Address; data: Hex; value: bigint };

/** How much the taker's debit is at most: the sell amount (an exact-output quote's max_sell_amount), plus the relayer's fee for a gasless quote. */
export function takerDebit(quote: QuoteJson): bigint {
  return BigInt(quote.max_sell_amount ?? quote.sell_amount) + (quote.relayer_fee === null ? 0n : BigInt(quote.relayer_fee.amount));
}

/**
 * The approval `issues.allowance` asks for, or undefined when there is none: Permit2 once per token with
 * the maximum (permits then bound each swap), the allowance holder for exactly the taker's debit (it
 * hands out only transient, exact allowances anyway). Its spender must have been verified first.
 */
export function approvalTransaction(quote: QuoteJson, from: Address): UnsignedTransaction | undefined {
  const issue = quote.issues.allowance;
  if (issue === null) return undefined;
  const amount = quote.settlement === "allowance" ? takerDebit(quote) : maxUint256;
  return { from, to: quote.sell_token, data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [issue.spender, amount] }), value: 0n };
}

/** The token's allowance of `owner` to `spender` now (the quote's issue may be older than another trade's approval). */
async function currentAllowance(reader: ChainReader, token: Address, owner: Address, spender: Address): Promise<bigint> {
  const { data } = await reader.call({ to: token, data: encodeFunctionData({ abi: erc20Abi, functionName: "allowance", args: [owner, spender] }) });
  return decodeFunctionResult({ abi: erc20Abi, functionName: "allowance", data: data ?? "0x" });
}

/**
 * When `issues.allowance` is set and the chain still lacks the allowance, sends its approval (spender
 * already verified) and waits for the receipt. Call it inside withWalletNonce: a concurrent trade of
 * the same wallet may have approved meanwhile, which the read here sees, and it sends no second one.
 */
export async function ensureAllowance(quote: QuoteJson, wallet: TradingWallet, reader: ChainReader, logger: ClientLogger): Promise<Hash | undefined> {
  const approval = approvalTransaction(quote, wallet.account.address);
  const spender = quote.issues.allowance?.spender;
  if (approval === undefined || spender === undefined) return undefined;
  if ((await currentAllowance(reader, quote.sell_token, wallet.account.address, spender)) >= takerDebit(quote)) return undefined;
  logger.info?.(`approving ${spender} to spend ${quote.sell_token}`);
  const hash = await wallet.sendTransaction({ account: wallet.account, chain: wallet.chain, to: approval.to, data: approval.data, value: 0n });
  const receipt = await reader.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new TransactionRevertedError(hash, "approval");
  return hash;
}
