import PQueue from "p-queue";
import { isNoAnswer } from "../../sdk/rpc/noAnswer";
import { isFinalRelayStatus, isRevertError, type RelayReason, type RelayStatus } from "../../sdk";
import { relayGasLimitOfCalldata } from "../../sdk/relay/relayGasLimit";
import { type BlockHead } from "../../sdk/chain/chainHead";
import { fitsBatch } from "../batching/batchBroadcast";
import { SigningRefusedError } from "../signing/signingRefusedError";
import { RelayLeaseError, signPersistSend } from "../broadcast/broadcaster";
import { firstFees, type Fees } from "../broadcast/feeBump";
import { resolveInFlightCancellation } from "../cancellation/inFlightCancellation";
import { findFill, isPermit2NonceUsed } from "../intake/orderState";
import type { RelayContext } from "./relayContext";
import type { Signer } from "../broadcast/signerPool";
import type { RelayRecord } from "../store/relayStore";
import { rpcErrorText } from "../broadcast/rpcErrorText";
import { backoffMs } from "./retryBackoff";
import { relayOwnership } from "./relayOwnership";
import { BatchDispatcher } from "../batching/batchDispatcher";
import type { RelayFollowUp } from "./relayFollowUp";
import { sentSwapFollowUp } from "../broadcast/sentSwapFollowUp";
import { relayHoldReason, type RelayHold } from "./relayHold";

/** The longest pause between two looks at a cancelled relay whose recorded swap may still mine. */
const IN_FLIGHT_RECHECK_MS = 5_000;

/** Told when a relay has a broadcast transaction to follow. */
export type TrackRelay = (relayId: string, options: { resend: boolean }) => void;


/**
 * Schedules the first broadcast of each accepted relay (p-queue, one job per relay at a time). A job
 * checks the order can still fill, leases the least busy signer, then signs, persists and sends under
 * that signer's lock so nonces go out in order. A node that cannot be reached delays the job with
 * backoff; it never fails the relay.
 */
export class RelayQueue {
  readonly #queue: PQueue;
  readonly #queued = new Set<string>();
  readonly #attempts = new Map<string, number>();
  /** Relays that went back to wait (fee cap, refused tip, lapsed lease) in their last attempt. */
  readonly #waiting = new Set<string>();
  /** Relays whose last attempt waited because the gas limit's cost was above the signed fee. */
  readonly #belowCost = new Set<string>();
  readonly #timers = new Set<NodeJS.Timeout>();
  /** Relays that go out on their own even with batching on (their batch reverted as a whole, or was refused). */
  readonly #alone = new Set<string>();
  /** Batching (RELAYER_BATCH_MAX above 1): relays that passed their checks wait here for a signer. */
  readonly #batches: BatchDispatcher | undefined;
  #stopped = false;

  constructor(
    private readonly context: RelayContext,
    private readonly track: TrackRelay,
    /** The most gas one batch may take: RELAYER_BATCH_GAS, or a quarter of the block gas limit read at start. */
    options: { maxBatchGas?: bigint } = {},
  ) {
    const { pool, config } = context;
    this.#queue = new PQueue({ concurrency: Math.max(4, pool.capacity) });
    if (config.batch.max > 1) {
      this.#batches = new BatchDispatcher(
        context,
        {
          sendAlone: (relay, signer, sendOptions) => this.#sendAlone(relay, signer, sendOptions),
          follow: (followUps) => this.#follow(followUps),
        },
        config.batch.gas ?? options.maxBatchGas ?? 7_500_000n,
      );
    }
  }

  /** Queues the relay's broadcast unless it is queued already. */
  enqueue(relayId: string, delayMs = 0): void {
    if (this.#stopped || this.#queued.has(relayId)) return;
    this.#queued.add(relayId);
    const run = () => {
      // Signers added or retired while running (relayer-admin) change how many relays may run at once.
      const concurrency = Math.max(4, this.context.pool.capacity);
      if (this.#queue.concurrency !== concurrency) this.#queue.concurrency = concurrency;
      this.context.metrics?.stages.start(relayId);
      this.#queue
        .add(async () => {
          this.context.metrics?.stages.lap(relayId, "queue_wait");
          this.#queued.delete(relayId);
          await this.#broadcastFirst(relayId);
        })
        .catch((error: unknown) => this.context.logger.error({ relayId, err: error }, "relay job failed outside its own error handling"));
    };
    if (delayMs === 0) return run();
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, delayMs);
    this.#timers.add(timer);
  }

  /** Relays waiting for their first broadcast. */
  get depth(): number {
    return this.#queue.size + this.#queue.pending + (this.#batches?.size ?? 0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#batches?.stop();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#queue.clear();
    await this.#queue.onIdle();
  }

  async #broadcastFirst(relayId: string): Promise<void> {
    this.#waiting.delete(relayId);
    try {
      await this.#attempt(relayId);
    } catch (error) {
      // The store's fence stopped the write (its nonce went back). Claimed by another relayer while
      // this one waited: the relay is theirs to send. Our lease lapsed: wait for a renewal, as below.
      if (error instanceof RelayLeaseError) return this.#refused(relayId, error);
      this.#retryLater(relayId, error);
      return;
    }
    // A relay sent back to wait keeps its attempt count, so its pauses grow; any other outcome (sent,
    // ended, another relayer's) closes its count.
    if (!this.#waiting.has(relayId)) this.#attempts.delete(relayId);
  }

  /**
   * The store refused to record its broadcast: our lease lapsed (wait for a renewal), another relayer
   * has it (theirs now), or it ended or its cancellation was asked (read again: a cancelled relay with
   * nothing in flight then ends, in #attempt).
   */
  #refused(relayId: string, error: RelayLeaseError): void {
    if (error.refusal === "lapsed") return this.#waitAndRetry(relayId, {}, "lease on the relay lapsed before the broadcast was recorded; waiting for a renewal");
    this.#attempts.delete(relayId);
    if (error.refusal === "ended") this.enqueue(relayId);
  }

  /** Nothing may fail a relay or escape the queue: the relay is tried again, later and later. */
  #retryLater(relayId: string, error: unknown): void {
    if (error instanceof RelayLeaseError) return this.#refused(relayId, error);
    const attempt = (this.#attempts.get(relayId) ?? 0) + 1;
    this.#attempts.set(relayId, attempt);
    if (isNoAnswer(error)) this.context.logger.warn({ relayId, attempt, err: rpcErrorText(error) }, "chain unreachable before broadcast; retrying");
    else this.context.logger.error({ relayId, attempt, err: error }, "unexpected error before broadcast; retrying");
    this.enqueue(relayId, backoffMs(attempt, 30_000));
  }

  /**
   * A relay goes out alone (plain `swapGasless`) when batching is off, when it was taken over from a
   * relayer that died (it is simulated against the pending block), and when it was in a batch
   * before: a batch that skipped it or reverted (its one retry alone), or that the node refused.
   */
  #goesAlone(relay: RelayRecord): boolean {
    if (this.#batches === undefined || this.#alone.has(relay.id) || !fitsBatch(relay)) return true;
    return relay.transactions.some((transaction) => (transaction.raw !== undefined && this.context.pool.bySigner(transaction.signer) === undefined) || transaction.batch !== undefined);
  }

  async #attempt(relayId: string): Promise<void> {
    const relay = await this.context.store.getRelay(relayId);
    if (relay === undefined || isFinalRelayStatus(relay.status) || relay.signer !== undefined) return;
    const ownership = relayOwnership(relay, this.context.config, this.context.now());
    if (ownership === "theirs") {
      this.context.logger.warn({ relayId, owner: relay.claimedBy }, "relay was taken over by another relayer; leaving it");
      return;
    }
    if (ownership === "lapsed") {
      this.#waitAndRetry(relayId, { leaseUntil: relay.leaseUntil?.toISOString() }, "lease on the relay lapsed (renewals failing?); waiting for a renewal before signing");
      return;
    }
    // Its cancellation was asked and nothing more of it is sent. With nothing on record (a send refused
    // since), it ends cancelled. A swap on record (another relayer's that died, or ours whose nonce went
    // elsewhere) may still mine: the chain decides, and it waits for that (see inFlightCancellation.ts).
    if (relay.cancelRequestedAt !== undefined) {
      if (relay.transactions.length === 0) {
        this.context.logger.info({ relayId }, "relay cancelled; nothing of it is in flight");
        await this.context.store.updateRelay(relayId, { status: "cancelled", error: "cancelled by the integrator; its swap was not sent again", at: this.context.now() });
      } else if ((await resolveInFlightCancellation(this.context, relay)) === "pending") this.#awaitInFlight(relayId);
      return;
    }
    this.context.metrics?.stages.lap(relayId, "load");
    await this.#checkAndSend(relay);
  }

  async #checkAndSend(relay: RelayRecord): Promise<void> {
    const { client, pool } = this.context;
    const head = await this.context.head.read();
    if (head.nextTimestamp > relay.deadline) {
      if (this.#belowCost.delete(relay.id)) {
        await this.#end(relay, "expired", "fee_below_cost", `the quote's deadline (${relay.deadline}) passed while the gas limit's cost stayed above the signed relayer fee`);
      } else await this.#end(relay, "expired", "deadline_passed", `the quote's deadline (${relay.deadline}) passed before the swap was broadcast`);
      return;
    }
    const alone = this.#goesAlone(relay);
    // A batch reads its orders' nonces together, right before its simulation; a relay about to wait
    // reads its own, so an order filled meanwhile ends instead of waiting.
    if (alone && (await isPermit2NonceUsed(client, this.context.permit2, relay))) {
      await this.#settleWithoutUs(relay);
      return;
    }
    this.context.metrics?.stages.lap(relay.id, "nonce_check");
    const spentBeforeWaiting = async () => {
      if (alone || !(await isPermit2NonceUsed(client, this.context.permit2, relay))) return false;
      await this.#settleWithoutUs(relay);
      return true;
    };
    const hold = relayHoldReason(this.context.config, relay, head, await firstFees(this.context, head));
    if (hold !== undefined) {
      if (await spentBeforeWaiting()) return;
      this.#hold(relay.id, hold);
      return;
    }
    this.#belowCost.delete(relay.id);
    if (!alone) {
      this.#batches!.add(relay);
      return;
    }
    const signer = await pool.lease();
    this.context.metrics?.stages.lap(relay.id, "signer_wait");
    await this.#sendAlone(relay, signer, { nonceChecked: true });
  }

  /** Sends the relay back to wait for `hold` to pass (a relay below cost at its deadline ends `fee_below_cost`). */
  #hold(relayId: string, hold: RelayHold): void {
    if (hold.belowCost) this.#belowCost.add(relayId);
    this.#waitAndRetry(relayId, hold.details, hold.message);
  }

  /** Whether the relay went back to wait instead of going out now (see relayHoldReason). */
  #heldBack(relay: RelayRecord, head: BlockHead, fees: Fees): boolean {
    const hold = relayHoldReason(this.context.config, relay, head, fees);
    if (hold === undefined) return false;
    this.#hold(relay.id, hold);
    return true;
  }

  /** Simulates and sends one relay as plain `swapGasless` on `signer`, whose place is reserved (and given back here). */
  async #sendAlone(relay: RelayRecord, signer: Signer, options: { nonceChecked: boolean }): Promise<void> {
    const { client, config, pool, logger } = this.context;
    const wasAlone = this.#alone.delete(relay.id);
    const gas = relayGasLimitOfCalldata(relay.estimatedGas, relay.data);
    let reservationHeld = true;
    const dropReservation = () => {
      if (!reservationHeld) return;
      reservationHeld = false;
      pool.unreserve(signer);
    };
    try {
      if (!options.nonceChecked && (await isPermit2NonceUsed(client, this.context.permit2, relay))) return await this.#settleWithoutUs(relay);
      const head = await this.context.head.read();
      const fees = await firstFees(this.context, head);
      if (this.#heldBack(relay, head, fees)) {
        if (wasAlone) this.#alone.add(relay.id);
        return;
      }
      // One execution at the latest block (an estimate would search, and against the pending block it
      // re-runs every transaction in flight), with exactly the gas limit and fees that are signed next
      // (a recipient may tell a zero gas price from a real one). A relay taken over from a relayer that
      // died is simulated against the pending block: that relayer's swap may still be in the mempool,
      // and then ours must not go out (it would only revert).
      const takenOver = relay.transactions.some((transaction) => transaction.raw !== undefined && pool.bySigner(transaction.signer) === undefined);
      try {
        await client.call({ account: signer.address, to: relay.router, data: relay.data, gas, ...fees, blockTag: takenOver ? "pending" : "latest" });
      } catch (error) {
        // Only a revert says the order cannot fill; any other answer is the node's trouble: retry.
        if (isNoAnswer(error) || !isRevertError(error)) throw error;
        // It may have been filled between the nonce check and the simulation.
        if (await isPermit2NonceUsed(client, this.context.permit2, relay)) return await this.#settleWithoutUs(relay);
        // A dead relayer's swap may still be pending (the pending block spends the nonce): wait for it
        // to land or for the deadline, rather than ending a relay that may yet fill.
        if (takenOver) throw new Error("a taken-over relay does not simulate against the pending block; waiting for the previous relayer's swap");
        await this.#end(relay, "rejected", "simulation_failed", `the swap no longer simulates: ${rpcErrorText(error).slice(0, 300)}`);
        return;
      }
      this.context.metrics?.stages.lap(relay.id, "simulation");
      await signer.exclusive(async () => {
        this.context.metrics?.stages.lap(relay.id, "signer_lock");
        const nonce = signer.nonces.allocate();
        dropReservation();
        let sent;
        try {
          sent = await signPersistSend(
            { client, store: this.context.store, chainId: config.chainId, now: this.context.now, relayerId: config.relayerId, persisted: () => this.context.metrics?.stages.lap(relay.id, "sign_persist") },
            signer,
            relay.id,
            { kind: "swap", nonce, fees, to: relay.router, data: relay.data, gas },
          );
        } catch (error) {
          // The store's fence refused the write: nothing was recorded, so the nonce is used next.
          // Otherwise the write may or may not have committed (a lost COMMIT acknowledgement): if it
          // reads back, the watcher follows (and sends) it; if not, the nonce is released, a gap the
          // watcher fills, never handed to another swap while a recorded one may hold it.
          // The signing policy refused it: nothing was signed either.
          if (error instanceof RelayLeaseError || error instanceof SigningRefusedError) signer.nonces.giveBack(nonce);
          else {
            const stored = await this.context.store.getRelay(relay.id).catch(() => undefined);
            if (stored?.signerNonce === nonce && stored.signer === signer.address) this.track(relay.id, { resend: true });
            else signer.nonces.release(nonce);
          }
          pool.notify();
          throw error;
        }
        this.context.metrics?.stages.lap(relay.id, "broadcast");
        logger.info({ relayId: relay.id, hash: sent.hash, signer: signer.address, nonce, outcome: sent.outcome }, "relay submitted");
        await this.#follow([await sentSwapFollowUp(this.context, relay, signer, nonce, sent)]);
      });
    } finally {
      dropReservation();
    }
  }

  /**
   * Acts on what became of the relays of one attempt (a batch's, batchDispatcher.ts, or a single send's,
   * sentSwapFollowUp.ts), in order; the fills by someone else last, as they read the chain: a sent
   * batch's members are followed without waiting on that.
   */
  async #follow(followUps: readonly RelayFollowUp[]): Promise<void> {
    const settledLast = [...followUps.filter((followUp) => followUp.then !== "settledWithoutUs"), ...followUps.filter((followUp) => followUp.then === "settledWithoutUs")];
    for (const followUp of settledLast) {
      switch (followUp.then) {
        case "hold":
          this.#hold(followUp.relayId, followUp.hold);
          break;
        case "track":
          this.track(followUp.relayId, { resend: followUp.resend });
          break;
        case "alone":
          this.#alone.add(followUp.relayId);
          this.enqueue(followUp.relayId);
          break;
        case "wait":
          this.#waitAndRetry(followUp.relayId, followUp.details, followUp.message);
          break;
        case "requeue":
          this.enqueue(followUp.relayId, followUp.delayMs);
          break;
        case "retry":
          this.#retryLater(followUp.relayId, followUp.error);
          break;
        case "settledWithoutUs":
          await this.#settleWithoutUs(followUp.relay).catch((error: unknown) => this.#retryLater(followUp.relay.id, error));
          break;
        case "end":
          await this.#end(followUp.relay, followUp.status, followUp.reason, followUp.error);
          break;
      }
    }
  }

  /**
   * A cancelled relay whose recorded swap may still mine: asked again after a growing pause of at most
   * 5 s (a few cheap reads), so its end follows the chain's decision closely.
   */
  #awaitInFlight(relayId: string): void {
    const attempt = (this.#attempts.get(relayId) ?? 0) + 1;
    this.#attempts.set(relayId, attempt);
    this.#waiting.add(relayId);
    if (attempt === 1) this.context.logger.info({ relayId }, "cancelled relay's recorded swap may still mine; waiting for a fill or the deadline");
    this.enqueue(relayId, backoffMs(attempt, IN_FLIGHT_RECHECK_MS));
  }

  /** Tries the relay again after a growing pause (up to 30 s); the deadline check ends it in time. */
  #waitAndRetry(relayId: string, details: Record<string, unknown>, message: string): void {
    const attempt = (this.#attempts.get(relayId) ?? 0) + 1;
    this.#attempts.set(relayId, attempt);
    this.#waiting.add(relayId);
    this.context.logger.warn({ relayId, attempt, ...details }, message);
    this.enqueue(relayId, backoffMs(attempt, 30_000));
  }

  /** The Permit2 nonce is spent: a copier's fill is ours to record; anything else ends the relay. */
  async #settleWithoutUs(relay: RelayRecord): Promise<void> {
    this.#belowCost.delete(relay.id);
    const fill = await findFill(this.context.client, this.context.permit2, relay);
    if (fill !== undefined) {
      this.context.logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from }, "order filled by someone else; recorded as the fill");
      await this.context.store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at: this.context.now() });
      return;
    }
    await this.#end(relay, "rejected", "nonce_used", "the taker's Permit2 nonce of this quote was already used");
  }

  async #end(relay: RelayRecord, wanted: RelayStatus, reason: RelayReason, error: string): Promise<void> {
    this.#belowCost.delete(relay.id);
    // A relay broadcast before (its nonce was then taken) cannot be "rejected": it ends "failed".
    const status = wanted === "rejected" && relay.status === "submitted" ? "failed" : wanted;
    this.context.logger.info({ relayId: relay.id, status, reason }, "relay ended");
    await this.context.store.updateRelay(relay.id, { status, reason, error, at: this.context.now() });
  }
}
