import type { Address, Hex } from "viem";
import { afterInitialize, afterLiquidityChange, afterSwap, type V3PoolState } from "../v3/v3PoolState";
import { isDynamicFee, type V4PoolKey } from "./poolKey";
import type { V4PoolEvent } from "./v4PoolEvents";

/**
 * A V4 pool's swap state: the concentrated-liquidity state V3 pools have (sdk/amm/v3 prices both),
 * with V4's own parts: the pool id, which also serves as its `address` (leg names carry it), its key,
 * the LP fee (`fee`: the key's, or the hook-set one of a dynamic-fee pool) and the protocol fee.
 * Currencies are lowercase as `token0`/`token1`; native ETH is address(0).
 */
export type V4PoolState = V3PoolState & Readonly<{ id: Hex; key: V4PoolKey }>;

/** A pool just initialised (its `Initialize` event): its first price, no liquidity, no protocol fee, and the key's fee (a dynamic fee starts at 0). */
export function initializedV4Pool(id: Hex, key: V4PoolKey, sqrtPriceX96: bigint, tick: number): V4PoolState {
  const pool: V4PoolState = {
    id: id.toLowerCase() as Hex,
    key,
    address: id.toLowerCase() as Address,
    token0: key.currency0.toLowerCase() as Address,
    token1: key.currency1.toLowerCase() as Address,
    fee: isDynamicFee(key.fee) ? 0 : key.fee,
    protocolFee: 0,
    tickSpacing: key.tickSpacing,
    sqrtPriceX96: 0n,
    tick: 0,
    liquidity: 0n,
    ticks: [],
  };
  return afterInitialize(pool, sqrtPriceX96, tick) as V4PoolState;
}

/**
 * The pool after one of its own events. A `Swap` reports the fee it paid: with no protocol fee that is
 * the LP fee, so a dynamic-fee pool's fee (which `updateDynamicLPFee` changes without an event) is
 * caught up at each swap; a static fee never changes. `Initialize` of a known pool changes nothing
 * (the PoolManager refuses a second one).
 */
export function afterV4PoolEvent(pool: V4PoolState, event: V4PoolEvent): V4PoolState {
  switch (event.kind) {
    case "initialize":
      return pool;
    case "swap": {
      const moved = afterSwap(pool, event.sqrtPriceX96, event.tick, event.liquidity) as V4PoolState;
      return isDynamicFee(pool.key.fee) && (pool.protocolFee ?? 0) === 0 ? { ...moved, fee: event.fee } : moved;
    }
    case "liquidity":
      return afterLiquidityChange(pool, event.tickLower, event.tickUpper, event.liquidityDelta);
    case "protocolFee":
      return { ...pool, protocolFee: event.protocolFee };
  }
}

/**
 * Every pool's state after `events` (in chain order) applied to `pools` (by lowercase id): pools
 * initialised among them join. Returns a new map; the states in it are immutable.
 */
export function applyV4PoolEvents(pools: ReadonlyMap<Hex, V4PoolState>, events: readonly V4PoolEvent[]): Map<Hex, V4PoolState> {
  const next = new Map(pools);
  for (const event of events) {
    const pool = next.get(event.id);
    if (pool === undefined) {
      if (event.kind === "initialize") next.set(event.id, initializedV4Pool(event.id, event.key, event.sqrtPriceX96, event.tick));
      continue;
    }
    next.set(event.id, afterV4PoolEvent(pool, event));
  }
  return next;
}
