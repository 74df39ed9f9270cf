import type { TransactionReceipt } from "viem";
import { batchOrderOutcome, type BatchOrderOutcome } from "./batchOrderOutcome";
import { openTransactions } from "./inFlightCancellation";
import { findFill, isPermit2NonceUsed } from "./orderState";
import type { RelayContext } from "./relayContext";
import type { RelayRecord, RelayTransaction } from "./store/relayStore";
import { batchSkipGas, sharedGas, unpaidGasOfReceipt } from "./ledger/receiptCharge";

/** Broadcast a relay anew (its nonce went to something else, or its batch did not settle it and it goes alone). */
export type Rebroadcast = (relayId: string) => void;

/**
 * The relay's nonce was mined under one of our hashes: records what it means for the order (confirmed,
 * skipped in its batch, cancelled, expired, failed and counted against its taker). The caller lets
 * go of the nonce and stops following the relay.
 */
export async function recordMinedOutcome(context: RelayContext, rebroadcast: Rebroadcast, relay: RelayRecord, receipt: TransactionReceipt, ours: RelayTransaction[]): Promise<void> {
  const { store, logger } = context;
  const mined = ours.find((transaction) => transaction.hash.toLowerCase() === receipt.transactionHash.toLowerCase())!;
  const at = context.now();
  const inBatch = mined.kind === "swap" && mined.batch !== undefined ? (receipt.status === "success" ? batchOrderOutcome(receipt, relay, mined.batch.position) : ({ kind: "reverted" } as const)) : undefined;
  if (inBatch !== undefined && inBatch.kind !== "settled" && inBatch.kind !== "absent") {
    await recordBatchMiss(context, rebroadcast, relay, receipt, inBatch, mined.batch!);
  } else if (mined.kind === "swap" && receipt.status === "success" && (inBatch === undefined || inBatch.kind === "settled")) {
    await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: receipt.transactionHash }, at });
    logger.info({ relayId: relay.id, hash: receipt.transactionHash, block: receipt.blockNumber, gasUsed: receipt.gasUsed }, "relay confirmed");
  } else {
    const fill = await findFill(context.client, context.permit2, relay);
    if (fill !== undefined) {
      await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at });
      logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from }, "relay confirmed (a copier's transaction filled it first)");
    } else if (mined.kind === "cancel" && relay.cancelRequestedAt !== undefined) {
      // The integrator cancelled a swap already broadcast: the self-transfer that replaced it is gas
      // the operator paid for the integrator's request (charged first, so a crash before the update
      // below still charges it once).
      await store.recordUnpaidGas({
        ...unpaidGasOfReceipt(relay, receipt, at),
        gasUsed: sharedGas(receipt, mined),
        cause: "integrator",
        kind: "cancel_replacement",
        detail: `the integrator cancelled the relay after its swap was broadcast; the self-transfer that replaced it was mined in block ${receipt.blockNumber}`,
      });
      if ((await openTransactions(context, relay, mined)) > 0) {
        // Our cancel won at our nonce, but a swap of it another relayer sent (one that died) may still
        // mine at that relayer's nonce: it goes back to the queue, which waits for the chain to decide.
        await store.updateRelay(relay.id, { mined: { hash: receipt.transactionHash }, releaseSigner: true, at });
        logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "cancel mined; another relayer's recorded swap may still mine, so the relay waits for a fill or its deadline");
        rebroadcast(relay.id);
      } else {
        await store.updateRelay(relay.id, { status: "cancelled", error: "cancelled by the integrator: a self-transfer at the swap's nonce was mined instead", mined: { hash: receipt.transactionHash }, at });
        logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; its replacement was mined");
      }
    } else if (mined.kind === "cancel") {
      // The deadline passed with the swap still pending (our fees or our queue were too slow): the
      // self-transfer that freed the nonce is the operator's own cost.
      await store.recordUnpaidGas({
        ...unpaidGasOfReceipt(relay, receipt, at),
        gasUsed: sharedGas(receipt, mined),
        cause: "operator",
        kind: "nonce_release",
        detail: `the quote's deadline passed before the swap was mined; a self-transfer freed the nonce in block ${receipt.blockNumber}`,
      });
      await store.updateRelay(relay.id, { status: "expired", reason: "deadline_passed", error: "the quote's deadline passed before the swap was mined", mined: { hash: receipt.transactionHash }, at });
      logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay expired; its nonce was freed");
    } else {
      const nonceUsed = await isPermit2NonceUsed(context.client, context.permit2, relay);
      // Cancelled, and the taker spent the order's nonce on chain as the cancellation told them to: the
      // revert is the cancellation taking effect, not the taker's fault; it is not counted against them.
      const cancelled = nonceUsed && (await store.getRelay(relay.id))?.cancelRequestedAt !== undefined;
      if (cancelled) {
        // The swap was already pending when the integrator cancelled, and reverted because the taker
        // did as the cancellation told it: the integrator's request cost this gas, not the taker.
        await store.recordUnpaidGas({
          ...unpaidGasOfReceipt(relay, receipt, at),
          cause: "integrator",
          kind: "reverted_swap",
          detail: `cancelled after its broadcast; the taker spent the order's Permit2 nonce and the swap reverted in block ${receipt.blockNumber}`,
        });
        await store.updateRelay(relay.id, { status: "cancelled", error: `cancelled: the taker's Permit2 nonce was spent before the swap, which reverted in block ${receipt.blockNumber}`, mined: { hash: receipt.transactionHash }, at });
        logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; the taker invalidated the order's nonce before the swap");
      } else {
        // Our gas was spent and no fee was paid: charged to the taker and the integrator (first, so a
        // crash before the update below still charges it; a second record is ignored). A relay sent
        // alone after its batch did not settle it is a failed retry.
        const retried = relay.transactions.some((transaction) => transaction.kind === "swap" && transaction.batch !== undefined);
        await store.recordUnpaidGas({
          ...unpaidGasOfReceipt(relay, receipt, at),
          cause: "taker",
          kind: retried ? "failed_retry" : "reverted_swap",
          detail: `the swap reverted in block ${receipt.blockNumber}${nonceUsed ? " (the order's Permit2 nonce was spent)" : ""}`,
        });
        await store.updateRelay(relay.id, {
          status: "failed",
          reason: nonceUsed ? "nonce_used" : "reverted",
          error: `the swap transaction reverted in block ${receipt.blockNumber}`,
          mined: { hash: receipt.transactionHash },
          at,
        });
        logger.warn({ relayId: relay.id, hash: receipt.transactionHash }, "relay failed: the swap reverted");
      }
    }
  }
}

/**
 * A mined batch that did not settle this relay: it skipped its order, or the batch reverted as a
 * whole. A copier's fill is the fill; a passed deadline ends it `expired`; a reason that may not
 * last (the pool moved, the router paused) or a batch reverted as a whole (nobody to blame) sends it
 * again alone, once (a relay that was in a batch goes out alone); any other skip, running out of its
 * gas cap included, ends it `failed` with the decoded reason, and is counted against its taker and
 * integrator like a reverted swap of its own.
 */
async function recordBatchMiss(
  context: RelayContext,
  rebroadcast: Rebroadcast,
  relay: RelayRecord,
  receipt: TransactionReceipt,
  outcome: Exclude<BatchOrderOutcome, { kind: "settled" | "absent" }> | { kind: "reverted" },
  slot: { position: number; size: number },
): Promise<void> {
  const { store, logger } = context;
  const at = context.now();
  const fill = await findFill(context.client, context.permit2, relay);
  const where = `batch transaction ${receipt.transactionHash} (block ${receipt.blockNumber}, position ${slot.position} of ${slot.size})`;
  if (fill !== undefined) {
    await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at });
    logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from }, "relay confirmed (another transaction filled it before its batch)");
    return;
  }
  if (outcome.kind === "skipped" && outcome.name === "SwapDeadlineExpired") {
    await store.updateRelay(relay.id, { status: "expired", reason: "deadline_passed", error: `the quote's deadline passed: skipped in ${where}: ${outcome.text}`, mined: { hash: receipt.transactionHash }, at });
    return;
  }
  // Its cancellation was asked while the batch was pending: not sent again, and (as for a relay of its
  // own) a skip because the taker spent the order's nonce is the cancellation taking effect, not counted.
  if (relay.cancelRequestedAt !== undefined) {
    await store.updateRelay(relay.id, { status: "cancelled", error: `cancelled by the integrator; its order was not settled in ${where}`, mined: { hash: receipt.transactionHash }, at });
    logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; its order was not settled by its batch");
    return;
  }
  if (outcome.kind === "reverted" || outcome.transient) {
    logger.warn({ relayId: relay.id, hash: receipt.transactionHash, reason: outcome.kind === "skipped" ? outcome.text : "the batch reverted" }, "relay's order was not settled by its batch; sending it again alone");
    await store.updateRelay(relay.id, { releaseSigner: true, at });
    rebroadcast(relay.id);
    return;
  }
  const nonceUsed = outcome.name === "InvalidNonce" || (await isPermit2NonceUsed(context.client, context.permit2, relay));
  // Our gas was spent on it and no fee was paid: the same griefing as a reverted swap of its own.
  await store.recordUnpaidGas({
    ...unpaidGasOfReceipt(relay, receipt, at),
    gasUsed: batchSkipGas(relay, receipt),
    cause: "taker",
    kind: "batch_skip",
    detail: `skipped in ${where}: ${outcome.text}`,
  });
  await store.updateRelay(relay.id, { status: "failed", reason: nonceUsed ? "nonce_used" : "reverted", error: `skipped in ${where}: ${outcome.text}`, mined: { hash: receipt.transactionHash }, at });
  logger.warn({ relayId: relay.id, hash: receipt.transactionHash, reason: outcome.text }, "relay failed: its order was skipped in its batch");
}
