import { adoptRelay } from "../intake/relayAdoption";
import type { RelayContext } from "./relayContext";
import type { RelayQueue } from "./relayQueue";
import type { ReceiptWatcher } from "../receipts/receiptWatcher";
import type { RelayRecord } from "../store/relayStore";

/** Relays claimed per query; a pass claims batches until none are left. */
const CLAIM_BATCH = 100;
/** At start every open relay is claimed in one query (ours may not be claimable again in a second). */
const START_CLAIM_LIMIT = 1_000_000;

export type ClaimPass = { followed: number; queued: number; confirmed: number; takenOver: number };

/**
 * Keeps this relayer's hold on its relays and takes over those of relayers that died. At start,
 * `recover()` claims and adopts every open relay it may take (its own, unclaimed ones, and those
 * whose lease ran out), before any new work: this is crash recovery. Then every third of the lease it
 * renews its leases and claims relays whose owner stopped renewing (`RELAYER_LEASE_SECONDS`), so a
 * relayer killed mid-run has its relays finished by another. A relay whose adoption could not read
 * the chain stays claimed and is tried again next pass.
 */
export class LeaseKeeper {
  readonly #unadopted = new Map<string, RelayRecord>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = false;

  constructor(
    private readonly context: RelayContext,
    private readonly queue: RelayQueue,
    private readonly watcher: ReceiptWatcher,
  ) {}

  #lease() {
    const { config } = this.context;
    return { owner: config.relayerId, until: new Date(this.context.now().getTime() + config.leaseSeconds * 1000) };
  }

  /** Claims and adopts every open relay this relayer may take, its own included; then one watcher pass. */
  async recover(): Promise<ClaimPass> {
    const pass = await this.#claim(true);
    await this.watcher.tick();
    if (pass.followed + pass.queued + pass.confirmed > 0) this.context.logger.info(pass, "recovered open relays");
    return pass;
  }

  start(): void {
    const periodMs = Math.max(100, (this.context.config.leaseSeconds * 1000) / 3);
    const loop = () => {
      if (this.#stopped) return;
      this.#timer = setTimeout(() => {
        this.#running = this.#renewAndTakeOver().finally(loop);
      }, periodMs);
    };
    loop();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    await this.#running;
  }

  async #renewAndTakeOver(): Promise<void> {
    const { store, logger } = this.context;
    try {
      const lease = this.#lease();
      await store.renewLeases(lease);
      // The registration of our signer addresses lives as long as our leases (see startRelayer).
      await store.renewSigners(lease.owner, lease.until, this.context.pool.signers.map((signer) => signer.address));
      for (const relay of [...this.#unadopted.values()]) await this.#adopt(relay);
      const pass = await this.#claim(false);
      if (pass.takenOver > 0) logger.warn(pass, "took over relays of a relayer whose lease ran out");
    } catch (error) {
      logger.warn({ err: error instanceof Error ? error.message : String(error) }, "lease renewal or takeover failed; retrying next period");
    }
  }

  /**
   * With `own` (at start) one claim takes every open relay we may have, our own included; later
   * passes claim batches of others' until none is left (a claimed relay is ours, so not claimable).
   */
  async #claim(own: boolean): Promise<ClaimPass> {
    const pass: ClaimPass = { followed: 0, queued: 0, confirmed: 0, takenOver: 0 };
    for (;;) {
      const claimed = await this.context.store.claimOpenRelays(this.#lease(), this.context.now(), own ? START_CLAIM_LIMIT : CLAIM_BATCH, { own });
      for (const { relay, previousOwner } of claimed) {
        if (previousOwner !== undefined && previousOwner !== this.context.config.relayerId) {
          pass.takenOver++;
          this.context.metrics?.takeovers.inc();
          this.context.logger.warn({ relayId: relay.id, previousOwner, status: relay.status }, "relay claimed from a relayer whose lease ran out");
        }
        const adopted = await this.#adopt(relay);
        if (adopted) pass[adopted]++;
      }
      if (own || claimed.length < CLAIM_BATCH) return pass;
    }
  }

  async #adopt(relay: RelayRecord): Promise<"followed" | "queued" | "confirmed" | undefined> {
    const adopted = await adoptRelay(this.context, relay, this.queue, this.watcher);
    if (adopted === false) {
      this.#unadopted.set(relay.id, relay);
      return undefined;
    }
    this.#unadopted.delete(relay.id);
    return adopted;
  }
}
