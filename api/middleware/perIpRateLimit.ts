import type { RequestHandler } from "express";
import { RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "../../sdk/server/apiError";
import { memoryRateLimiters, type RateLimiterFactory } from "../rateLimits/rateLimiterFactory";

const WINDOW_SECONDS = 60;

/**
 * A public per-client-IP limit of `pointsPerMinute` requests on one bucket, in memory (one API
 * process) or shared by every instance on PostgreSQL, as `limiters` makes it. The client is the socket's address:
 * express's `trust proxy` is off, so a proxy in front would need it set to pass the real IP. A
 * refused request gets 429 `rate_limited` with `bucket` in the body and `Retry-After` in seconds.
 */
export function perIpRateLimit(
  bucket: string,
  pointsPerMinute: number,
  limiters: RateLimiterFactory = memoryRateLimiters,
  onRejected: (bucket: string) => void = () => undefined,
): RequestHandler {
  return perRequestKeyRateLimit(bucket, pointsPerMinute, (req) => req.ip ?? req.socket.remoteAddress ?? "unknown", "client IP", limiters, onRejected);
}

/** The same limit keyed by what `keyOf` reads from the request (a wallet in the body); no key, no limit. */
export function perRequestKeyRateLimit(
  bucket: string,
  pointsPerMinute: number,
  keyOf: (req: Parameters<RequestHandler>[0]) => string | undefined,
  per: string,
  limiters: RateLimiterFactory = memoryRateLimiters,
  onRejected: (bucket: string) => void = () => undefined,
): RequestHandler {
  const limiter = limiters({ points: pointsPerMinute, duration: WINDOW_SECONDS, keyPrefix: bucket });
  return async (req, _res, next) => {
    const client = keyOf(req);
    if (client === undefined) return next();
    try {
      await limiter.consume(client, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      onRejected(bucket);
      throw new ApiError("rate_limited", `rate limit of bucket ${bucket} exhausted (${pointsPerMinute} requests per minute per ${per}); retry after ${retryAfter} s`, {
        body: { bucket },
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    next();
  };
}
