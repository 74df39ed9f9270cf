import type { RelayContext } from "./relayContext";
import type { RelayQueue } from "./relayQueue";
import type { ReceiptWatcher } from "./receiptWatcher";

/**
 * After a start (or a crash), before any new work: every relay that is not final is reloaded. Those
 * with a signed transaction get their nonce held and are followed again (receipts of every known
 * hash, the signer's nonce, a rebroadcast of what was signed but not mined); those never broadcast go
 * back to the queue. One watcher pass then reconciles them with the chain.
 */
export async function recoverOpenRelays(context: RelayContext, queue: RelayQueue, watcher: ReceiptWatcher): Promise<{ followed: number; queued: number }> {
  const { store, pool, logger } = context;
  let followed = 0;
  let queued = 0;
  for (const relay of store.listOpenRelays()) {
    const signer = relay.signer === undefined ? undefined : pool.bySigner(relay.signer);
    if (signer !== undefined && relay.signerNonce !== undefined) {
      signer.nonces.hold(relay.signerNonce);
      watcher.track(relay.id, { resend: true });
      followed++;
    } else if (relay.signer !== undefined) {
      logger.error({ relayId: relay.id, signer: relay.signer }, "open relay was signed by a key that is not configured; add it back to RELAYER_PRIVATE_KEYS to finish it");
    } else {
      queue.enqueue(relay.id);
      queued++;
    }
  }
  await watcher.tick();
  if (followed + queued > 0) logger.info({ followed, queued }, "recovered open relays");
  return { followed, queued };
}
