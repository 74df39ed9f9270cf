import type { DevV3PositionSpec } from "./devnetV3Market";

/**
 * The devnet's Uniswap V4 market: pools in the one PoolManager for the devnet's pairs, at fee tiers
 * and tick spacings V3 does not have (V4 takes any pair of them), positions in and out of range, one
 * pool holding native ETH (no wrapping), and one pool for each kind of hook: `observer` only watches
 * swaps (routed as a plain pool), `swapFee` takes a cut of each swap through a returned delta (left
 * out of routing unless allowlisted). Positions are given as for V3 (devnetV3Market.ts).
 */
export type DevV4Hook = "observer" | "swapFee";

export type DevV4PoolSpec = Readonly<{
  /** A devnet token symbol, or "ETH" for native ETH. */
  a: string;
  b: string;
  /** The LP fee in hundredths of a bip. */
  fee: number;
  tickSpacing: number;
  hook?: DevV4Hook;
  /** How far the pool's price of `a` in `b` sits from the reference (V2) price, in bps. */
  priceOffsetBps: number;
  positions: readonly DevV3PositionSpec[];
}>;

const narrow = (pct: number, usdPerSide: number): DevV3PositionSpec => ({ range: [-pct, pct], usdPerSide });
const above = (fromPct: number, toPct: number, usdPerSide: number): DevV3PositionSpec => ({ range: [fromPct, toPct], usdPerSide });
const below = (fromPct: number, toPct: number, usdPerSide: number): DevV3PositionSpec => ({ range: [-toPct, -fromPct], usdPerSide });
const full = (usdPerSide: number): DevV3PositionSpec => ({ range: "full", usdPerSide });

export const DEV_V4_POOLS: readonly DevV4PoolSpec[] = [
  { a: "WETH", b: "USDC", fee: 500, tickSpacing: 10, priceOffsetBps: 3, positions: [narrow(0.5, 150_000), above(1.5, 5, 200_000)] },
  // Native ETH against USDC: an ETH leg V4 takes directly.
  { a: "ETH", b: "USDC", fee: 3000, tickSpacing: 60, priceOffsetBps: -2, positions: [narrow(1, 300_000), below(2, 6, 200_000), full(100_000)] },
  { a: "WBTC", b: "WETH", fee: 2000, tickSpacing: 40, priceOffsetBps: 4, positions: [narrow(10, 400_000)] },
  { a: "USDC", b: "USDT", fee: 80, tickSpacing: 1, priceOffsetBps: 1, positions: [narrow(0.2, 500_000), above(0.3, 1, 100_000)] },
  { a: "USDC", b: "DAI", fee: 500, tickSpacing: 10, hook: "observer", priceOffsetBps: -1, positions: [narrow(0.5, 300_000)] },
  { a: "WETH", b: "USDT", fee: 3000, tickSpacing: 60, hook: "swapFee", priceOffsetBps: -4, positions: [narrow(1, 300_000)] },
];
