import { PollingLoop } from "../../sdk/scheduling/pollingLoop";
import type { RelayContext } from "../queue/relayContext";
import type { Signer } from "./signerPool";
import type { SignerRoster } from "./signerRoster";

/**
 * Keeps the pool's signers in step with the operator's decisions in the store (`relayer-admin
 * signers add|drain|resume|retire`), and reports what this relayer sees of them (`signers list`):
 * once at start, before any work is chosen, then every `RELAYER_SIGNER_STATE_POLL_MS`. The store is
 * shared on PostgreSQL, so one command reaches whichever relayer holds the signer.
 */
export class SignerStateSync {
  readonly #loop: PollingLoop;
  /** Retired signers are let go only once recovery has held their nonces: not at the first sync. */
  #recovered = false;

  constructor(
    private readonly context: RelayContext,
    private readonly roster: SignerRoster,
  ) {
    this.#loop = new PollingLoop(() => this.sync(), context.config.signerStatePollMs, (error) => context.logger.warn({ err: error }, "could not read the signers' drain states; trying again"));
  }

  /** Reads the decisions and applies them (opening added or resumed keys, letting idle retired ones go); then writes this relayer's report. */
  async sync(): Promise<void> {
    const { store, pool, logger, config } = this.context;
    const records = await store.signerStates();
    const opened = await this.roster.admit(records, !this.#recovered);
    const states = new Map(records.map((record) => [record.signer.toLowerCase(), record.state]));
    // An address whose registration lapsed (a database outage, a stall longer than RELAYER_LEASE_SECONDS)
    // and that another relayer claimed since: that relayer signs with it now, so this one must not.
    const held = new Set((await store.heldSigners(config.relayerId)).map((address) => address.toLowerCase()));
    let resumed = opened.length > 0;
    const letGo: Signer[] = [];
    for (const signer of pool.signers) {
      const lost = !held.has(signer.address.toLowerCase());
      if (lost && !signer.lost) {
        logger.error({ signer: signer.address, pending: signer.nonces.inFlight }, "another relayer holds this signer's address now (this relayer's registration lapsed): no new relays for it here; it is let go once nothing of it is in flight");
      }
      if (lost) {
        signer.drained = true;
        signer.lost = true;
        if (this.#recovered) await this.roster.retire(signer, { release: false });
        continue;
      }
      const state = states.get(signer.address.toLowerCase()) ?? "active";
      const drained = state !== "active";
      this.context.metrics?.signerDrained.set({ signer: signer.address }, drained ? 1 : 0);
      if (drained !== signer.drained) {
        signer.drained = drained;
        if (!drained) {
          logger.info({ signer: signer.address }, "signer resumed by the operator");
          resumed = true;
        } else if (state === "retired") logger.info({ signer: signer.address, pending: signer.nonces.inFlight }, "signer retired by the operator: no new relays for it; its key is closed once its pending ones are final");
        else logger.info({ signer: signer.address, pending: signer.nonces.inFlight }, "signer drained by the operator: no new relays for it; it finishes its pending ones");
      }
      if (state === "retired" && this.#recovered && (await this.roster.retire(signer))) letGo.push(signer);
    }
    if (resumed) pool.notify();
    const now = this.context.now();
    await store.reportSigners(
      config.relayerId,
      // A signer let go now is reported once more, with nothing pending: `signers list` shows it idle.
      // One whose address another relayer holds is that relayer's to report.
      [...pool.signers.filter((signer) => !signer.lost), ...letGo].map((signer) => ({ signer: signer.address, backend: signer.backend, balanceWei: signer.balance, pending: signer.nonces.inFlight, dailySpendWei: signer.spend.spent(now.getTime()) })),
      now,
    );
  }

  /** Every RELAYER_SIGNER_STATE_POLL_MS after the first `sync` (called once recovery is done), never two at once. */
  start(): void {
    this.#recovered = true;
    this.#loop.start();
  }

  /** Stops the polling and waits for a sync in flight (the store is closed after it). */
  async stop(): Promise<void> {
    await this.#loop.stop();
  }
}
