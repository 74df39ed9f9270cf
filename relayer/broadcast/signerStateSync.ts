import type { RelayContext } from "../queue/relayContext";

/**
 * Keeps the pool's signers in step with the operator's decisions in the store (`relayer-admin
 * signers drain|resume`), and reports what this relayer sees of them (`signers list`): once at start,
 * before any work is chosen, then every `RELAYER_SIGNER_STATE_POLL_MS`. The store is shared on
 * PostgreSQL, so one command drains a signer on whichever relayer holds it.
 */
export class SignerStateSync {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(private readonly context: RelayContext) {}

  /** Reads the decisions and applies them; then writes this relayer's report. */
  async sync(): Promise<void> {
    const { store, pool, logger, config } = this.context;
    const states = new Map((await store.signerStates()).map((record) => [record.signer.toLowerCase(), record.state]));
    let resumed = false;
    for (const signer of pool.signers) {
      const drained = states.get(signer.address.toLowerCase()) === "drained";
      this.context.metrics?.signerDrained.set({ signer: signer.address }, drained ? 1 : 0);
      if (drained === signer.drained) continue;
      signer.drained = drained;
      if (drained) logger.info({ signer: signer.address, pending: signer.nonces.inFlight }, "signer drained by the operator: no new relays for it; it finishes its pending ones");
      else {
        logger.info({ signer: signer.address }, "signer resumed by the operator");
        resumed = true;
      }
    }
    if (resumed) pool.notify();
    const now = this.context.now();
    await store.reportSigners(
      config.relayerId,
      pool.signers.map((signer) => ({ signer: signer.address, backend: signer.backend, balanceWei: signer.balance, pending: signer.nonces.inFlight, dailySpendWei: signer.spend.spent(now.getTime()) })),
      now,
    );
  }

  start(): void {
    const tick = () => {
      this.#running = this.sync()
        .catch((error: unknown) => this.context.logger.warn({ err: error }, "could not read the signers' drain states; trying again"))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(tick, this.context.config.signerStatePollMs);
        });
    };
    this.#timer = setTimeout(tick, this.context.config.signerStatePollMs);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
