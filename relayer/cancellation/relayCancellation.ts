import { isFinalRelayStatus, type RelayCancelOutcome } from "../../sdk";
import { replaceBatch } from "../batching/batchBroadcast";
import { isRetryableSend, RelayLeaseError, signPersistSend, type SendOutcome } from "../broadcast/broadcaster";
import { cancelFees } from "../broadcast/feeBump";
import { resolveInFlightCancellation } from "./inFlightCancellation";
import type { RelayContext } from "../queue/relayContext";
import { relayOwnership } from "../queue/relayOwnership";
import type { Signer } from "../broadcast/signerPool";
import type { RelayRecord, RelayTransaction } from "../store/relayStore";
import { errorSummary } from "../../sdk/errors/errorSummary";

/** Told when a relay's latest transaction must be followed (and, with `resend`, sent again). */
export type TrackRelay = (relayId: string, options: { resend: boolean }) => void;

/** What a cancellation did: an outcome of the public answer, or `final` (the relay had already ended). */
export type RelayCancellation = { outcome: RelayCancelOutcome | "final"; relay: RelayRecord };

/**
 * What one attempt to replace a relay's pending swap with a cancel did: the node's answer, or why
 * nothing was sent (`ended`: final, another relayer's, or its lease lapsed; the owner's watcher acts).
 */
export type CancelReplacement = SendOutcome | "already_replaced" | "nonce_mined" | "ended";

/** A cancel the node could not take now: sent again from the store on the watcher's next ticks. */
export function isRetryableCancel(replaced: CancelReplacement): boolean {
  return replaced !== "already_replaced" && replaced !== "nonce_mined" && replaced !== "ended" && isRetryableSend(replaced);
}

/**
 * `POST /internal/relays/:id/cancel`. The store decides in one transaction (see
 * `RelayStore.requestCancellation`): a relay never broadcast ends `cancelled` at once and is never
 * sent; a relay whose swap is pending is marked, then its swap is replaced here with a zero-value
 * self-transfer at the same nonce (persisted before it is sent, like every transaction). A relay
 * another relayer follows, or whose signer this one does not hold, is replaced by its owner's watcher
 * on its next tick (it sees the mark). A relay with a swap on record but no signer of its own (one
 * that died sent it) cannot be replaced: it ends as the chain decides (resolveInFlightCancellation),
 * `cancelled` never before its recorded swaps can no longer mine. Undefined when there is no such relay.
 */
export async function cancelRelay(context: RelayContext, relayId: string, track: TrackRelay): Promise<RelayCancellation | undefined> {
  const request = await context.store.requestCancellation(relayId, context.now());
  if (request === undefined) return undefined;
  if (request.decision !== "cancelling") return { outcome: request.decision, relay: request.relay };
  const relay = request.relay;
  const signer = relay.signer === undefined ? undefined : context.pool.bySigner(relay.signer);
  const ours = relayOwnership(relay, context.config, context.now()) === "ours";
  let replaced: CancelReplacement | undefined;
  if (signer !== undefined && ours) {
    replaced = await replaceWithCancel(context, relay.id, signer);
    // Followed by the watcher in any case; one the node could not take now is sent again from the store.
    track(relay.id, { resend: isRetryableCancel(replaced) });
  } else if (relay.signer === undefined && ours) {
    // No signer of its own (taken over from a relayer that died, or its nonce went elsewhere), but a
    // swap on record: answered with what the chain says now; still open, the queue waits for it.
    // A chain that cannot be read now changes nothing: the mark is on record, and the answer is `cancelling`.
    await resolveInFlightCancellation(context, relay).catch((error: unknown) =>
      context.logger.warn({ relayId, err: errorSummary(error) }, "cannot read the chain for a cancelled relay's recorded swap; its queue job decides"),
    );
  }
  const now = (await context.store.getRelay(relay.id)) ?? relay;
  if (isFinalRelayStatus(now.status)) return { outcome: now.status === "cancelled" ? "cancelled" : "already_mined", relay: now };
  return { outcome: replaced === "nonce_mined" ? "already_mined" : "cancelling", relay: now };
}

/**
 * Replaces the relay's pending swap with a cancel at the same nonce, unless its latest transaction is
 * a cancel already (a repeated request adds nothing; the watcher bumps a stuck cancel) or the nonce is
 * mined (the chain has decided). Under the signer's lock, reading the relay again inside it, so the
 * request and the watcher's tick never sign two competing replacements from one stale view.
 */
export async function replaceWithCancel(context: RelayContext, relayId: string, signer: Signer): Promise<CancelReplacement> {
  const { client, config, store, logger } = context;
  const batched = await pendingBatchSwap(context, relayId, signer);
  if (batched !== undefined) return leaveBatch(context, batched.relay, signer, batched.latest);
  return signer.exclusive(async () => {
    const relay = await store.getRelay(relayId);
    if (relay === undefined || isFinalRelayStatus(relay.status) || relay.signerNonce === undefined || relay.signer !== signer.address) return "ended";
    const ours = relay.transactions.filter((transaction) => transaction.raw !== undefined && transaction.signer === signer.address && transaction.nonce === relay.signerNonce);
    const latest = ours.at(-1);
    if (latest === undefined) return "ended";
    if (latest.kind === "cancel") return "already_replaced";
    if ((await client.getTransactionCount({ address: signer.address, blockTag: "latest" })) > latest.nonce) return "nonce_mined";
    const head = await context.head.fresh();
    const fees = cancelFees(latest, { baseFeePerGas: head.baseFeePerGas, priorityFeePerGas: config.priorityFeeWei }, config.maxFeeWei);
    let sent;
    try {
      sent = await signPersistSend({ client, store, chainId: config.chainId, now: context.now, relayerId: config.relayerId }, signer, relay.id, {
        kind: "cancel",
        nonce: latest.nonce,
        fees,
        to: signer.address,
        data: "0x",
        gas: 21_000n,
      });
    } catch (error) {
      if (error instanceof RelayLeaseError) return "ended";
      throw error;
    }
    context.metrics?.bumps.inc({ kind: "cancel" });
    logger.info({ relayId, hash: sent.hash, nonce: latest.nonce, maxFeePerGas: fees.maxFeePerGas.toString(), outcome: sent.outcome, error: sent.error }, "cancellation: pending swap replaced with a self-transfer");
    return sent.outcome;
  });
}

/** The relay's pending swap when it is a batch transaction (which carries others), else undefined. */
async function pendingBatchSwap(context: RelayContext, relayId: string, signer: Signer): Promise<{ relay: RelayRecord; latest: RelayTransaction } | undefined> {
  const relay = await context.store.getRelay(relayId);
  if (relay === undefined || isFinalRelayStatus(relay.status) || relay.signer !== signer.address) return undefined;
  const latest = relay.transactions.filter((transaction) => transaction.raw !== undefined && transaction.signer === signer.address && transaction.nonce === relay.signerNonce).at(-1);
  return latest?.kind === "swap" && latest.batch !== undefined ? { relay, latest } : undefined;
}

/**
 * A cancelled relay whose swap is in a pending batch: the batch is signed again at its nonce without it
 * (fees bumped), rather than replaced by a self-transfer that would cancel every order in it. The relay
 * ends `cancelled` once its nonce is mined by the rebuilt batch (or `confirmed`, if the old one won).
 */
async function leaveBatch(context: RelayContext, relay: RelayRecord, signer: Signer, latest: RelayTransaction): Promise<CancelReplacement> {
  if ((await context.client.getTransactionCount({ address: signer.address, blockTag: "latest" })) > latest.nonce) return "nonce_mined";
  const previous = { hash: latest.hash, raw: latest.raw!, nonce: latest.nonce, fees: { maxFeePerGas: latest.maxFeePerGas, maxPriorityFeePerGas: latest.maxPriorityFeePerGas }, router: relay.router };
  const replaced = await replaceBatch(context, signer, previous, { exclude: new Set([relay.id]), kind: "swap", head: await context.head.fresh(), cancelling: true });
  if ("resent" in replaced) return replaced.resent;
  if (replaced.outcome === "empty") return "already_replaced";
  if (replaced.kind === "cancel") for (const id of replaced.members) await context.store.updateRelay(id, { cancelling: true, at: context.now() });
  context.logger.info({ relayId: relay.id, hash: replaced.hash, kind: replaced.kind, outcome: replaced.outcome }, "cancellation: the relay's batch was signed again without it");
  return replaced.outcome;
}

export { cancelFees };
