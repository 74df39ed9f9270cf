import { findFill } from "./orderState";
import type { RelayContext } from "../queue/relayContext";
import type { RelayQueue } from "../queue/relayQueue";
import type { ReceiptWatcher } from "../receipts/receiptWatcher";
import type { RelayRecord } from "../store/relayStore";
import { errorSummary } from "../../sdk/errors/errorSummary";

/**
 * Picks up a relay this relayer just claimed: its own after a restart, or another relayer's whose
 * lease ran out. Transactions signed by one of our keys are followed again (the nonce held, what
 * was signed sent again). Transactions of another relayer's keys cannot be bumped here: if the
 * order was filled (a SwapSettled event for its quote, whoever sent it) the relay is confirmed with
 * that hash; otherwise its signer is released and it is broadcast with one of our keys. If the other
 * relayer's transaction was still pending and lands first, ours reverts on the spent Permit2 nonce
 * and the watcher records the winner's hash: the order fills once either way.
 *
 * Returns false when the chain could not be read (the caller retries); throws nothing else.
 */
export async function adoptRelay(context: RelayContext, relay: RelayRecord, queue: RelayQueue, watcher: ReceiptWatcher): Promise<"followed" | "queued" | "confirmed" | false> {
  const { store, pool, logger, client } = context;
  const signer = relay.signer === undefined ? undefined : pool.bySigner(relay.signer);
  if (signer !== undefined && relay.signerNonce !== undefined) {
    signer.nonces.hold(relay.signerNonce);
    watcher.track(relay.id, { resend: true });
    return "followed";
  }
  if (relay.signer !== undefined) {
    let fill;
    try {
      fill = await findFill(client, context.permit2, relay);
    } catch (error) {
      logger.warn({ relayId: relay.id, err: errorSummary(error) }, "cannot read the chain to take over relay; retrying");
      return false;
    }
    if (fill !== undefined) {
      await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at: context.now() });
      logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from, status: "confirmed" }, "relay confirmed (filled before the takeover)");
      return "confirmed";
    }
    await store.updateRelay(relay.id, { releaseSigner: true, at: context.now() });
    logger.info({ relayId: relay.id, previousSigner: relay.signer }, "relay taken over; broadcasting it with our own signer");
  }
  queue.enqueue(relay.id);
  return "queued";
}
