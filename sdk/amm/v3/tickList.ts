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
 * Where TickBitmap.nextInitializedTickWithinOneWord stops from `tick`, given `candidate`, the next
 * initialized tick at or below `tick` (`lte`) or above it (undefined when there is none): the
 * candidate when it is within the bitmap word, else the word's edge, which is not initialized.
 */
export function nextTickWithinWord(candidate: number | undefined, tick: number, tickSpacing: number, lte: boolean): number {
  const compressed = Math.floor(tick / tickSpacing);
  if (lte) {
    const edge = wordStart(compressed);
    return candidate !== undefined && candidate / tickSpacing >= edge ? candidate : edge * tickSpacing;
  }
  const edge = wordStart(compressed + 1) + 255;
  return candidate !== undefined && candidate / tickSpacing <= edge ? candidate : edge * tickSpacing;
}

/**
 * The farthest bitmap word edge a swap at zero liquidity steps to before the word holding `candidate`
 * (its next initialized tick in its direction, undefined when there is none: then the word of
 * `bound`, the tick bound): the swap crosses every edge up to it and swaps nothing on the way, so it
 * can go there in one step. A word's start going down (`lte`), its end going up, as
 * `nextTickWithinWord` returns them; undefined when that edge is not beyond `firstEdge`, the step's own.
 */
export function lastEmptyWordEdge(candidate: number | undefined, firstEdge: number, tickSpacing: number, lte: boolean, bound: number): number | undefined {
  const target = wordStart(Math.floor((candidate ?? bound) / tickSpacing));
  const edge = lte ? (target + 256) * tickSpacing : (target - 1) * tickSpacing;
  return (lte ? edge < firstEdge : edge > firstEdge) ? edge : undefined;
}
