/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("the median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A ratio measured once per round: its median and the lowest and highest round. */
export type RatioRange = Readonly<{ median: number; lowest: number; highest: number; rounds: readonly number[] }>;

/**
 * Round by round, `numerators[i] / denominators[i]`: two things measured next to each other in time
 * in each round (on shared cores a machine drifts by tens of percent within a minute, so only
 * neighbours compare), summarised by the median over the rounds and its range.
 */
export function roundRatios(numerators: readonly number[], denominators: readonly number[]): RatioRange {
  if (numerators.length !== denominators.length) throw new Error(`${numerators.length} numerators against ${denominators.length} denominators`);
  const rounds = numerators.map((numerator, index) => numerator / denominators[index]!);
  return { median: median(rounds), lowest: Math.min(...rounds), highest: Math.max(...rounds), rounds };
}

/**
 * The order in which `count` things are measured in round `round`: forward in even rounds, backward
 * in odd ones (A B, B A, A B, …), so that a steady drift of the machine favours neither side.
 */
export function roundOrder(count: number, round: number): number[] {
  const forward = Array.from({ length: count }, (_, index) => index);
  return round % 2 === 0 ? forward : forward.reverse();
}
