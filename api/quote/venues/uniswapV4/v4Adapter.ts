import type { VenuePool } from "../pricedPool";
import type { VenueAdapter } from "../venueAdapter";
import { v3Curve, v3ExactInput, v3ExactOutput, v3SpotPrice } from "../uniswapV3/v3Pricing";
import type { V4PoolState } from "./v4PoolState";

/** A V4 pool as routing would hold it: `address` is its pool id, `state` its followed state. */
export type V4RoutedPool = VenuePool & Readonly<{ kind: "v4"; state: V4PoolState }>;

/**
 * A V4 hop's execution gas, an estimate until the on-chain V4 action exists and is measured: a swap
 * inside the PoolManager's unlock (no pool contract call, no per-hop token transfer: the route settles
 * once per currency) plus each initialized tick crossed, as for V3.
 */
export const V4_HOP_GAS = { base: 60_000, perTickCrossed: 21_000 } as const;

/**
 * Uniswap V4 pools, priced by the same concentrated-liquidity simulator as V3 (sdk/amm/v3, over
 * V4's LP and protocol fees). Registered by kind but not routed: no market lists V4 pools to routing
 * until the routers have a V4 action, so `action` refuses. Pools whose hook may change a swap's
 * amounts are kept out before they get here (sdk/amm/v4/hookPermissions.ts).
 */
export const v4Adapter: VenueAdapter<V4RoutedPool> = {
  kind: "v4",
  exactOutput: true,
  exactCurve: false,
  amountOut(pool, tokenIn, amountIn) {
    if (amountIn <= 0n) return 0n;
    return v3ExactInput(pool.state, tokenIn, amountIn)?.amountOut ?? 0n;
  },
  amountIn(pool, tokenIn, amountOut) {
    if (amountOut <= 0n) return undefined;
    return v3ExactOutput(pool.state, tokenIn, amountOut)?.amountIn;
  },
  spotPrice(pool, tokenIn) {
    return v3SpotPrice(pool.state, tokenIn);
  },
  curve(pool, tokenIn, amountIn) {
    return v3Curve(pool.state, tokenIn, amountIn);
  },
  hopGas(pool, tokenIn, amountIn) {
    const crossed = amountIn > 0n ? (v3ExactInput(pool.state, tokenIn, amountIn)?.ticksCrossed ?? 0) : 0;
    return V4_HOP_GAS.base + V4_HOP_GAS.perTickCrossed * crossed;
  },
  action(pool) {
    throw new Error(`Uniswap V4 pool ${pool.state.id} cannot be routed yet: the routers have no V4 action`);
  },
  feePips(pool) {
    return pool.state.fee;
  },
};
