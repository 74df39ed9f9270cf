/**
 * The full-quote rate a machine's CPU allows, from CPU time per quote measured in a bench window: what
 * bench:api prints beside the measured rates, so that a reader can tell a contended run from a limit.
 * Each API's event loop is one thread, so API i can answer at most one core / (its main thread's CPU
 * per quote it answered) quotes a second; and every process of the run together (APIs, PostgreSQL,
 * the chain, the load generator) can use at most `cores` cores.
 */
export type QuoteCpu = Readonly<{
  /** For each API of the window: its main thread's CPU µs per quote that API answered. */
  apiMainThreadMicros: readonly number[];
  /** Every measured process's CPU µs per quote answered by all the APIs together. */
  totalMicros: number;
}>;

/** The highest quote rate (per second) `cores` cores allow at these costs: min(Σ 1 core / API i, cores / total). */
export function quoteRateCeiling(cpu: QuoteCpu, cores: number): number {
  if (cpu.apiMainThreadMicros.length === 0) throw new Error("a quote window needs at least one API");
  if (!(cores > 0)) throw new Error(`cores must be positive, not ${cores}`);
  const perApi = cpu.apiMainThreadMicros.reduce((sum, micros) => sum + 1e6 / micros, 0);
  return Math.min(perApi, (cores * 1e6) / cpu.totalMicros);
}

export type ScaleOutCeiling = Readonly<{
  /** Ceilings of one API and of two (quotes a second) on a machine with `cores` cores. */
  one: number;
  two: number;
  /** two / one: the best two/one ratio these costs allow on that machine. */
  ratio: number;
}>;

/** The ceilings of the one-API and two-API windows on `cores` cores, and the best two/one ratio they allow. */
export function scaleOutCeiling(one: QuoteCpu, two: QuoteCpu, cores: number): ScaleOutCeiling {
  const oneCeiling = quoteRateCeiling(one, cores);
  const twoCeiling = quoteRateCeiling(two, cores);
  return { one: oneCeiling, two: twoCeiling, ratio: twoCeiling / oneCeiling };
}
