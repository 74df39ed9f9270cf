import { zeroAddress, type Address } from "viem";
import { swapV4Hop, V4_REVISION_EXACT_OUTPUT, v4HookExclusion, type V4PoolState } from "../../../../sdk";
import type { VenuePool } from "../pricedPool";
import type { VenueAdapter } from "../venueAdapter";
import { v3Curve, v3ExactInput, v3ExactOutput, v3SpotPrice } from "../uniswapV3/v3Pricing";

/**
 * A V4 pool as routing holds it: `address` is its pool id (leg names carry it), `state` its followed
 * state, `revision` the active routers' V4 venue revision (RouterVenueSet.v4Revision), which says what
 * they run.
 */
export type V4RoutedPool = VenuePool & Readonly<{ kind: "v4"; state: V4PoolState; revision: number }>;

/**
 * A V4 hop's execution gas, from `bench:gas` (2026-11-28): a whole 1-hop V4 swap by Permit2 used 152,549
 * gas (USDC → WETH) against 138,695 for the same V3 swap (V3_HOP_GAS.base 78,000), and that V4 row is the
 * cheap case: its sell is paid straight into the PoolManager. Every other V4 hop (allowance holder,
 * gasless, after another venue's hop, in a SPLIT leg) is paid through the router, about 5,000 more: base
 * 97,000, the unlock, the module's DELEGATECALL, the settle and the take included. A hop right after a V4
 * hop in a route's only path runs inside the same unlock: the 2-hop row cost 48,692 more than the 1-hop
 * one, so it saves `runSaving` 48,000 (hopGasAt, prunedRouteSearch.ts). A SPLIT leg's V4 hops unlock one by
 * one and save nothing. Each initialized tick crossed adds as for V3. A hop paid in native ETH (a native
 * sell's first hop, no WRAP) settles with value: no token transfer into the PoolManager and no `sync`,
 * 37,000 less (a 2 ETH sale into the devnet's ETH/USDC pool used 118,627 gas in all, v4Routing.test.ts).
 */
export const V4_HOP_GAS = { base: 97_000, perTickCrossed: 21_000, nativeInputSaving: 37_000, runSaving: 48_000 } as const;

/**
 * Uniswap V4 pools, priced by the same concentrated-liquidity simulator as V3 (sdk/amm/v3, over
 * V4's LP and protocol fees). The market hands routing V4 pools only while every active router
 * executes SWAP_V4 (its `poolManager()`), and only pools the hook rule admits
 * (sdk/amm/v4/hookPermissions.ts, with the operator's hook allowlist).
 */
export const v4Adapter: VenueAdapter<V4RoutedPool> = {
  kind: "v4",
  // The routers run a path's leading SWAP_V4 hops backwards in one unlock (ExactOutputExecutor); a V4
  // hop after another venue's is refused on chain (SwapExactOutputRoute).
  exactOutput: true,
  exactOutputFirst: true,
  // Routers of an earlier revision refuse V4 hops backwards.
  backwards: (pool) => pool.revision >= V4_REVISION_EXACT_OUTPUT,
  exactCurve: false,
  runHopSaving: V4_HOP_GAS.runSaving,
  amountOut(pool, tokenIn, amountIn) {
    if (amountIn <= 0n) return 0n;
    return v3ExactInput(pool.state, tokenIn, amountIn)?.amountOut ?? 0n;
  },
  amountIn(pool, tokenIn, amountOut) {
    // A hook that takes part in swaps (allowlisted by the operator) may change what the pool pays: the
    // router's exact-output run must receive exactly what it asked, so such a pool is not priced backwards.
    if (amountOut <= 0n || v4HookExclusion(pool.state.key) !== undefined) return undefined;
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
    return V4_HOP_GAS.base + V4_HOP_GAS.perTickCrossed * crossed - (tokenIn === zeroAddress ? V4_HOP_GAS.nativeInputSaving : 0);
  },
  action(pool, tokenOut: Address) {
    // The pool key is (sorted(running token, tokenOut), fee, tickSpacing, hooks): the router rebuilds it from these.
    return swapV4Hop(pool.state.key, tokenOut);
  },
  feePips(pool) {
    return pool.state.fee;
  },
};
