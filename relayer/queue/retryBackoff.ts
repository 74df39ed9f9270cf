/** The queue's delay before it looks at a relay again after a failed attempt: exponential with a cap, 200 ms, 400 ms, … up to `capMs`. */
export function backoffMs(attempt: number, capMs = 5_000): number {
  return Math.min(capMs, 200 * 2 ** Math.min(attempt, 10));
}
