import type { Logger } from "pino";
import { RateLimiterRes } from "rate-limiter-flexible";
import { DatabaseOutage } from "../store/databaseOutage";
import { memoryRateLimiters, type RateLimiter, type RateLimiterFactory } from "./rateLimiterFactory";

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
  const outage = new DatabaseOutage(
    options.logger,
    {
      down: "shared rate limits cannot be reached (PostgreSQL): counting per instance until it answers again",
      up: "shared rate limits reachable again (PostgreSQL): counting across instances again",
    },
    options.now ?? Date.now,
  );
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
