import type { Logger } from "pino";
import { isPostgresUnavailableError } from "../../sdk/storage/postgresUnavailable";
import type { Clock } from "../clock";
import type { DatabaseOutage } from "../store/databaseOutage";
import type { Store } from "../store/store";
import type { BufferedDemandRecorder, DemandFlushResult } from "./bufferedDemandRecorder";
import type { ChainSupportedTokens } from "./chainSupportedTokens";
import type { PromotedTokenRecheck, RecheckOutcome } from "./promotedTokenRecheck";
import type { PromotionOutcome, TokenPromoter } from "./tokenPromoter";

/** Demand older than this is forgotten; it is far outside any promotion window worth configuring. */
const DEMAND_RETENTION_MS = 30 * 24 * 3_600_000;

export type SupportedTokenJobsOptions = Readonly<{
  store: Store;
  logger: Logger;
  clock: Clock;
  recorder: BufferedDemandRecorder;
  promoter: TokenPromoter;
  recheck: PromotedTokenRecheck;
  chains: readonly Readonly<{ chainId: number; tokens: ChainSupportedTokens }>[];
  /** Period of `refresh`. */
  refreshSeconds: number;
  /** Period of `flushDemand`. */
  flushSeconds: number;
  /** Demand last seen before now minus this is pruned; at least the promotion window. */
  promotionWindowHours: number;
  /** Where a run that finds the database out reports it (logged once per outage, not per run); shared with the recorder. */
  outage: DatabaseOutage;
}>;

export type DemandFlushOutcome = Readonly<{ flush: DemandFlushResult; promotions: readonly PromotionOutcome[]; rechecks: readonly RecheckOutcome[] }>;

/**
 * The background work behind the supported-token set, on two timers:
 * - `refresh` re-reads operator and promotion decisions from the database (the operator CLI is a
 *   separate process), rebuilding a chain's set only when they changed;
 * - `flushDemand` writes buffered demand, prunes old demand, runs promotion, then rechecks the
 *   promoted tokens that are due (`PromotedTokenRecheck`, which demotes those that fail).
 * Each job never overlaps itself; timers are unref'd, and `stop` clears them, waits for a running job
 * and writes the demand still buffered. Tests call the jobs directly instead of waiting for timers.
 * A run that fails because PostgreSQL cannot be reached marks `outage` (one warning for the outage,
 * one notice when a later run succeeds); any other failure is logged as an error.
 */
export class SupportedTokenJobs {
  readonly #options: SupportedTokenJobsOptions;
  #timers: NodeJS.Timeout[] = [];
  #refreshing: Promise<number> | undefined;
  #flushing: Promise<DemandFlushOutcome> | undefined;
  #stopped = false;

  constructor(options: SupportedTokenJobsOptions) {
    this.#options = options;
  }

  /** Re-reads decisions for every chain; returns how many chains' sets changed. After `stop`, does nothing. */
  refresh(): Promise<number> {
    if (this.#stopped) return Promise.resolve(0);
    this.#refreshing ??= this.#refresh().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /**
   * Flushes demand and runs promotion; a call during a run joins it. After `stop` it does nothing: an
   * early flush scheduled just before closing must not reach the closed store.
   */
  flushDemand(): Promise<DemandFlushOutcome> {
    if (this.#stopped) return Promise.resolve({ flush: { written: 0, dropped: 0 }, promotions: [], rechecks: [] });
    this.#flushing ??= this.#flushDemand().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /** Runs a flush now, reporting its failure as a timer's run would (a full demand buffer asks for this). */
  flushInBackground(): void {
    this.#run(() => this.flushDemand(), "flush demand");
  }

  start(): void {
    if (this.#stopped || this.#timers.length > 0) return;
    const { refreshSeconds, flushSeconds } = this.#options;
    const every = (seconds: number, job: () => Promise<unknown>, name: string) => {
      const timer = setInterval(() => this.#run(job, name), seconds * 1000);
      timer.unref();
      this.#timers.push(timer);
    };
    every(refreshSeconds, () => this.refresh(), "refresh");
    every(flushSeconds, () => this.flushDemand(), "flush demand");
  }

  #run(job: () => Promise<unknown>, name: string): void {
    const { logger, outage } = this.#options;
    job().then(
      () => outage.end(),
      (error: unknown) => (isPostgresUnavailableError(error) ? outage.begin(error) : logger.error({ err: error, job: name }, "supported-token job failed")),
    );
  }

  /** Stops the timers, waits for running jobs, and writes buffered demand (without promoting). */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    await Promise.allSettled([this.#refreshing, this.#flushing]);
    await this.#options.recorder.flush();
  }

  async #refresh(): Promise<number> {
    const { store, logger, chains } = this.#options;
    const overrides = await store.listTokenOverrides();
    let changed = 0;
    for (const chain of chains) {
      const before = chain.tokens.snapshot();
      if (!chain.tokens.applyOverrides(overrides)) continue;
      changed += 1;
      const after = chain.tokens.snapshot();
      if (after !== before) {
        logger.info({ chainId: chain.chainId, snapshotId: after.snapshot_id, count: after.count, previousCount: before.count }, "supported-token set changed");
      }
      const disabled = chain.tokens.disabledManifestSymbols();
      if (disabled.length > 0) logger.warn({ chainId: chain.chainId, disabled }, "manifest tokens disabled by the operator");
    }
    return changed;
  }

  async #flushDemand(): Promise<DemandFlushOutcome> {
    const { recorder, store, promoter, recheck, clock, promotionWindowHours } = this.#options;
    const flush = await recorder.flush();
    const retention = Math.max(DEMAND_RETENTION_MS, promotionWindowHours * 3_600_000);
    await store.pruneTokenDemand(new Date(clock.now().getTime() - retention));
    // Promotion compares stored demand with the decisions; a flush that wrote nothing still runs it
    // (another process may have written demand, and failed checks become due again).
    const promotions = await promoter.run();
    // Each promoted token is due every PROMOTION_RECHECK_MINUTES; most runs recheck nothing.
    const rechecks = await recheck.run();
    return { flush, promotions, rechecks };
  }
}
