import { RateLimiterMemory, type RateLimiterAbstract } from "rate-limiter-flexible";

/** One bucket's settings: `points` requests per `duration` seconds for each key, keys prefixed by the bucket. */
export type RateLimiterOptions = { keyPrefix: string; points: number; duration: number };

/**
 * What the buckets use of a limiter: `consume` resolves with the points left, or rejects with a
 * `RateLimiterRes` when the key's allowance is spent (any other rejection is a failure of its store).
 */
export type RateLimiter = Pick<RateLimiterAbstract, "consume">;

/**
 * Makes the limiter of a bucket. In memory (one API process) by default; on PostgreSQL every API
 * instance shares one table, so two instances do not double a key's allowance.
 */
export type RateLimiterFactory = (options: RateLimiterOptions) => RateLimiter;

export const memoryRateLimiters: RateLimiterFactory = (options) => new RateLimiterMemory(options);
