import { MAX_TICK, MIN_TICK } from "./tickMath";

/**
 * A bounded read of a concentrated-liquidity pool's tick bitmap: the words from `firstWord` to
 * `lastWord` around the current tick, and the tick range they cover. V3 pools (`tickBitmap(int16)`)
 * and V4 pools (StateView's `getTickBitmap(poolId, int16)`) store the same bitmap.
 */
export type TickBitmapWindow = Readonly<{ firstWord: number; lastWord: number }>;

/** The word of the tick bitmap holding `tick`, as TickBitmap.position (floor of tick / spacing, then / 256). */
export function tickBitmapWord(tick: number, tickSpacing: number): number {
  return Math.floor(tick / tickSpacing) >> 8;
}

/** The words within `wordsEachSide` of the current tick's word, clamped to the ticks a pool can have. */
export function tickBitmapWindow(tick: number, tickSpacing: number, wordsEachSide: number): TickBitmapWindow {
  return {
    firstWord: Math.max(tickBitmapWord(MIN_TICK, tickSpacing), tickBitmapWord(tick, tickSpacing) - wordsEachSide),
    lastWord: Math.min(tickBitmapWord(MAX_TICK, tickSpacing), tickBitmapWord(tick, tickSpacing) + wordsEachSide),
  };
}

/** The initialized ticks the bitmap words of `window` mark (words[i] is word firstWord + i), in ascending order. */
export function initializedTicksIn(window: TickBitmapWindow, words: readonly bigint[], tickSpacing: number): number[] {
  const indexes: number[] = [];
  words.forEach((word, offset) => {
    for (let bit = 0; word !== 0n && bit < 256; bit++) {
      if (((word >> BigInt(bit)) & 1n) === 1n) indexes.push(((window.firstWord + offset) * 256 + bit) * tickSpacing);
    }
  });
  return indexes;
}

/** The ticks a swap may reach knowing only the window's words: its state's `tickRange`. */
export function tickRangeOf(window: TickBitmapWindow, tickSpacing: number): Readonly<{ lower: number; upper: number }> {
  return { lower: Math.max(MIN_TICK, window.firstWord * 256 * tickSpacing), upper: Math.min(MAX_TICK, (window.lastWord * 256 + 255) * tickSpacing) };
}
