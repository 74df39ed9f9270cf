import { decodeFunctionResult, getAbiItem, type Address } from "viem";
import { isNoAnswer } from "../../sdk/rpc/noAnswer";
import { gaslessBatchSwapRouterAbi, isRevertError } from "../../sdk";
import { batchCalldataGasBound, batchGasLimit } from "../../sdk/relay/batchGasLimit";
import { calldataGas } from "../../sdk/relay/calldataGas";
import { batchCall, memberGasCap, signPersistSendBatch, type BatchBroadcast } from "./batchBroadcast";
import { firstFees } from "../broadcast/feeBump";
import { checkSent } from "../broadcast/nonceReconciler";
import { isPermit2NonceUsed } from "../intake/orderState";
import type { RelayContext } from "../queue/relayContext";
import type { Signer } from "../broadcast/signerPool";
import type { RelayRecord } from "../store/relayStore";
import { relayHoldReason } from "../queue/relayHold";
import type { RelayFollowUp } from "../queue/relayFollowUp";
import { rpcErrorText } from "../broadcast/rpcErrorText";
import { SigningRefusedError } from "../signing/signingRefusedError";

const swapGaslessBatch = getAbiItem({ abi: gaslessBatchSwapRouterAbi, name: "swapGaslessBatch" });

/** What the dispatcher asks of the queue: its single path, and to act on follow-ups. */
export type BatchHooks = {
  /** Sends one relay as plain `swapGasless` on `signer`, whose place is reserved (the queue's single path). */
  sendAlone(relay: RelayRecord, signer: Signer, options: { nonceChecked: boolean }): Promise<void>;
  /** Acts on what became of the relays of one batch attempt. */
  follow(followUps: readonly RelayFollowUp[]): Promise<void>;
};

/**
 * Puts relays that passed their checks into batch transactions, per signer. Natural batching: one
 * worker per signer at most; each leases a signer with room and takes every ready relay (of one
 * router) up to `RELAYER_BATCH_MAX` orders and `RELAYER_BATCH_GAS`, so what arrived while the
 * signers were busy goes out together, and a relay alone goes out at once (`RELAYER_BATCH_WAIT_MS`
 * may hold a signer that long for more). A batch simulates once, and only the orders its settled
 * bitmap leaves out have their Permit2 nonces read (a fill by someone else ends them as confirmed) before
 * signing the others.
 */
export class BatchDispatcher {
  readonly #ready = new Map<string, RelayRecord>();
  /** Relays a worker took and is sending: a second attempt read before their record is not added again. */
  readonly #sending = new Set<string>();
  #workers = 0;
  #stopped = false;

  constructor(
    private readonly context: RelayContext,
    private readonly hooks: BatchHooks,
    /** The most gas one batch's limit may take (RELAYER_BATCH_GAS, or a quarter of the block gas limit). */
    private readonly maxBatchGas: bigint,
  ) {}

  get size(): number {
    return this.#ready.size;
  }

  add(relay: RelayRecord): void {
    if (this.#stopped || this.#sending.has(relay.id)) return;
    this.#ready.set(relay.id, relay);
    this.#drain();
  }

  stop(): void {
    this.#stopped = true;
    this.#ready.clear();
  }

  #drain(): void {
    while (!this.#stopped && this.#ready.size > 0 && this.#workers < this.context.pool.signers.length) {
      this.#workers++;
      void this.#work()
        .catch((error: unknown) => this.context.logger.error({ err: error }, "batch worker failed outside its own error handling"))
        .finally(() => {
          this.#workers--;
          if (this.#ready.size > 0) this.#drain();
        });
    }
  }

  async #work(): Promise<void> {
    const { pool, config } = this.context;
    while (!this.#stopped && this.#ready.size > 0) {
      const signer = await pool.lease();
      if (config.batch.waitMs > 0 && this.#ready.size < config.batch.max) await new Promise((resolve) => setTimeout(resolve, config.batch.waitMs));
      const picked = this.#take();
      for (const relay of picked) this.context.metrics?.stages.lap(relay.id, "signer_wait");
      if (picked.length === 0) {
        pool.unreserve(signer);
        return;
      }
      for (const relay of picked) this.#sending.add(relay.id);
      const followUps: RelayFollowUp[] = [];
      try {
        if (picked.length === 1) await this.hooks.sendAlone(picked[0]!, signer, { nonceChecked: false });
        else await this.#sendBatch(picked, signer, followUps);
      } catch (error) {
        // What was decided before the failure stands; every relay of the attempt is tried again too.
        for (const relay of picked) followUps.push({ then: "retry", relayId: relay.id, error });
      } finally {
        for (const relay of picked) this.#sending.delete(relay.id);
      }
      await this.hooks.follow(followUps);
    }
  }

  /** The oldest ready relays of the first one's router, up to the batch's order and gas limits. */
  #take(): RelayRecord[] {
    const picked: RelayRecord[] = [];
    const caps: bigint[] = [];
    let dataGas = 0n;
    let router: Address | undefined;
    for (const relay of this.#ready.values()) {
      if (picked.length >= this.context.config.batch.max) break;
      if (router !== undefined && relay.router.toLowerCase() !== router.toLowerCase()) continue;
      const cap = memberGasCap(relay);
      const memberDataGas = calldataGas(relay.data);
      if (picked.length > 0 && batchGasLimit([...caps, cap], batchCalldataGasBound(dataGas + memberDataGas, picked.length + 1)) > this.maxBatchGas) break;
      router ??= relay.router;
      caps.push(cap);
      dataGas += memberDataGas;
      picked.push(relay);
    }
    for (const relay of picked) this.#ready.delete(relay.id);
    return picked;
  }

  /** Simulates, signs, records and sends one batch of `relays` on `signer`; what becomes of each relay it does not send goes to `next`. */
  async #sendBatch(relays: RelayRecord[], signer: Signer, next: RelayFollowUp[]): Promise<void> {
    const { client, pool, logger, permit2 } = this.context;
    let reservationHeld = true;
    const dropReservation = () => {
      if (!reservationHeld) return;
      reservationHeld = false;
      pool.unreserve(signer);
    };
    try {
      // No nonce reads before the simulation: an order whose nonce is spent is skipped in it, and only
      // the skipped orders' nonces are read, to tell a fill by someone else from a failure.
      const head = await this.context.head.read();
      const fees = await firstFees(this.context, head);
      // Each member still pays for its share at the fees signed now (it may have waited blocks for a
      // signer since its own check): one that does not is left out and waits as a relay of its own.
      let members: RelayRecord[] = [];
      for (const relay of relays) {
        const hold = relayHoldReason(this.context.config, relay, head, fees);
        if (hold === undefined) members.push(relay);
        else next.push({ then: "hold", relayId: relay.id, hold });
      }
      if (members.length === 0) return;
      if (members.length === 1) {
        reservationHeld = false;
        return await this.hooks.sendAlone(members[0]!, signer, { nonceChecked: false });
      }
      const router = members[0]!.router;
      // One execution of the whole batch at the latest block, with the gas and fees signed next: its
      // settled bitmap says which orders would settle. The others are ended now, not sent.
      const { data, gas } = batchCall(members);
      let settled: bigint;
      try {
        const result = await client.call({ account: signer.address, to: router, data, gas, ...fees, blockTag: "latest" });
        [settled] = decodeFunctionResult({ abi: [swapGaslessBatch], functionName: "swapGaslessBatch", data: result.data ?? "0x" });
      } catch (error) {
        if (isNoAnswer(error) || !isRevertError(error)) throw error;
        // The batch itself reverts (a paused router, a gas limit the node refuses): each relay is
        // simulated and sent on its own, where a revert is its own.
        logger.warn({ size: members.length, err: rpcErrorText(error).slice(0, 300) }, "a batch reverts as a whole in simulation; sending its relays one by one");
        for (const relay of members) next.push({ then: "alone", relayId: relay.id });
        return;
      }
      const skipped = members.filter((_, index) => ((settled >> BigInt(index)) & 1n) === 0n);
      if (skipped.length > 0) {
        // Filled meanwhile (a copier's fill between the two reads) is a confirmation, not a rejection.
        const spentNow = await Promise.all(skipped.map((relay) => isPermit2NonceUsed(client, permit2, relay)));
        // Otherwise its own simulation decides (alone): a skip in a batch may come from the orders before
        // it (a pool they moved) or a deadline that passed while it waited, neither a reason to reject.
        for (const [index, relay] of skipped.entries()) {
          next.push(spentNow[index] ? { then: "settledWithoutUs", relay } : { then: "alone", relayId: relay.id });
        }
        members = members.filter((_, index) => ((settled >> BigInt(index)) & 1n) === 1n);
      }
      if (members.length === 0) return;
      for (const relay of members) this.context.metrics?.stages.lap(relay.id, "simulation");
      // The members that settled in the simulation settle the same way without the skipped ones
      // (a skipped order changes nothing): no second simulation, even for a batch of one.
      await signer.exclusive(async () => {
        for (const relay of members) this.context.metrics?.stages.lap(relay.id, "signer_lock");
        while (members.length > 0) {
          const nonce = signer.nonces.allocate();
          dropReservation();
          let sent: BatchBroadcast;
          try {
            sent = await signPersistSendBatch(
              { client, store: this.context.store, chainId: this.context.config.chainId, now: this.context.now, relayerId: this.context.config.relayerId },
              signer,
              { kind: "swap", router, relays: members, nonce, fees, expect: { kind: "unsent" } },
            );
          } catch (error) {
            // As for one relay: if the write committed (read back), the watcher follows and sends it;
            // otherwise the nonce is released, a gap the watcher fills.
            // A refusal of the signing policy signed and recorded nothing: the nonce is the next one again.
            const stored = error instanceof SigningRefusedError ? undefined : await this.context.store.getRelay(members[0]!.id).catch(() => undefined);
            if (error instanceof SigningRefusedError) signer.nonces.giveBack(nonce);
            else if (stored?.signerNonce === nonce && stored.signer === signer.address) for (const relay of members) next.push({ then: "track", relayId: relay.id, resend: true });
            else signer.nonces.release(nonce);
            pool.notify();
            throw error;
          }
          if (!sent.recorded) {
            // Nothing recorded nor sent: the nonce is the next one again, for the batch without them.
            signer.nonces.giveBack(nonce);
            const refused = new Set<string>();
            for (const { relayId, refusal } of sent.refused) {
              refused.add(relayId);
              if (refusal === "lapsed") next.push({ then: "wait", relayId, details: {}, message: "lease on the relay lapsed before its batch was recorded; waiting for a renewal" });
              else {
                // Its own attempt reads it again: sent by another relayer (left), ended, or cancelled (ends it).
                logger.warn({ relayId, refusal }, "relay changed or was taken over before its batch was recorded; left out of the batch");
                next.push({ then: "alone", relayId });
              }
            }
            members = members.filter((relay) => !refused.has(relay.id));
            continue;
          }
          // A batch's sign_persist is timed with its broadcast (one lap for both).
          for (const relay of members) this.context.metrics?.stages.lap(relay.id, "broadcast");
          logger.info({ hash: sent.hash, signer: signer.address, nonce, size: members.length, relayIds: members.map((relay) => relay.id), outcome: sent.outcome }, "batch submitted");
          next.push(...(await this.#afterSend(members, signer, nonce, sent)));
          return;
        }
      });
    } finally {
      dropReservation();
    }
  }

  /** What becomes of a recorded batch's members after the node's answer to its broadcast. */
  async #afterSend(members: RelayRecord[], signer: Signer, nonce: number, sent: Extract<BatchBroadcast, { recorded: true }>): Promise<RelayFollowUp[]> {
    const { store, pool, logger, now, client } = this.context;
    switch (sent.outcome) {
      case "sent":
      case "transient":
      case "busy":
      case "nonce_gap":
        if (sent.outcome === "transient" || sent.outcome === "nonce_gap") this.context.reconciler.request(signer, sent.outcome);
        return members.map((relay) => ({ then: "track", relayId: relay.id, resend: sent.outcome !== "sent" }));
      case "nonce_too_low":
      case "underpriced":
      case "insufficient_funds": {
        // As for one relay (relayQueue.ts): the chain, not the answer, says whether the nonce was taken.
        const found = sent.outcome === "insufficient_funds" ? "absent" : await checkSent(client, signer.address, sent.hash, nonce).catch(() => undefined);
        if (found === "known" || found === undefined || (found === "absent" && sent.outcome === "nonce_too_low")) {
          logger.warn({ signer: signer.address, nonce, outcome: sent.outcome, error: sent.error, found: found ?? "unreadable" }, "the node refused the batch but the chain does not show its nonce taken; following it");
          this.context.reconciler.request(signer, sent.outcome);
          return members.map((relay) => ({ then: "track", relayId: relay.id, resend: found !== "known" }));
        }
        logger.warn({ signer: signer.address, nonce, outcome: sent.outcome, error: sent.error }, "the node refused the batch; its relays go back to the queue");
        signer.nonces.release(nonce);
        if (sent.outcome === "insufficient_funds") signer.funded = false;
        else signer.nonces.resync(Math.max(nonce + 1, await client.getTransactionCount({ address: signer.address, blockTag: "pending" }).catch(() => 0)));
        for (const relay of members) await store.updateRelay(relay.id, { releaseSigner: true, at: now() });
        pool.notify();
        return members.map((relay): RelayFollowUp =>
          sent.outcome === "underpriced"
            ? { then: "wait", relayId: relay.id, details: { error: sent.error }, message: "the node refused the tip; retrying later" }
            : { then: "requeue", relayId: relay.id, delayMs: sent.outcome === "insufficient_funds" ? 1_000 : 0 },
        );
      }
      default: {
        // Mined and reverted on a chain that mines on send: the watcher reads the receipt.
        const receipt = await client.getTransactionReceipt({ hash: sent.hash }).catch(() => undefined);
        if (receipt !== undefined) {
          return members.map((relay) => ({ then: "track", relayId: relay.id, resend: false }));
        }
        logger.warn({ hash: sent.hash, error: sent.error }, "the node refused the batch transaction; its relays are sent one by one");
        signer.nonces.release(nonce);
        for (const relay of members) await store.updateRelay(relay.id, { releaseSigner: true, at: now() });
        pool.notify();
        return members.map((relay) => ({ then: "alone", relayId: relay.id }));
      }
    }
  }
}
