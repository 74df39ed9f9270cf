/** How deliveries are retried: `WEBHOOK_RETRY_*` of the relayer's config. */
export type WebhookRetryPolicy = Readonly<{ baseMs: number; maxMs: number; windowMs: number }>;

/**
 * When a delivery that failed its `attempts`-th try (1 after the first) goes again, or undefined to
 * give up. Exponential (base × 2^(attempts-1), capped at maxMs) with equal jitter (`random` in [0, 1)),
 * so endpoints coming back are not hit by every relayer at once; the last try is at exactly
 * `createdAt + windowMs`, so a delivery is tried for the whole window and given up after it.
 */
export function nextWebhookAttempt(policy: WebhookRetryPolicy, attempts: number, createdAt: Date, now: Date, random: () => number = Math.random): Date | undefined {
  const end = createdAt.getTime() + policy.windowMs;
  if (now.getTime() >= end) return undefined;
  const exponential = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(Math.max(attempts - 1, 0), 40));
  const delay = exponential / 2 + random() * (exponential / 2);
  return new Date(Math.min(now.getTime() + delay, end));
}
