import type { Logger } from "pino";
import { isFinalRelayStatus } from "../../sdk";
import { timedMethods } from "../../sdk/observability/timedMethods";
import type { RelayerMetrics } from "../relayerMetrics";
import type { RelayStore } from "./relayStore";
import { unpaidWei } from "../ledger/unpaidGas";

/**
 * The relay store as the relayer uses it: every status change of a relay is logged with its id and
 * counted (by status and reason), a confirmation's latency from acceptance is observed, and every
 * operation's duration is measured. One place, so no code path can change a relay unseen.
 */
export function observedRelayStore(store: RelayStore, metrics: RelayerMetrics, logger: Logger): RelayStore {
  const timed = timedMethods(store, (operation, seconds) => metrics.storeDuration.observe({ operation }, seconds));
  return Object.assign(Object.create(timed) as RelayStore, {
    createRelay: async (...args: Parameters<RelayStore["createRelay"]>) => {
      const creation = await timed.createRelay(...args);
      if (creation.outcome === "created") {
        metrics.relays.inc({ status: "accepted", reason: "" });
        logger.info({ relayId: creation.relay.id, status: "accepted", claimedBy: creation.relay.claimedBy }, "relay state changed");
      }
      return creation;
    },
    recordBroadcast: async (...args: Parameters<RelayStore["recordBroadcast"]>) => {
      const [relayId, transaction] = args;
      const before = await timed.getRelay(relayId);
      const recording = await timed.recordBroadcast(...args);
      if (recording !== "recorded") {
        const why = recording === "lapsed" ? "this relayer's lease on the relay ran out" : "relay was taken over";
        logger.warn({ relayId, owner: before?.claimedBy, hash: transaction.hash }, `${why} before its transaction was recorded; not sending it`);
        return recording;
      }
      metrics.broadcasts.inc({ kind: transaction.kind });
      if (before?.status === "accepted") {
        metrics.relays.inc({ status: "submitted", reason: "" });
        logger.info({ relayId, status: "submitted", hash: transaction.hash, signer: transaction.signer, nonce: transaction.nonce }, "relay state changed");
      }
      return recording;
    },
    requestCancellation: async (...args: Parameters<RelayStore["requestCancellation"]>) => {
      const request = await timed.requestCancellation(...args);
      // The one status change that does not go through updateRelay: a relay cancelled before any broadcast.
      if (request?.decision === "cancelled") {
        metrics.relays.inc({ status: "cancelled", reason: "" });
        logger.info({ relayId: request.relay.id, status: "cancelled", final: true }, "relay state changed");
      } else if (request?.decision === "cancelling") logger.info({ relayId: request.relay.id, status: request.relay.status }, "relay cancellation requested; replacing its pending swap");
      return request;
    },
    updateRelay: async (...args: Parameters<RelayStore["updateRelay"]>) => {
      const [relayId, update] = args;
      await timed.updateRelay(...args);
      if (update.status === undefined) return;
      const relay = await timed.getRelay(relayId);
      metrics.relays.inc({ status: update.status, reason: update.reason ?? "" });
      if (update.status === "confirmed" && relay !== undefined) metrics.confirmationSeconds.observe((update.at.getTime() - relay.createdAt.getTime()) / 1000);
      logger.info({ relayId, status: update.status, reason: update.reason, hash: update.mined?.hash, final: isFinalRelayStatus(update.status) }, "relay state changed");
    },
    recordUnpaidGas: async (...args: Parameters<RelayStore["recordUnpaidGas"]>) => {
      const [entry] = args;
      const written = await timed.recordUnpaidGas(...args);
      if (!written) return written;
      const fields = { relayId: entry.relayId, hash: entry.txHash, cause: entry.cause, kind: entry.kind, gasUsed: entry.gasUsed.toString(), weiPaid: unpaidWei(entry).toString(), detail: entry.detail };
      // The operator's own costs (a pause, a migration, our fees or nonces) are ours to act on: warn.
      if (entry.cause === "operator") logger.warn(fields, "unpaid gas caused by the operator");
      else logger.info({ ...fields, taker: entry.taker, integratorId: entry.integratorId }, "unpaid gas recorded");
      return written;
    },
  });
}
