import type { Address } from "viem";
import type { ConcentratedPoolState } from "./swapSimulator";
import type { V3Tick } from "./tickList";
import { MAX_TICK, MIN_TICK } from "./tickMath";
import type { V3PoolEvent } from "./v3PoolEvents";

/** An initialized tick as the pool stores it: `liquidityGross` tells when it stops being initialized. */
export type V3TickState = V3Tick & Readonly<{ liquidityGross: bigint }>;

/** A V3 pool's swap state, followed from its events; immutable (a new one per change). Addresses lowercase. */
export type V3PoolState = Omit<ConcentratedPoolState, "ticks"> &
  Readonly<{
    address: Address;
    token0: Address;
    token1: Address;
    ticks: readonly V3TickState[];
  }>;

/** The pool's answer to `Initialize`: the first price. */
export function afterInitialize(pool: V3PoolState, sqrtPriceX96: bigint, tick: number): V3PoolState {
  return { ...pool, sqrtPriceX96, tick };
}

/** The pool's state after a `Swap`, which reports its price, tick and active liquidity after it. */
export function afterSwap(pool: V3PoolState, sqrtPriceX96: bigint, tick: number, liquidity: bigint): V3PoolState {
  return { ...pool, sqrtPriceX96, tick, liquidity };
}

/**
 * The pool after a position over [tickLower, tickUpper) gained (`liquidityDelta` > 0, `Mint`) or lost
 * (< 0, `Burn`) liquidity, as UniswapV3Pool._modifyPosition does: both ticks' gross and net change
 * (a tick whose gross falls to zero is no longer initialized), and the active liquidity changes when
 * the range holds the current tick. V4's `ModifyLiquidity` is the same change.
 */
export function afterLiquidityChange<P extends V3PoolState>(pool: P, tickLower: number, tickUpper: number, liquidityDelta: bigint): P {
  if (liquidityDelta === 0n) return pool;
  let ticks = updateTick(pool.ticks, tickLower, liquidityDelta, liquidityDelta);
  ticks = updateTick(ticks, tickUpper, liquidityDelta, -liquidityDelta);
  const inRange = pool.tick >= tickLower && pool.tick < tickUpper;
  return { ...pool, ticks, liquidity: inRange ? pool.liquidity + liquidityDelta : pool.liquidity };
}

/** `ticks` with `index`'s gross and net moved (inserted in order, or removed when its gross reaches zero). */
function updateTick(ticks: readonly V3TickState[], index: number, grossDelta: bigint, netDelta: bigint): readonly V3TickState[] {
  let low = 0;
  let high = ticks.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ticks[middle]!.index < index) low = middle + 1;
    else high = middle;
  }
  const existing = ticks[low];
  const next = ticks.slice();
  if (existing !== undefined && existing.index === index) {
    const liquidityGross = existing.liquidityGross + grossDelta;
    if (liquidityGross === 0n) next.splice(low, 1);
    else next[low] = { index, liquidityGross, liquidityNet: existing.liquidityNet + netDelta };
  } else {
    next.splice(low, 0, { index, liquidityGross: grossDelta, liquidityNet: netDelta });
  }
  return next;
}

/** The pool after one of its own events (events of other pools must not be passed; a factory's creation changes nothing). */
export function afterV3PoolEvent(pool: V3PoolState, event: V3PoolEvent): V3PoolState {
  switch (event.kind) {
    case "initialize":
      return afterInitialize(pool, event.sqrtPriceX96, event.tick);
    case "swap":
      return afterSwap(pool, event.sqrtPriceX96, event.tick, event.liquidity);
    case "liquidity":
      return afterLiquidityChange(pool, event.tickLower, event.tickUpper, event.liquidityDelta);
    case "poolCreated":
      return pool;
  }
}

/**
 * Whether the price has come within a bitmap word of the ticks `pool` knows (a bounded read): the
 * tracker re-reads it around the new price before swaps start being refused for leaving them.
 */
export function nearKnownTickEdge(pool: V3PoolState): boolean {
  const range = pool.tickRange;
  if (range === undefined) return false;
  const word = 256 * pool.tickSpacing;
  return (pool.tick - word < range.lower && range.lower > MIN_TICK) || (pool.tick + word > range.upper && range.upper < MAX_TICK);
}
