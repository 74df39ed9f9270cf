import type { RateLimiter, RateLimiterFactory } from "./rateLimiterFactory";

/**
 * One limiter per bucket and allowance for the whole app: every route that charges a bucket (status
 * reads, event streams and delivery reads all charge `gasless:status`) draws from the same count. Without
 * it, each route's in-memory limiter would give a key one more allowance per route.
 */
export function sharedRateLimiters(make: RateLimiterFactory): RateLimiterFactory {
  const made = new Map<string, RateLimiter>();
  return (options) => {
    const id = `${options.keyPrefix}:${options.points}:${options.duration}`;
    let limiter = made.get(id);
    if (limiter === undefined) {
      limiter = make(options);
      made.set(id, limiter);
    }
    return limiter;
  };
}
