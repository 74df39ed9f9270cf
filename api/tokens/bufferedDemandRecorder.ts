import type { Logger } from "pino";
import type { Address } from "viem";
import { isNativeToken } from "../../sdk";
import { isHexAddress } from "../services/checksummedAddress";
import { isPostgresUnavailableError } from "../../sdk/storage/postgresUnavailable";
import type { DatabaseOutage } from "../store/databaseOutage";
import type { Store, TokenDemandObservation } from "../store/store";
import type { DemandObservation, DemandRecorder } from "./demandRecorder";

export type BufferedDemandRecorderOptions = Readonly<{
  store: Pick<Store, "recordTokenDemand">;
  logger: Logger;
  /** Most (chain, token, integrator) observations held between flushes; new ones beyond it are dropped and counted. */
  maxTracked: number;
  /** Buffer size that asks for an early flush; default half of `maxTracked`. */
  flushAt?: number;
  /**
   * Called (once, until the next flush) when the buffer reaches `flushAt`; whoever owns the recorder
   * flushes (and then promotes). Default: the recorder flushes itself on the next turn of the event loop.
   */
  onFlushWanted?: () => void;
  /** Where a write that finds PostgreSQL out is reported (logged once per outage); absent: logged as an error each time. */
  outage?: DatabaseOutage;
}>;

export type DemandFlushResult = Readonly<{ written: number; dropped: number }>;

type Entry = { chainId: number; token: Address; integratorId: number; firstSeen: number; lastSeen: number };

/**
 * Unsupported-token demand, aggregated in memory and written in batches. `record` is synchronous and
 * O(1) (one map lookup, no I/O), so the quote path's 400 is not slowed by it; repeated probes of one
 * integrator for one token collapse into one entry with its first and last time. Memory is bounded
 * by `maxTracked` entries: beyond it new entries are dropped (counted and logged at the next flush),
 * while entries already held keep updating.
 */
export class BufferedDemandRecorder implements DemandRecorder {
  readonly #options: BufferedDemandRecorderOptions;
  readonly #flushAt: number;
  #buffer = new Map<string, Entry>();
  #dropped = 0;
  #flushWanted = false;
  #flushing: Promise<DemandFlushResult> | undefined;

  constructor(options: BufferedDemandRecorderOptions) {
    this.#options = options;
    this.#flushAt = Math.max(1, Math.min(options.maxTracked, options.flushAt ?? Math.ceil(options.maxTracked / 2)));
  }

  record(observation: DemandObservation): void {
    // Only token addresses are demand; a symbol or the always-supported native placeholder is not.
    if (!isHexAddress(observation.token) || isNativeToken(observation.token)) return;
    const token = observation.token.toLowerCase() as Address;
    const key = `${observation.chainId}:${token}:${observation.integratorId}`;
    const at = observation.at.getTime();
    const held = this.#buffer.get(key);
    if (held !== undefined) {
      if (at < held.firstSeen) held.firstSeen = at;
      if (at > held.lastSeen) held.lastSeen = at;
      return;
    }
    if (this.#buffer.size >= this.#options.maxTracked) {
      this.#dropped += 1;
      return;
    }
    this.#buffer.set(key, { chainId: observation.chainId, token, integratorId: observation.integratorId, firstSeen: at, lastSeen: at });
    if (this.#buffer.size >= this.#flushAt && !this.#flushWanted) {
      this.#flushWanted = true;
      const wanted = this.#options.onFlushWanted ?? (() => setImmediate(() => void this.flush()));
      wanted();
    }
  }

  /** Entries held now, and observations dropped since the last flush. */
  stats(): Readonly<{ tracked: number; dropped: number }> {
    return { tracked: this.#buffer.size, dropped: this.#dropped };
  }

  /**
   * Writes what is buffered in one store transaction. Flushes never overlap: a call during a flush
   * waits for it and then writes what arrived meanwhile. A failed write puts its entries back (as far
   * as the bound allows) and is logged, not thrown, so a timer can call this safely.
   */
  async flush(): Promise<DemandFlushResult> {
    while (this.#flushing !== undefined) await this.#flushing;
    this.#flushing = this.#write();
    try {
      return await this.#flushing;
    } finally {
      this.#flushing = undefined;
    }
  }

  async #write(): Promise<DemandFlushResult> {
    const batch = this.#buffer;
    const dropped = this.#dropped;
    this.#buffer = new Map();
    this.#dropped = 0;
    this.#flushWanted = false;
    const { logger, store } = this.#options;
    if (dropped > 0) logger.warn({ dropped, maxTracked: this.#options.maxTracked }, "unsupported-token demand buffer was full; observations dropped");
    if (batch.size === 0) return { written: 0, dropped };
    const rows: TokenDemandObservation[] = [...batch.values()].map((entry) => ({
      chainId: entry.chainId,
      token: entry.token,
      integratorId: entry.integratorId,
      firstSeen: new Date(entry.firstSeen),
      lastSeen: new Date(entry.lastSeen),
    }));
    try {
      await store.recordTokenDemand(rows);
      return { written: rows.length, dropped };
    } catch (error) {
      if (this.#options.outage !== undefined && isPostgresUnavailableError(error)) this.#options.outage.begin(error);
      else logger.error({ err: error, entries: rows.length }, "writing unsupported-token demand failed; kept for the next flush");
      this.#restore(batch);
      return { written: 0, dropped };
    }
  }

  /** Merges an unwritten batch back into the buffer, within the bound. */
  #restore(batch: Map<string, Entry>): void {
    for (const [key, entry] of batch) {
      const held = this.#buffer.get(key);
      if (held !== undefined) {
        held.firstSeen = Math.min(held.firstSeen, entry.firstSeen);
        held.lastSeen = Math.max(held.lastSeen, entry.lastSeen);
      } else if (this.#buffer.size < this.#options.maxTracked) {
        this.#buffer.set(key, entry);
      } else {
        this.#dropped += 1;
      }
    }
  }
}
