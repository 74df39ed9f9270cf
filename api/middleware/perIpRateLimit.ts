import type { RequestHandler } from "express";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { ApiError } from "../apiError";

const WINDOW_SECONDS = 60;

/**
 * A public per-client-IP limit of `pointsPerMinute` requests on one bucket, in memory (one API
 * process; rate-limiter-flexible has a Redis store for more). The client is the socket's address:
 * express's `trust proxy` is off, so a proxy in front would need it set to pass the real IP. A
 * refused request gets 429 `rate_limited` with `bucket` in the body and `Retry-After` in seconds.
 */
export function perIpRateLimit(bucket: string, pointsPerMinute: number): RequestHandler {
  const limiter = new RateLimiterMemory({ points: pointsPerMinute, duration: WINDOW_SECONDS, keyPrefix: bucket });
  return async (req, _res, next) => {
    const client = req.ip ?? req.socket.remoteAddress ?? "unknown";
    try {
      await limiter.consume(client, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      throw new ApiError(429, "rate_limited", `rate limit of bucket ${bucket} exhausted (${pointsPerMinute} requests per minute per client IP); retry after ${retryAfter} s`, {
        body: { bucket },
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    next();
  };
}
