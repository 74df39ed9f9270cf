import type { Response } from "express";
import { RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "../../../sdk/server/apiError";
import type { ApiKeyPrincipal } from "../../middleware/apiKeyAuth";
import { memoryRateLimiters, type RateLimiter, type RateLimiterFactory } from "../../rateLimits/rateLimiterFactory";

/**
 * The two /quote buckets of the spec, the bucket of GET /price, the swap bucket of POST /gasless/submit,
 * the bucket of GET /gasless/status, and that of POST /gasless/cancel (the same allowance as status
 * reads, its own count).
 */
export type QuoteBucket = "quote_probe" | "quote:read" | "price:read" | "swap:create" | "gasless:status" | "gasless:cancel";

/** A key's GET /gasless/status reads per minute (its `status_rate_limit_per_minute`): `multiplier` × its swap limit. */
export function statusRateLimitPerMinute(swapRateLimitPerMinute: number, multiplier: number): number {
  return swapRateLimitPerMinute * multiplier;
}

/** A key's GET /price requests per minute (its `price_rate_limit_per_minute`): `multiplier` × its quote limit. */
export function priceRateLimitPerMinute(quoteRateLimitPerMinute: number, multiplier: number): number {
  return quoteRateLimitPerMinute * multiplier;
}

const HEADERS: Record<QuoteBucket, string> = {
  quote_probe: "X-RateLimit-Quote-Probe-Remaining",
  "quote:read": "X-RateLimit-Quote-Read-Remaining",
  "price:read": "X-RateLimit-Price-Read-Remaining",
  "swap:create": "X-RateLimit-Swap-Remaining",
  "gasless:status": "X-RateLimit-Status-Remaining",
  "gasless:cancel": "X-RateLimit-Cancel-Remaining",
};

const WINDOW_SECONDS = 60;

/**
 * Per-key, per-minute buckets for GET /quote: `quote_probe` (authentication, parsing, admission,
 * unsupported-token demand; allowance = multiplier × the key's quote limit) and `quote:read` (routing
 * and building; the key's quote_rate_limit_per_minute); and `swap:create` for gasless submissions
 * (the key's swap_rate_limit_per_minute), and `gasless:status` for status reads (`statusMultiplier` ×
 * the swap limit, each read costs the relayer a database read), and `price:read` for GET /price
 * (`priceMultiplier` × the quote limit: a price reserves and records nothing). Keys with different limits get different
 * limiters, since a limiter has one allowance. In memory per API process, or shared by every
 * instance on PostgreSQL (the factory decides).
 *
 * Each consumption sets `X-RateLimit-<bucket>-Remaining` on the response, so a client (and the tests)
 * can see which buckets a request used.
 */
export class QuoteBuckets {
  readonly #limiters = new Map<string, RateLimiter>();

  constructor(
    private readonly probeMultiplier: number,
    private readonly limiters: RateLimiterFactory = memoryRateLimiters,
    /** Told of each refusal, by bucket (metrics). */
    private readonly onRejected: (bucket: string) => void = () => undefined,
    /** `gasless:status` allows this many times the key's swap limit (`STATUS_RATE_LIMIT_MULTIPLIER`). */
    private readonly statusMultiplier: number = 10,
    /** `price:read` allows this many times the key's quote limit (`PRICE_RATE_LIMIT_MULTIPLIER`). */
    private readonly priceMultiplier: number = 5,
  ) {}

  #limiter(bucket: QuoteBucket, points: number): RateLimiter {
    const id = `${bucket}:${points}`;
    let limiter = this.#limiters.get(id);
    if (limiter === undefined) {
      limiter = this.limiters({ points, duration: WINDOW_SECONDS, keyPrefix: bucket });
      this.#limiters.set(id, limiter);
    }
    return limiter;
  }

  allowance(bucket: QuoteBucket, principal: ApiKeyPrincipal): number {
    if (bucket === "swap:create") return principal.swapRateLimitPerMinute;
    if (bucket === "gasless:status" || bucket === "gasless:cancel") return statusRateLimitPerMinute(principal.swapRateLimitPerMinute, this.statusMultiplier);
    if (bucket === "price:read") return priceRateLimitPerMinute(principal.quoteRateLimitPerMinute, this.priceMultiplier);
    return bucket === "quote_probe" ? principal.quoteRateLimitPerMinute * this.probeMultiplier : principal.quoteRateLimitPerMinute;
  }

  /** Takes one point from `bucket` for the caller's key, or throws 429 naming the bucket. */
  async consume(bucket: QuoteBucket, principal: ApiKeyPrincipal, res: Response): Promise<void> {
    const points = this.allowance(bucket, principal);
    const header = HEADERS[bucket];
    try {
      const result = await this.#limiter(bucket, points).consume(String(principal.keyId), 1);
      res.setHeader(header, String(result.remainingPoints));
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      res.setHeader(header, "0");
      this.onRejected(bucket);
      throw new ApiError(
        "rate_limited",
        `rate limit of bucket ${bucket} exhausted (${points} requests per minute for this key); retry after ${retryAfter} s`,
        { body: { bucket }, headers: { "Retry-After": String(retryAfter) } },
      );
    }
  }
}
