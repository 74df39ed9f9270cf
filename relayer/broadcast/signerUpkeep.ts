import type { BlockHead as Head } from "../../sdk/chain/chainHead";
import type { RelayContext } from "../queue/relayContext";
import type { Signer } from "./signerPool";
import type { RelayRecord } from "../store/relayStore";

/**
 * The watcher's periodic care of the signers: their balances against the floor, the nonces they have
 * settled, and our nonces held by relays another relayer took over. Holes in their nonces are the
 * reconciliation's (nonceReconciler.ts).
 */
export class SignerUpkeep {
  /**
   * Our signers' nonces held by relays another relayer took over, with each relay's deadline. Mined,
   * they go at the signer check (`settle`); never mined (the node dropped our transaction), they are
   * let go once the deadline passed: the swap can no longer fill, and the gap fill may take the nonce.
   */
  readonly #handedOver = new Map<Signer, Map<number, bigint>>();

  /** Signers past their daily spend cap at the last check: logged once when they reach it, woken when they leave it. */
  readonly #exhausted = new Set<Signer>();

  constructor(private readonly context: RelayContext) {}

  /** Remembers our nonce a relay another relayer owns now may still hold. */
  handOver(relay: RelayRecord): void {
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

  /** Settles mined nonces, lets go of expired handed-over ones, and flags signers low on ETH. */
  async check(head: Head, minedCount: (signer: Signer) => Promise<number>): Promise<void> {
    const { client, config, logger, pool, treasury } = this.context;
    await treasury?.settle();
    for (const signer of pool.signers) {
      const balance = await client.getBalance({ address: signer.address });
      this.context.metrics?.signerBalance.set({ signer: signer.address }, Number(balance));
      signer.balance = balance;
      const funded = balance >= config.minSignerBalanceWei;
      this.context.metrics?.signerBelowFloor.set({ signer: signer.address }, funded ? 0 : 1);
      // Logged when it crosses the floor, not at every check: one warn per drop, one info per recovery.
      if (funded !== signer.funded) {
        signer.funded = funded;
        if (!funded) logger.warn({ signer: signer.address, balance: balance.toString(), floor: config.minSignerBalanceWei.toString(), pending: signer.nonces.inFlight }, "signer balance below the floor (RELAYER_MIN_SIGNER_BALANCE_ETH); no new relays for it, it finishes its pending ones");
        else {
          logger.info({ signer: signer.address, balance: balance.toString() }, "signer balance back above the floor; it takes relays again");
          pool.notify();
        }
      }
      // A drained signer is being retired or is suspect (a leaked key): the treasury never funds it.
      if (!funded && !signer.drained && treasury !== undefined) await treasury.topUp(signer.address, balance);
      const exhausted = signer.spend.exhausted(this.context.now().getTime());
      if (exhausted !== this.#exhausted.has(signer)) {
        if (exhausted) {
          this.#exhausted.add(signer);
          logger.warn({ signer: signer.address, spent: signer.spend.spent(this.context.now().getTime()).toString(), cap: String(signer.spend.capWei) }, "signer reached its daily spend cap; no new work for it");
        } else {
          this.#exhausted.delete(signer);
          logger.info({ signer: signer.address }, "signer back under its daily spend cap");
          pool.notify();
        }
      }
      const mined = await minedCount(signer);
      const expired = this.#releaseHandedOver(signer, mined, head);
      if (signer.nonces.settle(mined) > 0 || expired) pool.notify();
      // A nonce let go here may leave a hole: the reconciliation fills it (nonceReconciler.ts).
      if (expired) this.context.reconciler.request(signer, "handed-over nonce expired");
    }
  }
}
