import { isAddressEqual, type Address, type Hex } from "viem";
import { PERMIT2_ADDRESS } from "../chain/permit2";
import { QuoteKindError } from "../errors/client";
import type { QuoteJson } from "../wire/quoteJson";
import { ensureAllowance } from "./ensureAllowance";
import { assertBalance, signedCalldata, simulateFromTaker, type ExecuteQuoteContext } from "./executeQuote";
import type { TradingWallet } from "./tradingWallet";
import { verifyQuote } from "./verifyQuote";
import { withWalletNonce } from "./walletNonceQueue";

/** What a gasless submission carries: the order's signature, and the token permit's when the quote offers one. */
export type GaslessSignatures = {
  /** The taker's signature of the quote's `permit2` order: `submitGasless`'s `signature`. */
  signature: Hex;
  /** The taker's signature of the quote's `approval` (an EIP-2612 permit of Permit2); `submitGasless`'s `approvalSignature`. Undefined when the quote offers none. */
  approvalSignature: Hex | undefined;
};

/** Whether the quote offers to approve Permit2 inside the relayed transaction (a token permit). */
export function offersTokenPermit(quote: QuoteJson): boolean {
  return quote.approval !== null && quote.approval !== undefined;
}

/**
 * The wallet's signature of a gasless quote's `approval` (the sell token's EIP-2612 permit of
 * Permit2), or undefined when the quote offers none. Refused unless it is this wallet's permit of
 * Permit2 (`permit2`: the chain's; default the canonical address) for exactly what the signed order lets Permit2 move. No transaction.
 */
export async function signGaslessApproval(quote: QuoteJson, wallet: TradingWallet, permit2: Address = PERMIT2_ADDRESS): Promise<Hex | undefined> {
  if (quote.approval === null || quote.approval === undefined) return undefined;
  const { eip712 } = quote.approval;
  if (eip712.message.owner.toLowerCase() !== wallet.account.address.toLowerCase() || !isAddressEqual(eip712.message.spender, permit2)) {
    throw new QuoteKindError(quote.quote_id, "has an approval for another owner or spender than this wallet and Permit2", "Request a fresh quote for this wallet.");
  }
  // The permit approves exactly what the signed order lets Permit2 move (sell amount plus fee), no more.
  if (quote.permit2 === undefined || BigInt(eip712.message.value) !== BigInt(quote.permit2.message.permitted.amount)) {
    throw new QuoteKindError(quote.quote_id, "has an approval for another amount than its order moves", "Request a fresh quote; do not sign it.");
  }
  const { EIP712Domain: _domain, ...types } = eip712.types;
  const { owner, spender, value, nonce, deadline } = eip712.message;
  return wallet.signTypedData({ account: wallet.account, domain: eip712.domain, types, primaryType: "Permit", message: { owner, spender, value: BigInt(value), nonce: BigInt(nonce), deadline: BigInt(deadline) } });
}

/**
 * Everything a gasless quote needs from the taker before submission, checked first (balance issue,
 * order, registry). When the quote offers a token permit: the order's and the permit's signatures,
 * and no transaction at all (a wallet without ETH trades), no simulation (the swap cannot pull before
 * the permit; the API simulates both at submission). Otherwise: the Permit2 approval when
 * `issues.allowance` asks for it (a transaction, taking the wallet's nonce turn), the order's
 * signature, and a simulation from the taker, exactly as the relayer will send it.
 */
export async function signGasless(quote: QuoteJson, wallet: TradingWallet, { reader, contracts, logger, expected }: ExecuteQuoteContext): Promise<GaslessSignatures> {
  if (!quote.gasless) throw new QuoteKindError(quote.quote_id, "is not a gasless quote", "Use executeQuote: the taker sends it.");
  assertBalance(quote);
  await verifyQuote(reader, contracts, quote, expected ?? { taker: wallet.account.address });
  if (offersTokenPermit(quote)) {
    const { signature } = await signedCalldata(quote, wallet);
    return { signature: signature!, approvalSignature: await signGaslessApproval(quote, wallet, contracts.permit2) };
  }
  await withWalletNonce(wallet.account.address, () => ensureAllowance(quote, wallet, reader, logger));
  const { data, signature } = await signedCalldata(quote, wallet);
  // Anyone may send a gasless swap, so the taker can simulate it exactly as the relayer will.
  await simulateFromTaker(quote, data, wallet, reader);
  return { signature: signature!, approvalSignature: undefined };
}
