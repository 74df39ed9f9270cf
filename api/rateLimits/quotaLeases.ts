import { RateLimiterRes } from "rate-limiter-flexible";
import type { RateLimiter, RateLimiterFactory, RateLimiterOptions } from "./rateLimiterFactory";

/**
 * Where the leases of a key's budget are granted: atomically, for every instance. `lease` asks for up
 * to `want` points of `limit` in the window starting at `windowStart`, and answers how many it got
 * (0 once the window's `limit` is granted) and how many the window has granted in all.
 */
export interface QuotaLeaseSource {
  lease(key: string, windowStart: number, want: number, limit: number): Promise<{ granted: number; total: number }>;
}

/** The largest share of a key's per-minute budget one instance takes at once: min(⌈limit/10⌉, 20), at least 1. */
export function leaseSize(limit: number): number {
  return Math.max(1, Math.min(Math.ceil(limit / 10), 20));
}

/**
 * Quota leasing: each instance keeps a local bucket per key, filled by leases of at most
 * `leaseSize(limit)` points taken from the shared source in one round trip, so a key's requests cost
 * the database one statement per lease instead of one each. Windows are fixed and aligned (a key's
 * minute starts at a multiple of `duration` since the epoch); points left in a bucket when its window
 * ends are dropped.
 *
 * Bounds, per key and window, with N instances: the source never grants more than `limit`, so at most
 * `limit` requests are admitted (exact, never over); a request is refused early only while other
 * instances hold points they have leased and not used, at most (N − 1) × (leaseSize − 1) of them, so
 * at least `limit − (N − 1) × (leaseSize − 1)` are admitted before the first refusal (exactly `limit`
 * with one instance). Concurrent requests for one key share one lease request.
 */
export function leasedRateLimiters(source: QuotaLeaseSource, now: () => number = Date.now): RateLimiterFactory {
  return (options) => new LeasedRateLimiter(source, options, now);
}

type Bucket = { windowStart: number; tokens: number; total: number; exhausted: boolean; pending?: Promise<void> };

class LeasedRateLimiter implements RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #windowMs: number;
  readonly #lease: number;

  constructor(
    private readonly source: QuotaLeaseSource,
    private readonly options: RateLimiterOptions,
    private readonly now: () => number,
  ) {
    this.#windowMs = options.duration * 1000;
    this.#lease = leaseSize(options.points);
  }

  async consume(key: string | number, points = 1): Promise<RateLimiterRes> {
    const id = `${this.options.keyPrefix}:${key}`;
    for (;;) {
      const at = this.now();
      const windowStart = at - (at % this.#windowMs);
      let bucket = this.#buckets.get(id);
      if (bucket === undefined || bucket.windowStart !== windowStart) {
        bucket = { windowStart, tokens: 0, total: 0, exhausted: false };
        this.#buckets.set(id, bucket);
        this.#forgetOldBuckets(windowStart);
      }
      const msBeforeNext = windowStart + this.#windowMs - at;
      if (bucket.tokens >= points) {
        bucket.tokens -= points;
        return new RateLimiterRes(this.options.points - bucket.total + bucket.tokens, msBeforeNext, bucket.total - bucket.tokens, false);
      }
      if (bucket.exhausted) throw new RateLimiterRes(0, msBeforeNext, this.options.points, false);
      bucket.pending ??= this.#refill(id, bucket, points);
      await bucket.pending;
    }
  }

  async #refill(id: string, bucket: Bucket, points: number): Promise<void> {
    try {
      const want = Math.max(this.#lease, points - bucket.tokens);
      const { granted, total } = await this.source.lease(id, bucket.windowStart, want, this.options.points);
      bucket.tokens += granted;
      bucket.total = total;
      // Once the window's budget is all granted, only the points already here are left to spend.
      bucket.exhausted = total >= this.options.points || granted === 0;
    } finally {
      bucket.pending = undefined;
    }
  }

  /** Drops the buckets of past windows once in a while, so idle keys do not stay in memory. */
  #forgetOldBuckets(windowStart: number): void {
    if (this.#buckets.size < 1024) return;
    for (const [id, bucket] of this.#buckets) if (bucket.windowStart < windowStart) this.#buckets.delete(id);
  }
}
