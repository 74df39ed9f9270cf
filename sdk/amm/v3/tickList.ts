/** An initialized tick: where active liquidity changes by `liquidityNet` when the price crosses upwards. */
export type V3Tick = Readonly<{ index: number; liquidityNet: bigint }>;

/** The position of the first tick in `ticks` (sorted by index) whose index is above `tick`. */
export function firstTickAbove(ticks: readonly V3Tick[], tick: number): number {
  let low = 0;
  let high = ticks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ticks[middle]!.index <= tick) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * The tick bitmap word (256 spacings) holding `compressed`, as TickBitmap.position: the bitmap is
 * keyed by floor(tick / tickSpacing), and a swap never looks past the word it is in, so the words'
 * edges are step boundaries that change the rounding of a swap's amounts.
 */
export function wordStart(compressed: number): number {
  return (compressed >> 8) << 8;
}

/**
 * Where TickBitmap.nextInitializedTickWithinOneWord stops from `tick`: the next initialized tick in
 * `ticks` at or below `tick` (`lte`) or above it, within the bitmap word; or the word's edge, not
 * initialized. `position` is the tick's place in `ticks` when initialized, -1 otherwise.
 */
export function nextInitializedTickWithinOneWord(ticks: readonly V3Tick[], tick: number, tickSpacing: number, lte: boolean): { next: number; position: number } {
  const compressed = Math.floor(tick / tickSpacing);
  const above = firstTickAbove(ticks, tick);
  if (lte) {
    const start = wordStart(compressed);
    const candidate = ticks[above - 1];
    return candidate !== undefined && candidate.index / tickSpacing >= start ? { next: candidate.index, position: above - 1 } : { next: start * tickSpacing, position: -1 };
  }
  const end = wordStart(compressed + 1) + 255;
  const candidate = ticks[above];
  return candidate !== undefined && candidate.index / tickSpacing <= end ? { next: candidate.index, position: above } : { next: end * tickSpacing, position: -1 };
}
