import { parseTransaction } from "viem";
import type { BlockHead as Head } from "../../sdk/chain/chainHead";
import { replaceBatch } from "../batching/batchBroadcast";
import { isRetryableSend, sendRaw, signPersistSend, type SendOutcome } from "./broadcaster";
import { replacementFees, type Fees } from "./feeBump";
import type { RelayContext } from "../queue/relayContext";
import type { Signer } from "./signerPool";
import type { RelayRecord, RelayTransaction } from "../store/relayStore";

/**
 * A pending batch transaction, followed by one of its members per tick (the leader): past any
 * member's deadline it is rebuilt without the expired ones (a cancel when none is left), stuck past
 * RELAYER_RESUBMIT_SECONDS it is replaced whole at bumped fees. A member left out of a rebuilt batch
 * only waits for its nonce to be mined (see replaceBatch).
 */
export async function advancePendingBatch(
  context: RelayContext,
  relay: RelayRecord,
  signer: Signer,
  latest: RelayTransaction,
  head: Head,
  tracked: { resend: boolean },
  batchLeaders: Set<string>,
): Promise<void> {
  const { store, config, logger } = context;
  const nonce = latest.nonce;
  const newest = await store.latestAtNonce(signer.address, nonce);
  if (newest !== undefined && newest.toLowerCase() !== latest.hash.toLowerCase()) return;
  const key = `${signer.address}:${nonce}`;
  if (batchLeaders.has(key)) return;
  batchLeaders.add(key);
  const previous = { hash: latest.hash, raw: latest.raw!, nonce, fees: { maxFeePerGas: latest.maxFeePerGas, maxPriorityFeePerGas: latest.maxPriorityFeePerGas }, router: relay.router };
  if (latest.kind === "swap") {
    const members = await store.batchMembers(latest.hash);
    const relays = await Promise.all(members.map((member) => (member.relayId === relay.id ? relay : store.getRelay(member.relayId))));
    // Members past their deadline, or whose cancellation was asked, leave the batch at once.
    const leaving = new Set(relays.filter((member) => member !== undefined && (head.nextTimestamp > member.deadline || member.cancelRequestedAt !== undefined)).map((member) => member!.id));
    if (leaving.size > 0) {
      const cancelling = relays.some((member) => member !== undefined && leaving.has(member.id) && member.cancelRequestedAt !== undefined);
      const replaced = await replaceBatch(context, signer, previous, { exclude: leaving, kind: "swap", head, cancelling });
      if ("resent" in replaced) tracked.resend = isRetryableSend(replaced.resent);
      else if (replaced.outcome !== "empty") {
        tracked.resend = isRetryableSend(replaced.outcome);
        if (replaced.kind === "cancel") for (const id of replaced.members) await store.updateRelay(id, { cancelling: true, at: context.now() });
        logger.info({ hash: replaced.hash, leaving: [...leaving], kind: replaced.kind }, "batch members expired or cancelled while pending; rebuilt the batch without them");
      }
      return;
    }
  }
  if (context.now().getTime() - latest.sentAt.getTime() >= config.resubmitSeconds * 1000) {
    const replaced = await replaceBatch(context, signer, previous, { exclude: new Set(), kind: latest.kind, head });
    tracked.resend = "resent" in replaced ? isRetryableSend(replaced.resent) : replaced.outcome !== "empty" && isRetryableSend(replaced.outcome);
    return;
  }
  if (tracked.resend) tracked.resend = isRetryableSend((await sendRaw(context.client, latest.raw!)).outcome);
}

/** A replacement at the same nonce with bumped fees: the same swap, or a cancel once the deadline passed. */
export async function replacePending(context: RelayContext, relay: RelayRecord, signer: Signer, latest: RelayTransaction, head: Head, kind: "swap" | "cancel"): Promise<SendOutcome> {
  const { config, client, store, logger } = context;
  const previous: Fees = { maxFeePerGas: latest.maxFeePerGas, maxPriorityFeePerGas: latest.maxPriorityFeePerGas };
  const fees = replacementFees(previous, { baseFeePerGas: head.baseFeePerGas, priorityFeePerGas: config.priorityFeeWei }, config.maxFeeWei);
  if (fees === undefined) {
    logger.warn({ relayId: relay.id, ceiling: config.maxFeeWei.toString() }, "fee ceiling reached; rebroadcasting without a bump");
    return (await sendRaw(client, latest.raw!)).outcome;
  }
  const gas = parseTransaction(latest.raw!).gas ?? BigInt(relay.estimatedGas);
  return signer.exclusive(async () => {
    const sent = await signPersistSend({ client, store, chainId: config.chainId, now: context.now, relayerId: config.relayerId }, signer, relay.id, {
      kind,
      nonce: latest.nonce,
      fees,
      to: relay.router,
      data: relay.data,
      gas,
    });
    context.metrics?.bumps.inc({ kind });
    logger.info({ relayId: relay.id, hash: sent.hash, kind, maxFeePerGas: fees.maxFeePerGas.toString(), outcome: sent.outcome }, "replacement broadcast");
    return sent.outcome;
  });
}
