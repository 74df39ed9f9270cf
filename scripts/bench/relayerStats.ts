/** Small statistics helpers of `npm run bench:relayer`. */

/** Nearest-rank percentile (p in 0..100) of `values`; undefined when there are none. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export function mean(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((sum, value) => sum + value, 0) / values.length;
}

/** p50, p99 and max of a sample, for the JSON results. */
export function summary(values: readonly number[]): { count: number; p50?: number; p90?: number; p99?: number; max?: number; mean?: number } {
  return { count: values.length, p50: percentile(values, 50), p90: percentile(values, 90), p99: percentile(values, 99), max: percentile(values, 100), mean: mean(values) };
}

/** Runs `work` over `items` with at most `limit` in flight; results in input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= items.length) return;
      results[index] = await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
