import { BaseError, type Hex } from "viem";
import { isRevertError, permit2Abi } from "../../sdk";
import { type ChainHead } from "../../sdk/chain/chainHead";
import { firstBroadcastFees } from "../../sdk/relay/firstBroadcastFees";
import { relayGasLimitOfCalldata } from "../../sdk/relay/relayGasLimit";
import type { ContractSignatureCheck } from "../services/onboardingSignature";
import { checkTakerSignature } from "./takerSignature";
import { relayCalldata } from "./relayCalldata";
import { ApiError } from "../../sdk/server/apiError";
import type { ChainContext } from "../chains/chainContext";
import type { GaslessConfig } from "../config";
import type { GaslessTerms, QuoteRecord } from "../store/store";
import { pausedFeatureOf } from "./pausedFeatureRevert";
import { orderEncoding } from "../quote/response/orderEncoding";

export type VerifiedSubmission = { data: Hex; deadline: bigint };

/** What the submission carries besides the order's signature, and how a smart wallet's check is bounded. */
export type SubmissionExtras = { approvalSignature: Hex | undefined; contractSignatureCheck: ContractSignatureCheck };

/**
 * Checks a gasless submission against exactly what was quoted, cheapest first, each failure a 4xx
 * naming the problem: the quote's deadline (chain time), the signature against the stored typed
 * data, and a simulation of the very transaction the relayer will send, with its gas limit and
 * first-broadcast fees (a recipient can tell a zero gas price, or an unbounded gas allowance, from the
 * real thing); a simulation that reverts says why: the taker's Permit2 nonce spent, the feature
 * paused, or the swap itself. Returns that transaction's calldata. One shared head read and one call
 * per submission: the nonce is read only when the simulation fails. A smart-wallet
 * taker's signature is asked of its ERC-1271 check (bounded gas and time), and an `approval_signature`
 * must be the taker's over the quote's offered token permit; the relayed call then carries it.
 */
export async function verifySubmission(
  chain: ChainContext,
  heads: ChainHead,
  quote: QuoteRecord & { gasless: GaslessTerms },
  signature: Hex,
  gasless: Pick<GaslessConfig, "priorityFeeWei" | "feeRecipient">,
  extras: SubmissionExtras,
): Promise<VerifiedSubmission> {
  const { gasless: terms } = quote;
  const { client, manifest } = chain;
  const head = await heads.fresh();
  // The router refuses any block past the deadline; the next block's earliest time is what counts (the
  // latest block may be hours old on a chain that mines on demand).
  if (head.nextTimestamp > terms.order.deadline) {
    throw new ApiError("quote_expired", `quote ${quote.quoteId} expired at ${new Date(Number(terms.order.deadline) * 1000).toISOString()}; request a fresh quote`);
  }
  // The witness type follows the order: GaslessSwapWitness, or GaslessExactOutputWitness for an exact output.
  const typedData = orderEncoding(terms.order).gaslessTypedData(
    { chainId: quote.chainId, permit2: manifest.contracts.permit2, router: quote.router, nonce: terms.permit2Nonce },
    { relayerFee: terms.relayerFee, relayerFeeRecipient: terms.relayerFeeRecipient },
  );
  await checkTakerSignature(client, quote, typedData, signature, extras);
  const data = relayCalldata(terms, signature, extras.approvalSignature);
  try {
    const gas = relayGasLimitOfCalldata(terms.estimatedGas, data);
    const fees = firstBroadcastFees(head.baseFeePerGas, gasless.priorityFeeWei);
    // Sent from the operator's fee recipient, given (only in this call) the ETH a relayer signer holds.
    await client.call({
      account: gasless.feeRecipient,
      to: quote.router,
      data,
      gas,
      ...fees,
      blockNumber: head.number,
      stateOverride: [{ address: gasless.feeRecipient, balance: gas * fees.maxFeePerGas + 10n ** 18n }],
    });
  } catch (error) {
    if (!isRevertError(error)) throw error;
    // A spent Permit2 nonce reverts the simulation too: read the bitmap only then, to say which.
    const bitmap = await client.readContract({ address: manifest.contracts.permit2, abi: permit2Abi, functionName: "nonceBitmap", args: [quote.taker, terms.permit2Nonce >> 8n], blockNumber: head.number });
    if ((bitmap & (1n << (terms.permit2Nonce & 0xffn))) !== 0n) {
      throw new ApiError("permit2_nonce_used", `the taker's Permit2 nonce ${terms.permit2Nonce} of this quote is already used; request a fresh quote`);
    }
    const paused = pausedFeatureOf(error);
    if (paused !== undefined) {
      throw new ApiError("feature_paused", `gasless swaps (feature ${paused}) are paused in the router registry, so the signed swap cannot be relayed now; retry later with the same idempotency_key while the quote is valid`);
    }
    throw new ApiError("simulation_failed", `the relayed swap does not simulate (${revertReason(error)}); check issues.balance and issues.allowance, or request a fresh quote`);
  }
  return { data, deadline: terms.order.deadline };
}

function revertReason(error: unknown): string {
  if (!(error instanceof BaseError)) return "reverted";
  const text = `${error.details ?? ""}`.trim() || error.shortMessage;
  return text.split("\n")[0]!.slice(0, 200);
}
