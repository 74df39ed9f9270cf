import { Histogram, type Registry } from "prom-client";

/**
 * The stages of a relay's way from the queue to its broadcast, in order (see RelayQueue):
 * - `queue_wait`: queued until a job slot runs it;
 * - `load`: its record read from the store and its lease checked;
 * - `nonce_check`: the head read (shared, usually cached), the deadline, and the Permit2 nonce read on chain;
 * - `signer_wait`: waiting for a signer with room (RELAYER_MAX_PENDING_PER_SIGNER);
 * - `simulation`: the swap executed once at the latest block (eth_call);
 * - `signer_lock`: waiting for the signer's lock (its nonces go out in order);
 * - `sign_persist`: signing and writing the signed transaction to the store;
 * - `broadcast`: eth_sendRawTransaction.
 */
export const RELAY_STAGES = ["queue_wait", "load", "nonce_check", "signer_wait", "simulation", "signer_lock", "sign_persist", "broadcast"] as const;
export type RelayStage = (typeof RELAY_STAGES)[number];

/** From 0.5 ms to 60 s: a stage is a SQLite write at best and a saturated node's queue at worst. */
export const STAGE_BUCKETS = [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 30, 60];

/** Relays timed at once at most; past it the oldest are dropped (a relay that ended before its broadcast never laps again). */
const MAX_OPEN = 10_000;

/**
 * Per-stage timings of each relay's attempt to go out, as the histogram `relayer_relay_stage_seconds{stage}`:
 * `start` when the attempt is queued, then `lap` at the end of each stage records the time since the
 * previous mark. The hooks in the queue are one line each, so batching or reordering stages moves lines only.
 */
export class RelayStageTimings {
  readonly histogram: Histogram<"stage">;
  readonly #marks = new Map<string, number>();

  constructor(registry: Registry) {
    this.histogram = new Histogram({
      name: "relayer_relay_stage_seconds",
      help: "Time a relay spends in each stage between being queued and its broadcast (queue_wait, load, nonce_check, signer_wait, simulation, signer_lock, sign_persist, broadcast)",
      labelNames: ["stage"] as const,
      buckets: STAGE_BUCKETS,
      registers: [registry],
    });
  }

  /** The relay's attempt is queued: its stages are timed from now. */
  start(relayId: string): void {
    this.#marks.delete(relayId);
    this.#marks.set(relayId, performance.now());
    if (this.#marks.size > MAX_OPEN) this.#marks.delete(this.#marks.keys().next().value!);
  }

  /** The relay finished `stage`: records the time since its previous mark. The last stage forgets the relay. */
  lap(relayId: string, stage: RelayStage): void {
    const previous = this.#marks.get(relayId);
    if (previous === undefined) return;
    const now = performance.now();
    this.histogram.observe({ stage }, (now - previous) / 1000);
    if (stage === "broadcast") this.#marks.delete(relayId);
    else this.#marks.set(relayId, now);
  }
}
