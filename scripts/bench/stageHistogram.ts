/**
 * Reads the stage histograms (`api_gasless_submit_stage_seconds`, `relayer_relay_stage_seconds`) from
 * a Prometheus text exposition, and estimates their quantiles the way PromQL's histogram_quantile does
 * (linear within a bucket), so the bench's "where the time goes" table is what an operator's dashboard
 * would show for the same window.
 */

/** One stage's cumulative buckets (upper bound in seconds → observations at or below it), count and sum. */
export type StageHistogram = { buckets: [number, number][]; count: number; sum: number };
export type StageHistograms = Record<string, StageHistogram>;

const SAMPLE = /^(\w+)\{([^}]*)\}\s+(\S+)$|^(\w+)\s+(\S+)$/;

function labelsOf(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const match of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[match[1]!] = match[2]!;
  return labels;
}

/** The histogram `name` from an exposition, by its `stage` label. */
export function parseStageHistograms(exposition: string, name: string): StageHistograms {
  const stages: StageHistograms = {};
  const of = (stage: string) => (stages[stage] ??= { buckets: [], count: 0, sum: 0 });
  for (const line of exposition.split("\n")) {
    if (line.startsWith("#") || !line.startsWith(name)) continue;
    const match = SAMPLE.exec(line.trim());
    if (match === null || match[1] === undefined) continue;
    const labels = labelsOf(match[2]!);
    const stage = labels.stage;
    if (stage === undefined) continue;
    const value = Number(match[3]);
    if (match[1] === `${name}_bucket`) of(stage).buckets.push([labels.le === "+Inf" ? Infinity : Number(labels.le), value]);
    else if (match[1] === `${name}_count`) of(stage).count = value;
    else if (match[1] === `${name}_sum`) of(stage).sum = value;
  }
  for (const histogram of Object.values(stages)) histogram.buckets.sort((a, b) => a[0] - b[0]);
  return stages;
}

/** What was observed between two scrapes of the same process (`before` may be empty: a fresh process). */
export function subtractHistograms(after: StageHistograms, before: StageHistograms): StageHistograms {
  const result: StageHistograms = {};
  for (const [stage, histogram] of Object.entries(after)) {
    const earlier = before[stage];
    const bucketBefore = new Map(earlier?.buckets ?? []);
    result[stage] = {
      buckets: histogram.buckets.map(([le, count]) => [le, count - (bucketBefore.get(le) ?? 0)]),
      count: histogram.count - (earlier?.count ?? 0),
      sum: histogram.sum - (earlier?.sum ?? 0),
    };
  }
  return result;
}

/**
 * The q-quantile (0..1) in seconds, interpolated linearly inside its bucket from the previous bound
 * (0 for the first); one in the +Inf bucket is the highest finite bound, as histogram_quantile says.
 */
export function histogramQuantile(histogram: StageHistogram, q: number): number | undefined {
  if (histogram.count === 0 || histogram.buckets.length === 0) return undefined;
  const rank = q * histogram.count;
  let previousBound = 0;
  let previousCount = 0;
  for (const [bound, count] of histogram.buckets) {
    if (count >= rank) {
      if (bound === Infinity) return previousBound;
      const inBucket = count - previousCount;
      return inBucket === 0 ? bound : previousBound + (bound - previousBound) * ((rank - previousCount) / inBucket);
    }
    previousBound = bound;
    previousCount = count;
  }
  return previousBound;
}

/** Per stage: observations, p50, p99 and mean in milliseconds. */
export type StageSummary = { count: number; p50Ms?: number; p99Ms?: number; meanMs?: number };

export function summariseStages(histograms: StageHistograms): Record<string, StageSummary> {
  const toMs = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);
  return Object.fromEntries(
    Object.entries(histograms)
      .filter(([, histogram]) => histogram.count > 0)
      .map(([stage, histogram]) => [
        stage,
        { count: histogram.count, p50Ms: toMs(histogramQuantile(histogram, 0.5)), p99Ms: toMs(histogramQuantile(histogram, 0.99)), meanMs: (histogram.sum / histogram.count) * 1000 },
      ]),
  );
}
