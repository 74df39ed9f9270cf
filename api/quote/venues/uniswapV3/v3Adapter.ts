import type { Address } from "viem";
import type { VenuePool } from "../pricedPool";
import type { VenueAdapter } from "../venueAdapter";
import { v3Curve, v3ExactInput, v3ExactOutput, v3SpotPrice } from "./v3Pricing";
import type { V3PoolState } from "../../../../sdk";

/**
 * A V3 pool as routing holds it: the followed state, and the index of its venue in the routers' V3
 * venue table (the SWAP_V3 action names the venue, the router computes the pool from it).
 */
export type V3VenueState = Readonly<{ pool: V3PoolState; venueIndex: number }>;
export type V3RoutedPool = VenuePool & Readonly<{ kind: "v3"; state: V3VenueState }>;

/**
 * A V3 hop's execution gas: the swap with its callback (one token transfer in, one out, the pool's
 * price and fee-growth writes) plus each initialized tick crossed. `base` is measured on the devnet's
 * pools (test/api/mixedVenueQuote.test.ts checks estimated_gas against gasUsed): a first swap through a
 * pool adds ~78k (its fee growth written from zero), a later one ~60k, so estimates of warm pools run
 * ~14 % high, the safe side. `perTickCrossed` is not measured yet: the devnet routes seen cross none.
 */
export const V3_HOP_GAS = { base: 78_000, perTickCrossed: 21_000 } as const;

/** Uniswap V3 and every V3 fork (a fork is a venue: a factory, its init-code hash and fee tiers). */
export const v3Adapter: VenueAdapter<V3RoutedPool> = {
  kind: "v3",
  // The routers run an exact-output route with a V3 hop backwards (ExactOutputExecutor): each pool is asked
  // for its exact output and paid what it asks, which `amountIn` computes to the wei from the followed state.
  exactOutput: true,
  exactCurve: false,
  amountOut(pool, tokenIn, amountIn) {
    if (amountIn <= 0n) return 0n;
    return v3ExactInput(pool.state.pool, tokenIn, amountIn)?.amountOut ?? 0n;
  },
  amountIn(pool, tokenIn, amountOut) {
    if (amountOut <= 0n) return undefined;
    return v3ExactOutput(pool.state.pool, tokenIn, amountOut)?.amountIn;
  },
  spotPrice(pool, tokenIn) {
    return v3SpotPrice(pool.state.pool, tokenIn);
  },
  curve(pool, tokenIn, amountIn) {
    return v3Curve(pool.state.pool, tokenIn, amountIn);
  },
  hopGas(pool, tokenIn, amountIn) {
    const crossed = amountIn > 0n ? (v3ExactInput(pool.state.pool, tokenIn, amountIn)?.ticksCrossed ?? 0) : 0;
    return V3_HOP_GAS.base + V3_HOP_GAS.perTickCrossed * crossed;
  },
  action(pool, tokenOut: Address) {
    return { type: "swapV3", tokenOut, fee: pool.state.pool.fee, venue: pool.state.venueIndex };
  },
  feePips(pool) {
    return pool.state.pool.fee;
  },
};
