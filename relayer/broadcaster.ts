import type { Address, Hex, PublicClient } from "viem";
import { keccak256 } from "viem";
import type { Fees } from "./feeBump";
import type { Signer } from "./signerPool";
import type { RelayStore } from "./store/relayStore";
import { isTransientRpcError, rpcErrorText } from "./transientRpcError";

/** What the node said to a raw transaction. `sent` includes "already known": it is in the mempool. */
export type SendOutcome = "sent" | "transient" | "nonce_too_low" | "underpriced" | "insufficient_funds" | "refused";

export type Broadcast = { hash: Hex; raw: Hex; outcome: SendOutcome; error?: string };

export type TransactionPlan = {
  kind: "swap" | "cancel";
  nonce: number;
  fees: Fees;
  /** The swap's target and calldata; a cancel is a zero-value transfer to the signer itself. */
  to: Address;
  data: Hex;
  gas: bigint;
};

/** Sends a signed transaction and classifies the node's answer; never throws. */
export async function sendRaw(client: PublicClient, raw: Hex): Promise<{ outcome: SendOutcome; error?: string }> {
  try {
    await client.sendRawTransaction({ serializedTransaction: raw });
    return { outcome: "sent" };
  } catch (error) {
    if (isTransientRpcError(error)) return { outcome: "transient", error: rpcErrorText(error) };
    const text = rpcErrorText(error);
    if (/already known|known transaction|already imported|already exists/.test(text)) return { outcome: "sent" };
    if (/nonce too low|nonce has already been used|nonce is too low/.test(text)) return { outcome: "nonce_too_low", error: text };
    if (/underpriced|replacement/.test(text)) return { outcome: "underpriced", error: text };
    if (/insufficient funds|enough funds/.test(text)) return { outcome: "insufficient_funds", error: text };
    return { outcome: "refused", error: text };
  }
}

/**
 * Signs `plan` with `signer`, writes the signed transaction to the store, and only then broadcasts it:
 * a crash between the two leaves a transaction the restarted relayer finds and sends again, never
 * one it does not know about.
 */
export async function signPersistSend(
  deps: { client: PublicClient; store: RelayStore; chainId: number; now: () => Date },
  signer: Signer,
  relayId: string,
  plan: TransactionPlan,
): Promise<Broadcast> {
  const raw = await signer.account.signTransaction({
    type: "eip1559",
    chainId: deps.chainId,
    nonce: plan.nonce,
    to: plan.kind === "cancel" ? signer.address : plan.to,
    data: plan.kind === "cancel" ? "0x" : plan.data,
    value: 0n,
    gas: plan.kind === "cancel" ? 21_000n : plan.gas,
    maxFeePerGas: plan.fees.maxFeePerGas,
    maxPriorityFeePerGas: plan.fees.maxPriorityFeePerGas,
  });
  const hash = keccak256(raw);
  await deps.store.recordBroadcast(relayId, {
    hash,
    kind: plan.kind,
    signer: signer.address,
    nonce: plan.nonce,
    raw,
    maxFeePerGas: plan.fees.maxFeePerGas,
    maxPriorityFeePerGas: plan.fees.maxPriorityFeePerGas,
    sentAt: deps.now(),
  });
  const { outcome, error } = await sendRaw(deps.client, raw);
  return { hash, raw, outcome, ...(error === undefined ? {} : { error }) };
}
