import type { Logger } from "pino";
import { RateLimiterRes } from "rate-limiter-flexible";
import { memoryRateLimiters, type RateLimiter, type RateLimiterFactory } from "./rateLimiterFactory";

/** While the shared store is out, how often one request's consumption is also tried there, in the background. */
const PROBE_EVERY_MS = 1_000;

export type PerInstanceFallbackOptions = Readonly<{
  /** Whether a failure of the shared store means it cannot be reached (rather than a bug to surface). */
  isUnavailable: (error: unknown) => boolean;
  logger: Logger;
  /** Where each bucket counts meanwhile; in memory by default. */
  fallback?: RateLimiterFactory;
  now?: () => number;
}>;

/**
 * Shared limits (every instance counting in PostgreSQL) that keep working when the database cannot be
 * reached: each bucket then counts in this instance's memory, with the same allowance, so N instances
 * allow at most N times a key's limit for the outage instead of refusing (or failing) every request
 * they could still serve, such as the snapshot, which is served from memory. The first request that
 * finds the store out waits for its failure; later ones go straight to memory, and one consumption
 * per second is also tried in the shared store in the background: the first that succeeds ends the
 * outage. The outage is logged once (warn) and its end once (info), for all buckets together.
 */
export function withPerInstanceFallback(shared: RateLimiterFactory, options: PerInstanceFallbackOptions): RateLimiterFactory {
  const outage = new SharedStoreOutage(options.logger, options.now ?? Date.now);
  const fallback = options.fallback ?? memoryRateLimiters;
  return (limiterOptions) => {
    const primary = shared(limiterOptions);
    let local: RateLimiter | undefined;
    const localLimiter = () => (local ??= fallback(limiterOptions));
    return {
      consume: async (key, points, consumeOptions) => {
        if (outage.active) {
          if (outage.probeDue()) {
            // Counted in the shared store too when it answers: the point was spent either way.
            void primary.consume(key, points, consumeOptions).then(
              () => outage.end(),
              (rejection: unknown) => (rejection instanceof RateLimiterRes ? outage.end() : outage.probeFailed(rejection, options.isUnavailable)),
            );
          }
          return localLimiter().consume(key, points, consumeOptions);
        }
        try {
          const result = await primary.consume(key, points, consumeOptions);
          outage.end();
          return result;
        } catch (rejection) {
          if (rejection instanceof RateLimiterRes || !options.isUnavailable(rejection)) throw rejection;
          outage.begin(rejection);
          return localLimiter().consume(key, points, consumeOptions);
        }
      },
    };
  };
}

/** Whether the shared store is out, since when, and when to try it again; logs each change once. */
class SharedStoreOutage {
  #since: number | undefined;
  #nextProbe = 0;
  #probing = false;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  get active(): boolean {
    return this.#since !== undefined;
  }

  begin(error: unknown): void {
    if (this.#since !== undefined) return;
    this.#since = this.now();
    this.#nextProbe = this.#since + PROBE_EVERY_MS;
    this.logger.warn({ err: error }, "shared rate limits cannot be reached (PostgreSQL): counting per instance until it answers again");
  }

  /** True for at most one caller at a time, once per probe interval. */
  probeDue(): boolean {
    if (this.#probing || this.now() < this.#nextProbe) return false;
    this.#probing = true;
    return true;
  }

  probeFailed(error: unknown, isUnavailable: (error: unknown) => boolean): void {
    this.#probing = false;
    this.#nextProbe = this.now() + PROBE_EVERY_MS;
    // The store answered, but with something else than an outage: counting in memory is still safer
    // than failing requests; the error is logged, and the next probe tries again.
    if (!isUnavailable(error)) this.logger.error({ err: error }, "shared rate limits failed while probing after an outage");
  }

  end(): void {
    this.#probing = false;
    if (this.#since === undefined) return;
    const seconds = Math.round((this.now() - this.#since) / 1000);
    this.#since = undefined;
    this.logger.info({ outageSeconds: seconds }, "shared rate limits reachable again (PostgreSQL): counting across instances again");
  }
}
