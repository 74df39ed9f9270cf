import type { Hex, TransactionReceipt } from "viem";
import { attributeFailure } from "../attribution/attributeFailure";
import { unattributable } from "../attribution/decideCause";
import { AttributionReadError } from "../attribution/readFailure";
import type { BlockPosition } from "../attribution/pairStates";
import { batchOrderOutcome, type BatchOrderOutcome } from "../batching/batchOrderOutcome";
import { openTransactions } from "../cancellation/inFlightCancellation";
import { findFill, isPermit2NonceUsed } from "../intake/orderState";
import type { RelayContext } from "../queue/relayContext";
import type { RelayRecord, RelayTransaction } from "../store/relayStore";
import { batchSkipGas, sharedGas, unpaidGasOfReceipt } from "../ledger/receiptCharge";
import type { UnpaidGasEntry } from "../ledger/unpaidGas";

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
      if (mined.kind === "swap") {
        // Our swap reverted because a copier's fill came first: gas the operator paid, counted against nobody.
        await store.recordUnpaidGas({
          ...unpaidGasOfReceipt(relay, receipt, at),
          cause: "market",
          kind: "reverted_swap",
          detail: `a copier's transaction ${fill.hash} filled the order first; our swap reverted in block ${receipt.blockNumber}`,
        });
      }
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
        // A relay sent alone after its batch did not settle it is a failed retry.
        const retried = relay.transactions.some((transaction) => transaction.kind === "swap" && transaction.batch !== undefined);
        // Its own transaction: how much of its limit it burnt is a fact (a wallet that burns it is the taker's).
        const { gas: limit } = await context.client.getTransaction({ hash: receipt.transactionHash });
        await recordFailure(context, rebroadcast, relay, { blockNumber: receipt.blockNumber, transactionIndex: receipt.transactionIndex }, {
          hash: receipt.transactionHash,
          nonceUsed,
          where: `the swap transaction reverted in block ${receipt.blockNumber}`,
          charge: { ...unpaidGasOfReceipt(relay, receipt, context.now()), kind: retried ? "failed_retry" : "reverted_swap" },
          gas: { used: receipt.gasUsed, limit },
          cancelled: (await store.getRelay(relay.id))?.cancelRequestedAt !== undefined,
        });
      }
    }
  }
}

/**
 * Our gas was spent on the relay's order and no fee was paid: who caused it is decided from the
 * chain's own state (attribution/), never from its revert data. The taker's doing counts against the
 * taker and the integrator (first, so a crash before the update still counts it; a second record is
 * ignored) and ends the relay `failed`. The operator's or the market's counts against nobody: the
 * relay is sent once more if the latest block says it would now go through, and otherwise ends
 * `failed` (`market_moved` when a pool moved past its minimum). A relay whose cancellation was asked
 * (and whose nonce the taker did not spend) is attributed the same way but ends `cancelled`, never sent again.
 */
async function recordFailure(
  context: RelayContext,
  rebroadcast: Rebroadcast,
  relay: RelayRecord,
  position: BlockPosition,
  failure: { hash: Hex; nonceUsed: boolean; where: string; charge: Omit<UnpaidGasEntry, "cause" | "detail">; gas?: { used: bigint; limit: bigint }; cancelled: boolean },
): Promise<void> {
  const { store, logger } = context;
  const attribution = await attributeFailure(context, relay, position, failure.gas).catch(async (error: unknown) => {
    // A read the node keeps failing (pruned state, an error it always gives) would defer the relay for
    // ever: past the patience window it ends, blamed on nobody, the operator paying what it already paid.
    if (!(error instanceof AttributionReadError) || (await context.head.fresh()).number - position.blockNumber < BigInt(context.config.attributionPatienceBlocks)) throw error;
    logger.error({ relayId: relay.id, err: error.message, patienceBlocks: context.config.attributionPatienceBlocks }, "failed relay's attribution reads kept failing; settled as unattributable, counted against nobody");
    return unattributable(error, context.config.attributionPatienceBlocks);
  });
  const at = context.now();
  // Every cause is written to the ledger (the operator's and the market's are what it paid, counted
  // against nobody); the taker's counts against the taker's and the integrator's budgets, an unproven
  // one (cause integrator) against the integrator's only. Written first, so a crash before the
  // update still records it (a second write of the same entry is ignored).
  await store.recordUnpaidGas({ ...failure.charge, cause: attribution.cause, detail: `${failure.where}: ${attribution.detail}` });
  if (failure.cancelled) {
    await store.updateRelay(relay.id, { status: "cancelled", error: `cancelled by the integrator; ${failure.where}: ${attribution.detail}`, mined: { hash: failure.hash }, at });
    logger.info({ relayId: relay.id, hash: failure.hash, cause: attribution.cause }, "relay cancelled; its failed order was attributed from chain facts");
  } else if (attribution.cause === "taker") {
    await store.updateRelay(relay.id, { status: "failed", reason: failure.nonceUsed ? "nonce_used" : "reverted", error: `${failure.where}: ${attribution.detail}`, mined: { hash: failure.hash }, at });
    logger.warn({ relayId: relay.id, hash: failure.hash, cause: attribution.cause }, "relay failed; counted against its taker");
  } else if (attribution.retry) {
    logger.warn({ relayId: relay.id, hash: failure.hash, cause: attribution.cause, detail: attribution.detail }, "relay's order failed for a reason that has passed; sending it again");
    await store.updateRelay(relay.id, { releaseSigner: true, at });
    rebroadcast(relay.id);
  } else {
    await store.updateRelay(relay.id, { status: "failed", reason: attribution.market ? "market_moved" : "reverted", error: `${failure.where}: ${attribution.detail}`, mined: { hash: failure.hash }, at });
    logger.warn({ relayId: relay.id, hash: failure.hash, cause: attribution.cause }, attribution.cause === "integrator" ? "relay failed; unproven, counted against its integrator only" : "relay failed; counted against nobody");
  }
}

/**
 * A mined batch that did not settle this relay: it skipped its order, or the batch reverted as a
 * whole. A copier's fill is the fill; a block past the deadline ends it `expired`; a batch reverted as
 * a whole (the gate, nobody's order) sends it again alone; any skip is attributed from facts (see
 * recordFailure), never from its reason's bytes.
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
  const skipCharge = { ...unpaidGasOfReceipt(relay, receipt, at), gasUsed: batchSkipGas(relay, receipt), kind: "batch_skip" as const };
  if (fill !== undefined) {
    // A copier's fill came first, so the batch skipped (or reverted over) our order: counted against nobody.
    await store.recordUnpaidGas(
      outcome.kind === "reverted"
        ? { ...unpaidGasOfReceipt(relay, receipt, at), gasUsed: sharedGas(receipt, { batch: slot }), kind: "reverted_swap", cause: "market", detail: `${where} reverted; a copier's transaction ${fill.hash} had filled the order` }
        : { ...skipCharge, cause: "market", detail: `skipped in ${where}: a copier's transaction ${fill.hash} filled the order first` },
    );
    await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at });
    logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from }, "relay confirmed (another transaction filled it before its batch)");
    return;
  }
  // Expired by the block's own timestamp, not by the skip's reason (a wallet can revert with any bytes).
  if (outcome.kind === "skipped" && (await context.client.getBlock({ blockNumber: receipt.blockNumber })).timestamp > relay.deadline) {
    // Sent or kept pending past its deadline: our latency, the operator's own cost.
    await store.recordUnpaidGas({ ...skipCharge, cause: "operator", detail: `skipped in ${where}: the quote's deadline had passed at the block's timestamp` });
    await store.updateRelay(relay.id, { status: "expired", reason: "deadline_passed", error: `the quote's deadline passed: skipped in ${where}: ${outcome.text}`, mined: { hash: receipt.transactionHash }, at });
    return;
  }
  // Read afresh: the cancellation may have been asked after this relay's record was loaded.
  const cancelRequested = (await store.getRelay(relay.id))?.cancelRequestedAt !== undefined;
  if (outcome.kind === "reverted") {
    // Only the batch as a whole reverts here (the registry gate, its size, its gas): no member's doing.
    // Each member's entry is its even share of the transaction's gas.
    await store.recordUnpaidGas({
      ...unpaidGasOfReceipt(relay, receipt, at),
      gasUsed: sharedGas(receipt, { batch: slot }),
      cause: "operator",
      kind: "reverted_swap",
      detail: `${where} reverted as a whole (the router's gate, the batch's size or its gas): nobody's order`,
    });
    if (cancelRequested) {
      await store.updateRelay(relay.id, { status: "cancelled", error: `cancelled by the integrator; ${where} reverted as a whole`, mined: { hash: receipt.transactionHash }, at });
      logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; its batch reverted as a whole");
      return;
    }
    logger.warn({ relayId: relay.id, hash: receipt.transactionHash }, "relay's batch reverted as a whole; sending it again alone");
    await store.updateRelay(relay.id, { releaseSigner: true, at });
    rebroadcast(relay.id);
    return;
  }
  const nonceUsed = await isPermit2NonceUsed(context.client, context.permit2, relay);
  if (cancelRequested && nonceUsed) {
    // The taker spent the order's nonce as the cancellation told it: the skip is the cancellation taking
    // effect, the integrator's request (as for a relay of its own), not the taker's doing.
    await store.recordUnpaidGas({ ...skipCharge, cause: "integrator", detail: `skipped in ${where}: cancelled after its broadcast; the taker spent the order's Permit2 nonce` });
    await store.updateRelay(relay.id, { status: "cancelled", error: `cancelled: the taker's Permit2 nonce was spent before its batch, which skipped it (${where})`, mined: { hash: receipt.transactionHash }, at });
    logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; the taker invalidated the order's nonce before its batch");
    return;
  }
  // Anything else (a cancellation asked after the broadcast included) is attributed from facts: a
  // cancel request never makes a skip nobody's; a cancelled relay is only not sent again.
  await recordFailure(context, rebroadcast, relay, { blockNumber: receipt.blockNumber, transactionIndex: receipt.transactionIndex, logIndex: outcome.logIndex }, {
    hash: receipt.transactionHash,
    nonceUsed,
    where: `skipped in ${where}: ${outcome.text}`,
    charge: skipCharge,
    cancelled: cancelRequested,
  });
}
