import type { Logger } from "pino";
import { isNoAnswerWithoutExecution } from "../../sdk/rpc/noAnswer";
import type { Address, Hex, PublicClient } from "viem";
import type { ChainHead } from "../../sdk/chain/chainHead";
import { sendRaw } from "./broadcaster";
import type { RelayerConfig } from "../config";
import { initialFees } from "./feeBump";
import type { RelayerMetrics } from "../relayerMetrics";
import type { Signer, SignerPool } from "./signerPool";
import { rpcErrorText } from "./rpcErrorText";
import { PollingLoop } from "../../sdk/scheduling/pollingLoop";

/**
 * Where a transaction stands after an answer that does not say (a timeout, a lost answer, "nonce too
 * low" or "underpriced" for a nonce we hold): `known` the node has it (pending or mined), `taken`
 * something else holds its nonce at the node, `absent` neither: the nonce is still free and ours.
 */
export type SentCheck = "known" | "taken" | "absent";

/** What one reconciliation of a signer did. */
export type Reconciliation = { mined: number; pending: number; settled: number; resynced: boolean; resent: number; filled: number };

/** At most this many nonces are repaired per signer per pass: a pass stays short, the next one goes on. */
const REPAIRS_PER_PASS = 64;

/** Whether the node knows the transaction `hash` (pending or mined); a node that cannot be reached throws. */
async function nodeKnows(client: PublicClient, hash: Hex): Promise<boolean> {
  return client.getTransaction({ hash }).then(
    () => true,
    (error: unknown) => {
      if (isNoAnswerWithoutExecution(error)) throw error;
      return false;
    },
  );
}

/**
 * Asks the chain, not the answer, whether our transaction `hash` at `nonce` reached the node. The
 * hash is looked up again after the nonce count, so a transaction of ours mined between the two reads
 * is not mistaken for someone else's.
 */
export async function checkSent(client: PublicClient, signer: Address, hash: Hex, nonce: number): Promise<SentCheck> {
  if (await nodeKnows(client, hash)) return "known";
  const pending = await client.getTransactionCount({ address: signer, blockTag: "pending" });
  if (pending <= nonce) return "absent";
  return (await nodeKnows(client, hash)) ? "known" : "taken";
}

type ReconcilerDeps = {
  client: PublicClient;
  pool: SignerPool;
  head: ChainHead;
  logger: Logger;
  config: Pick<RelayerConfig, "chainId" | "priorityFeeWei" | "maxFeeWei" | "nonceReconcileMs">;
  metrics?: RelayerMetrics;
};

/**
 * Keeps each signer's nonce counter (nonceTracker.ts) honest against the chain, on its own: every
 * RELAYER_NONCE_RECONCILE_MS, and at once after any answer that leaves a nonce in doubt (a timeout or
 * a lost answer, "nonce too high", "nonce too low" or "underpriced" for a nonce we hold). A pass reads
 * the signer's mined and pending counts and:
 * - lets go of held nonces the chain has mined (whatever used them);
 * - catches the counter up when the node counts more than we handed out (the key was used elsewhere);
 * - from the node's pending count up to our counter, sends again the transaction we signed at each
 *   held nonce the node may have lost (a dropped answer that hid a refusal, a node restart that lost
 *   its mempool, an "already known" that was not), and fills each nonce nothing of ours holds with a
 *   zero-value self-transfer, so no later transaction of the signer waits behind a hole.
 * Nonces below the pending count are left alone: the node has something at each of them.
 */
export class NonceReconciler {
  readonly #running = new Map<Signer, Promise<Reconciliation | undefined>>();
  readonly #again = new Set<Signer>();
  readonly #loop: PollingLoop;
  #stopped = false;

  constructor(private readonly deps: ReconcilerDeps) {
    this.#loop = new PollingLoop(() => this.reconcileAll(), deps.config.nonceReconcileMs, (error) => deps.logger.warn({ err: error }, "nonce reconciliation pass failed; the next one tries again"));
  }

  start(): void {
    this.#loop.start();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop.stop();
    // Reconciliations asked for outside the schedule (after an ambiguous answer) are waited for too.
    await Promise.all(this.#running.values());
  }

  /** One pass over every signer; a failed read leaves that signer for the next pass. */
  async reconcileAll(): Promise<void> {
    await Promise.all(this.deps.pool.signers.map((signer) => this.reconcile(signer, "schedule")));
  }

  /**
   * Reconciles `signer` now (`reason` is logged with what it did). A call while a pass of the signer
   * runs is served by one more pass after it, so an answer that came mid-pass is not missed.
   */
  reconcile(signer: Signer, reason: string): Promise<Reconciliation | undefined> {
    const running = this.#running.get(signer);
    if (running !== undefined) {
      this.#again.add(signer);
      return running;
    }
    const pass = this.#pass(signer, reason)
      .catch((error: unknown) => {
        this.deps.logger.warn({ signer: signer.address, reason, err: rpcErrorText(error) }, "nonce reconciliation could not read the chain; trying again at the next pass");
        return undefined;
      })
      .finally(() => {
        this.#running.delete(signer);
        if (this.#again.delete(signer) && !this.#stopped) void this.reconcile(signer, reason);
      });
    this.#running.set(signer, pass);
    return pass;
  }

  /** Asks for a pass of `signer` after an ambiguous answer, without waiting for it. */
  request(signer: Signer, reason: string): void {
    if (!this.#stopped) void this.reconcile(signer, reason);
  }

  async #pass(signer: Signer, reason: string): Promise<Reconciliation> {
    const { client, pool, logger, metrics } = this.deps;
    const [mined, pending] = await Promise.all([
      client.getTransactionCount({ address: signer.address, blockTag: "latest" }),
      client.getTransactionCount({ address: signer.address, blockTag: "pending" }),
    ]);
    const done: Reconciliation = { mined, pending, settled: signer.nonces.settle(mined), resynced: false, resent: 0, filled: 0 };
    if (done.settled > 0) pool.notify();
    if (pending > signer.nonces.next) {
      logger.warn({ signer: signer.address, pending, next: signer.nonces.next }, "the node counts more transactions of this signer than it handed out (its key was used elsewhere); moving its nonce counter up");
      signer.nonces.resync(pending);
      done.resynced = true;
      metrics?.nonceRepairs.inc({ action: "resync" });
    }
    metrics?.nonceLag.set({ signer: signer.address }, Math.max(0, signer.nonces.next - Math.max(mined, pending)));
    const from = Math.max(mined, pending);
    const until = Math.min(signer.nonces.next, from + REPAIRS_PER_PASS);
    for (let nonce = from; nonce < until; nonce++) {
      const raw = signer.nonces.signedAt(nonce);
      if (raw !== undefined) {
        const { outcome } = await sendRaw(client, raw);
        done.resent++;
        metrics?.nonceRepairs.inc({ action: "resend" });
        logger.info({ signer: signer.address, nonce, outcome, reason }, "sent our transaction again: the node did not count it");
      } else if (!signer.nonces.holds(nonce) && (await this.#fill(signer, nonce, reason))) done.filled++;
    }
    return done;
  }

  /**
   * Fills a nonce nothing of ours holds with a zero-value self-transfer, under the signer's lock (a
   * nonce handed back by a refused store write is handed out again there: it is never filled then).
   */
  async #fill(signer: Signer, nonce: number, reason: string): Promise<boolean> {
    const { client, config, head, logger, metrics } = this.deps;
    return signer.exclusive(async () => {
      // A signer retired and let go meanwhile (signerRoster.ts), or whose address another relayer took, sends nothing more.
      if (this.deps.pool.bySigner(signer.address) !== signer || signer.lost) return false;
      if (nonce >= signer.nonces.next || signer.nonces.holds(nonce)) return false;
      const { baseFeePerGas } = await head.read();
      const raw = await signer.account.signTransaction({
        type: "eip1559",
        chainId: config.chainId,
        nonce,
        to: signer.address,
        value: 0n,
        gas: 21_000n,
        ...initialFees(baseFeePerGas, config.priorityFeeWei, config.maxFeeWei),
      });
      const { outcome } = await sendRaw(client, raw);
      metrics?.nonceRepairs.inc({ action: "fill" });
      logger.warn({ signer: signer.address, nonce, outcome, reason }, "filled a nonce gap with a self-transfer");
      return true;
    });
  }
}
