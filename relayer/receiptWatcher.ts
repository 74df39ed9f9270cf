import { parseTransaction, type Hex, type TransactionReceipt } from "viem";
import { isFinalRelayStatus } from "../sdk";
import { isRetryableSend, RelayLeaseError, sendRaw, signPersistSend, type SendOutcome } from "./broadcaster";
import { relayOwnership } from "./relayOwnership";
import { replaceWithCancel } from "./relayCancellation";
import { initialFees, replacementFees, type Fees } from "./feeBump";
import { findFill, isPermit2NonceUsed } from "./orderState";
import { replaceBatch } from "./batchBroadcast";
import { batchOrderOutcome, type BatchOrderOutcome } from "./batchOrderOutcome";
import type { BlockHead as Head } from "../sdk";
import type { RelayContext } from "./relayContext";
import type { Signer } from "./signerPool";
import type { RelayRecord, RelayTransaction } from "./store/relayStore";
import { isTransientRpcError, rpcErrorText } from "./transientRpcError";

type Tracked = { resend: boolean; checkedBlock: bigint; strikes: number };

/** Ticks a foreign use of our nonce must be seen before we act: the receipt may trail the nonce count by a read. */
const FOREIGN_NONCE_STRIKES = 2;
/** How often (in ticks) signers are checked for nonce gaps and balance. */
const SIGNER_CHECK_TICKS = 8;

/**
 * Follows every broadcast relay until it is final: finds its receipt under any of its hashes, waits
 * for the confirmations, bumps the fees of a transaction stuck past `RELAYER_RESUBMIT_SECONDS`, frees
 * the nonce with a zero-value self-transfer once the deadline has passed, records a copier's fill as
 * the fill, and fills nonce gaps. Every step re-reads the chain, so a tick that fails (the node is
 * down) changes nothing and the next one picks up where it stood.
 */
export class ReceiptWatcher {
  readonly #tracked = new Map<string, Tracked>();
  /**
   * Our signers' nonces held by relays another relayer took over, with each relay's deadline. Mined,
   * they go at the signer check (`settle`); never mined (the node dropped our transaction), they are
   * let go once the deadline passed: the swap can no longer fill, and the gap fill may take the nonce.
   */
  readonly #handedOver = new Map<Signer, Map<number, bigint>>();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #ticks = 0;
  #stopped = false;

  constructor(
    private readonly context: RelayContext,
    /** Broadcast a relay anew (its nonce went to something else before it was mined). */
    private readonly rebroadcast: (relayId: string) => void,
  ) {}

  track(relayId: string, options: { resend: boolean }): void {
    const existing = this.#tracked.get(relayId);
    this.#tracked.set(relayId, { resend: options.resend || (existing?.resend ?? false), checkedBlock: -1n, strikes: 0 });
  }

  get size(): number {
    return this.#tracked.size;
  }

  start(): void {
    const loop = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => void this.tick().finally(loop), this.context.config.pollMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#ticking;
  }

  /** One pass over every tracked relay; concurrent calls share the pass in flight. */
  tick(): Promise<void> {
    this.#ticking ??= this.#tick().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tick(): Promise<void> {
    const { logger } = this.context;
    let head: Head;
    try {
      head = await this.context.head.fresh();
    } catch (error) {
      logger.warn({ err: rpcErrorText(error) }, "chain unreachable; relays wait for the next tick");
      return;
    }
    const minedCounts = new Map<string, Promise<number>>();
    const minedCount = (signer: Signer) => {
      let count = minedCounts.get(signer.address);
      if (count === undefined) {
        count = this.context.client.getTransactionCount({ address: signer.address, blockTag: "latest" });
        minedCounts.set(signer.address, count);
      }
      return count;
    };
    // One member of each pending batch (signer and nonce) bumps or rebuilds it per tick.
    const batchLeaders = new Set<string>();
    await Promise.all(
      [...this.#tracked.keys()].map(async (relayId) => {
        try {
          await this.#advance(relayId, head, minedCount, batchLeaders);
        } catch (error) {
          // A replacement the store's fence refused: taken over, the relay is another relayer's now (ours
          // stays on record for it); a lapsed lease is tried again next tick, once renewed.
          if (error instanceof RelayLeaseError) {
            // The relay ended, or its cancellation was asked, between our read and the write: next tick re-reads it.
            if (error.refusal === "ended") logger.info({ relayId }, "relay ended or is being cancelled; its swap replacement was not sent");
            else if (error.refusal === "lapsed") logger.warn({ relayId }, "lease on the relay lapsed; the replacement waits for a renewal");
            else {
              const relay = await this.context.store.getRelay(relayId).catch(() => undefined);
              if (relay === undefined) this.#tracked.delete(relayId);
              else this.#handOver(relay);
            }
          } else if (isTransientRpcError(error)) logger.warn({ relayId, err: rpcErrorText(error) }, "chain unreachable while following relay; retrying");
          else logger.error({ relayId, err: error }, "unexpected error while following relay; retrying next tick");
        }
      }),
    );
    if (++this.#ticks % SIGNER_CHECK_TICKS === 1) await this.#checkSigners(head, minedCount).catch((error: unknown) => logger.warn({ err: rpcErrorText(error) }, "signer check failed"));
  }

  async #advance(relayId: string, head: Head, minedCount: (signer: Signer) => Promise<number>, batchLeaders: Set<string>): Promise<void> {
    const { store, pool, config, logger } = this.context;
    const relay = await store.getRelay(relayId);
    const tracked = this.#tracked.get(relayId);
    if (relay === undefined || tracked === undefined || isFinalRelayStatus(relay.status)) {
      this.#tracked.delete(relayId);
      return;
    }
    // Another relayer took it over (our lease ran out): it follows the relay, our transactions included.
    // A lapsed lease (renewals failing) may be taken at any moment: nothing is signed until it is renewed.
    const ownership = relayOwnership(relay, config, this.context.now());
    if (ownership === "theirs") {
      logger.warn({ relayId, owner: relay.claimedBy }, "relay was taken over by another relayer; no longer following it");
      this.#handOver(relay);
      return;
    }
    if (ownership === "lapsed") return;
    // Only this relayer's current signer: a relay taken over from another relayer keeps that one's transactions on record.
    const ours = relay.transactions.filter(
      (transaction) => transaction.raw !== undefined && transaction.nonce === relay.signerNonce && transaction.signer === relay.signer,
    );
    const signer = relay.signer === undefined ? undefined : pool.bySigner(relay.signer);
    if (signer === undefined || relay.signerNonce === undefined || ours.length === 0) {
      // Nothing of ours on the chain for it (a released nonce): it goes back to the queue.
      this.#tracked.delete(relayId);
      if (relay.signer !== undefined && signer === undefined) logger.error({ relayId, signer: relay.signer }, "relay's signer is not configured any more; it cannot be followed");
      else this.rebroadcast(relayId);
      return;
    }

    // Receipts are looked up only once the signer's nonce is used (one count per signer per tick): a
    // transaction still pending has none, and with hundreds in flight a lookup per relay per block was
    // most of the node's load.
    const nonce = relay.signerNonce;
    if ((await minedCount(signer)) > nonce) {
      if (tracked.checkedBlock !== head.number) {
        const receipt = await this.#firstReceipt(ours.map((transaction) => transaction.hash));
        if (receipt !== undefined) {
          if (head.number - receipt.blockNumber + 1n < BigInt(config.confirmations)) return;
          tracked.checkedBlock = head.number;
          await this.#finish(relay, signer, receipt, ours);
          return;
        }
        tracked.checkedBlock = head.number;
      }
      // The nonce is used, but by none of our hashes: something else took it.
      if (++tracked.strikes < FOREIGN_NONCE_STRIKES) return;
      // Our receipts once more, right before acting: a receipt read that failed must not look foreign.
      if ((await this.#firstReceipt(ours.map((transaction) => transaction.hash))) !== undefined) {
        tracked.checkedBlock = -1n;
        return;
      }
      // Record the outcome first: if a read fails here, the relay stays followed and the next tick retries.
      const fill = await findFill(this.context.client, this.context.permit2, relay);
      if (fill !== undefined) {
        await store.updateRelay(relayId, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at: this.context.now() });
        logger.info({ relayId, hash: fill.hash }, "relay confirmed (filled by another transaction)");
      } else if (relay.cancelRequestedAt !== undefined) {
        // Left out of a rebuilt batch (or replaced) at the integrator's request: the cancellation took effect.
        await store.updateRelay(relayId, { status: "cancelled", error: "cancelled by the integrator: its batch was sent again without it", releaseSigner: true, at: this.context.now() });
        logger.info({ relayId, signer: signer.address, nonce }, "relay cancelled; its nonce went to a batch rebuilt without it");
      } else {
        logger.warn({ relayId, signer: signer.address, nonce }, "relay's nonce was used by another transaction; broadcasting again");
        await store.updateRelay(relayId, { releaseSigner: true, at: this.context.now() });
      }
      signer.nonces.release(nonce);
      pool.notify();
      this.#tracked.delete(relayId);
      if (fill === undefined && relay.cancelRequestedAt === undefined) this.rebroadcast(relayId);
      return;
    }

    const latest = ours[ours.length - 1]!;
    // A batch carrying others is rebuilt without a cancelled member (#advanceBatch), never replaced by
    // a self-transfer that would cancel everyone in it.
    if (latest.batch !== undefined) {
      await this.#advanceBatch(relay, signer, latest, head, tracked, batchLeaders);
      return;
    }
    // A cancellation was asked and the swap is still the latest (the request was served elsewhere, or
    // the relayer died before replacing it): replace it now; later ticks bump the cancel if stuck.
    if (relay.cancelRequestedAt !== undefined && latest.kind !== "cancel") {
      const replaced = await replaceWithCancel(this.context, relayId, signer);
      tracked.resend = replaced === "transient" || replaced === "busy";
      return;
    }
    const stuck = this.context.now().getTime() - latest.sentAt.getTime() >= config.resubmitSeconds * 1000;
    // The router refuses a block later than the deadline; the next block comes at the earliest now.
    if (head.nextTimestamp > relay.deadline && !relay.cancelling) {
      await this.#replace(relay, signer, latest, head, "cancel");
      await store.updateRelay(relayId, { cancelling: true, at: this.context.now() });
      logger.info({ relayId, nonce }, "deadline passed while pending; freeing the nonce with a self-transfer");
      return;
    }
    if (stuck) {
      // A replacement the node could not take now (unreachable, full) is sent again on the next ticks.
      tracked.resend = isRetryableSend(await this.#replace(relay, signer, latest, head, relay.cancelling ? "cancel" : "swap"));
      return;
    }
    if (tracked.resend) {
      const { outcome } = await sendRaw(this.context.client, latest.raw!);
      tracked.resend = isRetryableSend(outcome);
    }
  }

  /**
   * A pending batch transaction, followed by one of its members per tick (the leader): past any
   * member's deadline it is rebuilt without the expired ones (a cancel when none is left), stuck past
   * RELAYER_RESUBMIT_SECONDS it is replaced whole at bumped fees. A member left out of a rebuilt batch
   * only waits for its nonce to be mined (see replaceBatch).
   */
  async #advanceBatch(relay: RelayRecord, signer: Signer, latest: RelayTransaction, head: Head, tracked: Tracked, batchLeaders: Set<string>): Promise<void> {
    const { store, config, logger } = this.context;
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
        const replaced = await replaceBatch(this.context, signer, previous, { exclude: leaving, kind: "swap", head, cancelling });
        if ("resent" in replaced) tracked.resend = isRetryableSend(replaced.resent);
        else if (replaced.outcome !== "empty") {
          tracked.resend = isRetryableSend(replaced.outcome);
          if (replaced.kind === "cancel") for (const id of replaced.members) await store.updateRelay(id, { cancelling: true, at: this.context.now() });
          logger.info({ hash: replaced.hash, leaving: [...leaving], kind: replaced.kind }, "batch members expired or cancelled while pending; rebuilt the batch without them");
        }
        return;
      }
    }
    if (this.context.now().getTime() - latest.sentAt.getTime() >= config.resubmitSeconds * 1000) {
      const replaced = await replaceBatch(this.context, signer, previous, { exclude: new Set(), kind: latest.kind, head });
      tracked.resend = "resent" in replaced ? isRetryableSend(replaced.resent) : replaced.outcome !== "empty" && isRetryableSend(replaced.outcome);
      return;
    }
    if (tracked.resend) tracked.resend = isRetryableSend((await sendRaw(this.context.client, latest.raw!)).outcome);
  }

  async #firstReceipt(hashes: Hex[]): Promise<TransactionReceipt | undefined> {
    const receipts = await Promise.all(
      hashes.map((hash) =>
        this.context.client.getTransactionReceipt({ hash }).catch((error: unknown) => {
          if (isTransientRpcError(error)) throw error;
          return undefined;
        }),
      ),
    );
    return receipts.find((receipt) => receipt !== undefined);
  }

  /** The relay's nonce was mined under one of our hashes: decide what it means for the order. */
  async #finish(relay: RelayRecord, signer: Signer, receipt: TransactionReceipt, ours: RelayTransaction[]): Promise<void> {
    const { store, pool, logger } = this.context;
    const mined = ours.find((transaction) => transaction.hash.toLowerCase() === receipt.transactionHash.toLowerCase())!;
    const at = this.context.now();
    const inBatch = mined.kind === "swap" && mined.batch !== undefined ? (receipt.status === "success" ? batchOrderOutcome(receipt, relay, mined.batch.position) : ({ kind: "reverted" } as const)) : undefined;
    if (inBatch !== undefined && inBatch.kind !== "settled" && inBatch.kind !== "absent") {
      await this.#batchMissed(relay, receipt, inBatch, mined.batch!);
    } else if (mined.kind === "swap" && receipt.status === "success" && (inBatch === undefined || inBatch.kind === "settled")) {
      await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: receipt.transactionHash }, at });
      logger.info({ relayId: relay.id, hash: receipt.transactionHash, block: receipt.blockNumber, gasUsed: receipt.gasUsed }, "relay confirmed");
    } else {
      const fill = await findFill(this.context.client, this.context.permit2, relay);
      if (fill !== undefined) {
        await store.updateRelay(relay.id, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at });
        logger.info({ relayId: relay.id, hash: fill.hash, from: fill.from }, "relay confirmed (a copier's transaction filled it first)");
      } else if (mined.kind === "cancel" && relay.cancelRequestedAt !== undefined) {
        await store.updateRelay(relay.id, { status: "cancelled", error: "cancelled by the integrator: a self-transfer at the swap's nonce was mined instead", mined: { hash: receipt.transactionHash }, at });
        logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; its replacement was mined");
      } else if (mined.kind === "cancel") {
        await store.updateRelay(relay.id, { status: "expired", reason: "deadline_passed", error: "the quote's deadline passed before the swap was mined", mined: { hash: receipt.transactionHash }, at });
        logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay expired; its nonce was freed");
      } else {
        const nonceUsed = await isPermit2NonceUsed(this.context.client, this.context.permit2, relay);
        // Cancelled, and the taker spent the order's nonce on chain as the cancellation told them to: the
        // revert is the cancellation taking effect, not the taker's fault; it is not counted against them.
        const cancelled = nonceUsed && (await store.getRelay(relay.id))?.cancelRequestedAt !== undefined;
        if (cancelled) {
          await store.updateRelay(relay.id, { status: "cancelled", error: `cancelled: the taker's Permit2 nonce was spent before the swap, which reverted in block ${receipt.blockNumber}`, mined: { hash: receipt.transactionHash }, at });
          logger.info({ relayId: relay.id, hash: receipt.transactionHash }, "relay cancelled; the taker invalidated the order's nonce before the swap");
        } else {
          // Our gas was spent and no fee was paid: counted against the taker and the integrator (first,
          // so a crash before the update below still counts it; a second record is ignored).
          await store.recordRevert({ relayId: relay.id, taker: relay.taker, integratorId: relay.integratorId, at });
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
    signer.nonces.release(relay.signerNonce!);
    pool.notify();
    this.#tracked.delete(relay.id);
  }

  /**
   * A mined batch that did not settle this relay: it skipped its order, or the batch reverted as a
   * whole. A copier's fill is the fill; a passed deadline ends it `expired`; a reason that may not
   * last (out of gas, the pool moved, the router paused) or a batch reverted as a whole (nobody to
   * blame) sends it again alone, once (a relay that was in a batch goes out alone); any other skip
   * ends it `failed` with the decoded reason, and is counted against its taker and integrator like a
   * reverted swap of its own.
   */
  async #batchMissed(relay: RelayRecord, receipt: TransactionReceipt, outcome: Exclude<BatchOrderOutcome, { kind: "settled" | "absent" }> | { kind: "reverted" }, slot: { position: number; size: number }): Promise<void> {
    const { store, logger } = this.context;
    const at = this.context.now();
    const fill = await findFill(this.context.client, this.context.permit2, relay);
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
      this.rebroadcast(relay.id);
      return;
    }
    const nonceUsed = outcome.name === "InvalidNonce" || (await isPermit2NonceUsed(this.context.client, this.context.permit2, relay));
    // Our gas was spent on it and no fee was paid: the same griefing as a reverted swap of its own.
    await store.recordRevert({ relayId: relay.id, taker: relay.taker, integratorId: relay.integratorId, at });
    await store.updateRelay(relay.id, { status: "failed", reason: nonceUsed ? "nonce_used" : "reverted", error: `skipped in ${where}: ${outcome.text}`, mined: { hash: receipt.transactionHash }, at });
    logger.warn({ relayId: relay.id, hash: receipt.transactionHash, reason: outcome.text }, "relay failed: its order was skipped in its batch");
  }

  /** Stops following a relay another relayer owns now, remembering our nonce it may still hold. */
  #handOver(relay: RelayRecord): void {
    this.#tracked.delete(relay.id);
    const signer = relay.signer === undefined ? undefined : this.context.pool.bySigner(relay.signer);
    if (signer === undefined || relay.signerNonce === undefined) return;
    let held = this.#handedOver.get(signer);
    if (held === undefined) this.#handedOver.set(signer, (held = new Map()));
    held.set(relay.signerNonce, relay.deadline);
  }

  /** Lets go of handed-over nonces that were mined or whose relay's deadline passed; true if any went. */
  #releaseHandedOver(signer: Signer, mined: number, head: Head): boolean {
    const held = this.#handedOver.get(signer);
    if (held === undefined) return false;
    let released = false;
    for (const [nonce, deadline] of held) {
      if (nonce >= mined && head.nextTimestamp <= deadline) continue;
      held.delete(nonce);
      signer.nonces.release(nonce);
      released = true;
    }
    if (held.size === 0) this.#handedOver.delete(signer);
    return released;
  }

  /** A replacement at the same nonce with bumped fees: the same swap, or a cancel once the deadline passed. */
  async #replace(relay: RelayRecord, signer: Signer, latest: RelayTransaction, head: Head, kind: "swap" | "cancel"): Promise<SendOutcome> {
    const { config, client, store, logger } = this.context;
    const previous: Fees = { maxFeePerGas: latest.maxFeePerGas, maxPriorityFeePerGas: latest.maxPriorityFeePerGas };
    const fees = replacementFees(previous, { baseFeePerGas: head.baseFeePerGas, priorityFeePerGas: config.priorityFeeWei }, config.maxFeeWei);
    if (fees === undefined) {
      logger.warn({ relayId: relay.id, ceiling: config.maxFeeWei.toString() }, "fee ceiling reached; rebroadcasting without a bump");
      return (await sendRaw(client, latest.raw!)).outcome;
    }
    const gas = parseTransaction(latest.raw!).gas ?? BigInt(relay.estimatedGas);
    return signer.exclusive(async () => {
      const sent = await signPersistSend({ client, store, chainId: config.chainId, now: this.context.now, relayerId: config.relayerId }, signer, relay.id, {
        kind,
        nonce: latest.nonce,
        fees,
        to: relay.router,
        data: relay.data,
        gas,
      });
      this.context.metrics?.bumps.inc({ kind });
      logger.info({ relayId: relay.id, hash: sent.hash, kind, maxFeePerGas: fees.maxFeePerGas.toString(), outcome: sent.outcome }, "replacement broadcast");
      return sent.outcome;
    });
  }

  /** Fills nonce holes (a nonce allocated but never sent) with self-transfers, and flags signers low on ETH. */
  async #checkSigners(head: Head, minedCount: (signer: Signer) => Promise<number>): Promise<void> {
    const { client, config, logger, pool } = this.context;
    for (const signer of pool.signers) {
      const balance = await client.getBalance({ address: signer.address });
      this.context.metrics?.signerBalance.set({ signer: signer.address }, Number(balance));
      const funded = balance >= config.minSignerBalanceWei;
      if (!funded) logger.warn({ signer: signer.address, balance: balance.toString(), floor: config.minSignerBalanceWei.toString() }, "signer balance below the floor; no new work for it");
      if (funded !== signer.funded) {
        signer.funded = funded;
        pool.notify();
      }
      const mined = await minedCount(signer);
      const expired = this.#releaseHandedOver(signer, mined, head);
      if (signer.nonces.settle(mined) > 0 || expired) pool.notify();
      const gaps = signer.nonces.gaps(mined);
      for (const nonce of gaps) {
        const raw = await signer.account.signTransaction({
          type: "eip1559",
          chainId: config.chainId,
          nonce,
          to: signer.address,
          value: 0n,
          gas: 21_000n,
          ...initialFees(head.baseFeePerGas, config.priorityFeeWei, config.maxFeeWei),
        });
        const { outcome } = await sendRaw(client, raw);
        logger.warn({ signer: signer.address, nonce, outcome }, "filled a nonce gap with a self-transfer");
      }
    }
  }
}
