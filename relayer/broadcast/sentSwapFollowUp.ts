import type { Hex } from "viem";
import type { RelayContext } from "../queue/relayContext";
import type { RelayFollowUp } from "../queue/relayFollowUp";
import type { RelayRecord } from "../store/relayStore";
import { checkSent } from "./nonceReconciler";
import type { Signer } from "./signerPool";

/** What the broadcaster made of a single swap's send (broadcaster.ts `signPersistSend`). */
export type SentSwap = { hash: Hex; outcome: string; error?: string };

/**
 * What becomes of a relay sent alone at `nonce` on `signer`, by the node's answer: followed by the
 * watcher, signed again at a fresh nonce, or ended. Settles the signer's nonce and funding here (under
 * its lock, where this is called); the queue acts on the returned follow-up.
 */
export async function sentSwapFollowUp(context: RelayContext, relay: RelayRecord, signer: Signer, nonce: number, sent: SentSwap): Promise<RelayFollowUp> {
  const { store, pool, logger, now, client } = context;
  const { outcome, error } = sent;
  switch (outcome) {
    case "sent":
    case "transient":
    case "busy":
    case "nonce_gap":
      // Persisted either way: the watcher finds its receipt, or sends it again (a busy node, full or
      // below the base fee, may take it later; a nonce gap closes once the earlier transaction goes
      // in, or the gap is filled; if not, the stuck and deadline rules replace it). Ending it here
      // would release its nonce and open a hole every later swap of the signer falls into.
      if (outcome !== "sent" && outcome !== "transient") logger.warn({ relayId: relay.id, signer: signer.address, nonce, error }, "the node cannot take the swap now; sending it again later");
      // No answer, or an earlier nonce missing at the node: the signer's nonces are checked against the chain now.
      if (outcome === "transient" || outcome === "nonce_gap") context.reconciler.request(signer, outcome);
      return { then: "track", relayId: relay.id, resend: outcome !== "sent" };
    case "nonce_too_low":
    case "underpriced": {
      // The answer may be wrong (a retry of ours that went in, a lagging node, a proxy): the chain
      // decides. Ours at the node, or the nonce still free after "nonce too low": it is followed (and
      // sent again), never re-signed at a new nonce that would leave this one a hole.
      const found = await checkSent(client, signer.address, sent.hash, nonce).catch(() => undefined);
      if (found === "known" || found === undefined || (found === "absent" && outcome === "nonce_too_low")) {
        logger.warn({ relayId: relay.id, signer: signer.address, nonce, error, found: found ?? "unreadable" }, "the node refused the swap but the chain does not show its nonce taken; following it");
        context.reconciler.request(signer, outcome);
        return { then: "track", relayId: relay.id, resend: found !== "known" };
      }
      // Something else holds this nonce: sign again with a fresh one.
      logger.warn({ relayId: relay.id, signer: signer.address, nonce, error }, "nonce taken outside this relayer; re-signing");
      signer.nonces.release(nonce);
      signer.nonces.resync(Math.max(nonce + 1, await client.getTransactionCount({ address: signer.address, blockTag: "pending" }).catch(() => 0)));
      await store.updateRelay(relay.id, { releaseSigner: true, at: now() });
      pool.notify();
      // "Underpriced" may also mean our tip is below the node's minimum: do not spin on it.
      if (outcome === "underpriced") return { then: "wait", relayId: relay.id, details: { error }, message: "the node refused the tip; retrying later" };
      return { then: "requeue", relayId: relay.id, delayMs: 0 };
    }
    case "insufficient_funds":
      logger.error({ relayId: relay.id, signer: signer.address, error }, "signer cannot pay for gas; it gets no new work until funded");
      signer.funded = false;
      signer.nonces.release(nonce);
      await store.updateRelay(relay.id, { releaseSigner: true, at: now() });
      pool.notify();
      return { then: "requeue", relayId: relay.id, delayMs: 1_000 };
    default: {
      // A chain that mines on send (Hardhat's automine, an in-process chain) answers a swap that was
      // mined and reverted with an error: it is on chain, so the watcher ends it `failed` / `reverted`
      // and counts it against its taker, as for any other mined revert.
      const receipt = await client.getTransactionReceipt({ hash: sent.hash }).catch(() => undefined);
      if (receipt !== undefined) {
        logger.warn({ relayId: relay.id, hash: sent.hash, status: receipt.status, error }, "the node answered the swap with an error, but it was mined; following its receipt");
        return { then: "track", relayId: relay.id, resend: false };
      }
      signer.nonces.release(nonce);
      pool.notify();
      return { then: "end", relay, status: "failed", reason: "simulation_failed", error: `the node refused the transaction: ${error ?? "no reason given"}` };
    }
  }
}
