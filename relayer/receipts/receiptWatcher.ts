import type { Hex, TransactionReceipt } from "viem";
import { isNoAnswer, isNoAnswerWithoutExecution } from "../../sdk/rpc/noAnswer";
import { isFinalRelayStatus } from "../../sdk";
import { type BlockHead as Head } from "../../sdk/chain/chainHead";
import { isRetryableSend, RelayLeaseError, sendRaw } from "../broadcast/broadcaster";
import { recordMinedOutcome, type Rebroadcast } from "./minedOutcome";
import { AttributionReadError } from "../attribution/readFailure";
import { openTransactions } from "../cancellation/inFlightCancellation";
import { findFill } from "../intake/orderState";
import { advancePendingBatch, replacePending } from "../broadcast/pendingReplacement";
import { isRetryableCancel, replaceWithCancel } from "../cancellation/relayCancellation";
import type { RelayContext } from "../queue/relayContext";
import { relayOwnership } from "../queue/relayOwnership";
import { SignerUpkeep } from "../broadcast/signerUpkeep";
import type { Signer } from "../broadcast/signerPool";
import type { RelayRecord } from "../store/relayStore";
import { rpcErrorText } from "../broadcast/rpcErrorText";
import { PollingLoop } from "../../sdk/scheduling/pollingLoop";

type Tracked = { resend: boolean; checkedBlock: bigint; strikes: number };

/** Ticks a foreign use of our nonce must be seen before we act: the receipt may trail the nonce count by a read. */
const FOREIGN_NONCE_STRIKES = 2;
/** How often (in ticks) signers are checked for nonce gaps and balance. */
const SIGNER_CHECK_TICKS = 8;

/**
 * Follows every broadcast relay until it is final: finds its receipt under any of its hashes, waits
 * for the confirmations (what the receipt means: minedOutcome.ts), bumps the fees of a transaction
 * stuck past `RELAYER_RESUBMIT_SECONDS` and frees the nonce with a zero-value self-transfer once the
 * deadline has passed (pendingReplacement.ts), records a copier's fill as the fill, and has the
 * signers looked after (nonce gaps, balances: signerUpkeep.ts). Every step re-reads the chain, so a
 * tick that fails (the node is down) changes nothing and the next one picks up where it stood.
 */
export class ReceiptWatcher {
  readonly #tracked = new Map<string, Tracked>();
  readonly #signers: SignerUpkeep;
  readonly #loop: PollingLoop;
  #ticking: Promise<void> | undefined;
  #ticks = 0;

  constructor(
    private readonly context: RelayContext,
    /** Broadcast a relay anew (its nonce went to something else before it was mined). */
    private readonly rebroadcast: Rebroadcast,
  ) {
    this.#signers = new SignerUpkeep(context);
    this.#loop = new PollingLoop(() => this.tick(), context.config.pollMs, (error) => context.logger.warn({ err: error }, "receipt watcher tick failed; the next one picks up where it stood"));
  }

  track(relayId: string, options: { resend: boolean }): void {
    const existing = this.#tracked.get(relayId);
    this.#tracked.set(relayId, { resend: options.resend || (existing?.resend ?? false), checkedBlock: -1n, strikes: 0 });
  }

  get size(): number {
    return this.#tracked.size;
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
    // A tick another caller started (tick() is public) is waited for too.
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
          } else if (error instanceof AttributionReadError) logger.warn({ relayId, err: error.message }, "failed relay's attribution deferred: a chain read failed; nothing charged, retrying next block");
          else if (isNoAnswer(error)) logger.warn({ relayId, err: rpcErrorText(error) }, "chain unreachable while following relay; retrying");
          else logger.error({ relayId, err: error }, "unexpected error while following relay; retrying next tick");
        }
      }),
    );
    if (++this.#ticks % SIGNER_CHECK_TICKS === 1) await this.#signers.check(head, minedCount).catch((error: unknown) => logger.warn({ err: rpcErrorText(error) }, "signer check failed"));
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
          await recordMinedOutcome(this.context, this.rebroadcast, relay, receipt, ours);
          signer.nonces.release(nonce);
          pool.notify();
          this.#tracked.delete(relay.id);
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
      // Cancelled, but a swap of it another relayer sent (one that died) may still mine at that relayer's nonce.
      const othersOpen = fill === undefined && relay.cancelRequestedAt !== undefined && (await openTransactions(this.context, relay, { signer: signer.address, nonce })) > 0;
      if (fill !== undefined) {
        await store.updateRelay(relayId, { status: "confirmed", mined: { hash: fill.hash, foreign: { from: fill.from, nonce: fill.nonce } }, at: this.context.now() });
        logger.info({ relayId, hash: fill.hash }, "relay confirmed (filled by another transaction)");
      } else if (othersOpen) {
        logger.info({ relayId, signer: signer.address, nonce }, "cancelled relay's nonce went elsewhere; another relayer's recorded swap may still mine, so it waits for a fill or its deadline");
        await store.updateRelay(relayId, { releaseSigner: true, at: this.context.now() });
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
      if (fill === undefined && (relay.cancelRequestedAt === undefined || othersOpen)) this.rebroadcast(relayId);
      return;
    }

    const latest = ours[ours.length - 1]!;
    // A batch carrying others is rebuilt without a cancelled member (advancePendingBatch), never replaced by
    // a self-transfer that would cancel everyone in it.
    if (latest.batch !== undefined) {
      await advancePendingBatch(this.context, relay, signer, latest, head, tracked, batchLeaders);
      return;
    }
    // A cancellation was asked and the swap is still the latest (the request was served elsewhere, or
    // the relayer died before replacing it): replace it now; later ticks bump the cancel if stuck.
    if (relay.cancelRequestedAt !== undefined && latest.kind !== "cancel") {
      const replaced = await replaceWithCancel(this.context, relayId, signer);
      tracked.resend = isRetryableCancel(replaced);
      return;
    }
    const stuck = this.context.now().getTime() - latest.sentAt.getTime() >= config.resubmitSeconds * 1000;
    // The router refuses a block later than the deadline; the next block comes at the earliest now.
    if (head.nextTimestamp > relay.deadline && !relay.cancelling) {
      await replacePending(this.context, relay, signer, latest, head, "cancel");
      await store.updateRelay(relayId, { cancelling: true, at: this.context.now() });
      logger.info({ relayId, nonce }, "deadline passed while pending; freeing the nonce with a self-transfer");
      return;
    }
    if (stuck) {
      // A replacement the node could not take now (unreachable, full) is sent again on the next ticks.
      tracked.resend = isRetryableSend(await replacePending(this.context, relay, signer, latest, head, relay.cancelling ? "cancel" : "swap"));
      return;
    }
    if (tracked.resend) {
      const { outcome } = await sendRaw(this.context.client, latest.raw!);
      tracked.resend = isRetryableSend(outcome);
      // An earlier nonce of the signer is missing at the node: the reconciliation sends or fills it.
      if (outcome === "nonce_gap") this.context.reconciler.request(signer, outcome);
    }
  }

  async #firstReceipt(hashes: Hex[]): Promise<TransactionReceipt | undefined> {
    const receipts = await Promise.all(
      hashes.map((hash) =>
        this.context.client.getTransactionReceipt({ hash }).catch((error: unknown) => {
          if (isNoAnswerWithoutExecution(error)) throw error;
          return undefined;
        }),
      ),
    );
    return receipts.find((receipt) => receipt !== undefined);
  }

  /** Stops following a relay another relayer owns now, remembering our nonce it may still hold. */
  #handOver(relay: RelayRecord): void {
    this.#tracked.delete(relay.id);
    this.#signers.handOver(relay);
  }

}
