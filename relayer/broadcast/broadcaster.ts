import type { Address, Hex, PublicClient } from "viem";
import { isNoAnswerWithoutExecution } from "../../sdk/rpc/noAnswer";
import { keccak256 } from "viem";
import type { Fees } from "./feeBump";
import type { Signer } from "./signerPool";
import type { BroadcastRefusal, RelayStore } from "../store/relayStore";
import { rpcErrorText } from "./rpcErrorText";

/**
 * What the node said to a raw transaction. `sent` includes "already known": it is in the mempool.
 * `busy` is a node that cannot take it now (a full txpool, a max fee below the next block's base fee):
 * the same transaction, or one with fresh fees, may be taken later. `nonce_gap` is a node that mines on
 * send (Hardhat's or Anvil's automine) refusing a nonce above the signer's next: an earlier transaction
 * of ours has not reached it yet, and this one goes in once that one does (a mempool node would queue
 * it). `refused` is anything else.
 */
export type SendOutcome = "sent" | "transient" | "busy" | "nonce_gap" | "nonce_too_low" | "underpriced" | "insufficient_funds" | "refused";

/** Outcomes after which the transaction is worth sending again later, unchanged or re-priced. */
export function isRetryableSend(outcome: SendOutcome): boolean {
  return outcome === "transient" || outcome === "busy" || outcome === "nonce_gap";
}

/**
 * Classifies a node's refusal of a raw transaction by its message (lowercase), as geth, Erigon,
 * Nethermind, Anvil and Hardhat word them.
 */
export function classifySendRefusal(text: string): SendOutcome {
  if (/already known|known transaction|already imported|already exists/.test(text)) return "sent";
  if (/nonce too low|nonce has already been used|nonce is too low/.test(text)) return "nonce_too_low";
  if (/nonce too high|nonce is too high/.test(text)) return "nonce_gap";
  if (/underpriced|replacement/.test(text)) return "underpriced";
  if (/insufficient funds|enough funds/.test(text)) return "insufficient_funds";
  if (/(txpool|transaction pool|tx pool|mempool) is full|too many (pending )?transactions|pool limit/.test(text)) return "busy";
  if (/less than (the )?block base fee|below (the )?block base fee|fee cap .*base fee|too low for the next block|maxfeepergas .*base ?fee/.test(text)) return "busy";
  return "refused";
}

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
    if (isNoAnswerWithoutExecution(error)) return { outcome: "transient", error: rpcErrorText(error) };
    const text = rpcErrorText(error);
    const outcome = classifySendRefusal(text);
    return outcome === "sent" ? { outcome } : { outcome, error: text };
  }
}

/**
 * The store's fence refused the write: another relayer claimed the relay (`not_ours`), or this one's
 * lease on it ran out (`lapsed`) between its checks and the write, or the relay ended or its
 * cancellation was asked (`ended`: cancelled before its first broadcast, say). Nothing was recorded or
 * sent, and the transaction's nonce is still the signer's to use.
 */
export class RelayLeaseError extends Error {
  override readonly name = "RelayLeaseError";
  constructor(
    readonly relayId: string,
    readonly refusal: BroadcastRefusal,
  ) {
    super(
      refusal === "not_ours"
        ? `relay ${relayId} was taken over by another relayer before its transaction was recorded; nothing was sent`
        : refusal === "ended"
          ? `relay ${relayId} ended (or its cancellation was asked) before its transaction was recorded; nothing was sent`
          : `this relayer's lease on relay ${relayId} ran out before its transaction was recorded; nothing was sent`,
    );
  }
}

/**
 * Signs `plan` with `signer`, writes the signed transaction to the store, and only then broadcasts it:
 * a crash between the two leaves a transaction the restarted relayer finds and sends again, never
 * one it does not know about. The write is fenced by this relayer's lease on the relay: if another
 * relayer took the relay over, or the lease lapsed, it throws `RelayLeaseError` and sends nothing.
 */
export async function signPersistSend(
  deps: { client: PublicClient; store: RelayStore; chainId: number; now: () => Date; relayerId: string; /** Told once the signed transaction is stored, before it is sent (stage timings). */ persisted?: () => void },
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
  const sentAt = deps.now();
  const transaction = {
    hash,
    kind: plan.kind,
    signer: signer.address,
    nonce: plan.nonce,
    raw,
    maxFeePerGas: plan.fees.maxFeePerGas,
    maxPriorityFeePerGas: plan.fees.maxPriorityFeePerGas,
    sentAt,
  };
  const recording = await deps.store.recordBroadcast(relayId, transaction, { owner: deps.relayerId, now: sentAt });
  if (recording !== "recorded") throw new RelayLeaseError(relayId, recording);
  // The latest signed at this nonce: what a reconciliation sends again if the node loses it.
  signer.nonces.signed(plan.nonce, raw);
  deps.persisted?.();
  const { outcome, error } = await sendRaw(deps.client, raw);
  return { hash, raw, outcome, ...(error === undefined ? {} : { error }) };
}
