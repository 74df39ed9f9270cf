/**
 * The devnet's concentrated-liquidity market: the V2 market's pairs (DEV_POOLS) again on the two V3
 * venues (DEVNET_V3_VENUES), on some of their fee tiers, each pool a few bps off the V2 price and
 * with its own depth, so the best venue depends on the pair, the size and the direction, and large
 * orders do best split across venues.
 *
 * A position's range is given in percent of the pool's price of `a` in `b` (rounded outwards to the
 * tier's tick spacing, or towards the price for a range that lies entirely on one side of it, so an
 * out-of-range position stays out of range): narrow ones hold deep liquidity near the price, wide and
 * full-range ones the tails, and out-of-range ones (a range entirely above or below the price, one
 * token only) are liquidity a large swap reaches only after crossing ticks.
 */
export type DevV3PositionSpec = Readonly<{
  /** [lower, upper] in percent from the pool's price (e.g. [-1, 1]), or the whole price range. */
  range: "full" | readonly [lowerPct: number, upperPct: number];
  /** The most the position may take of each token, in USD; an in-range position takes about this much of one side. */
  usdPerSide: number;
}>;

export type DevV3PoolSpec = Readonly<{
  /** A venue of DEVNET_V3_VENUES. */
  venue: string;
  a: string;
  b: string;
  /** A fee tier of the venue, in hundredths of a bip (3000 = 0.3 %). */
  fee: number;
  /** How far the pool's price of `a` in `b` sits from the reference (V2) price, in bps. */
  priceOffsetBps: number;
  positions: readonly DevV3PositionSpec[];
}>;

const narrow = (pct: number, usdPerSide: number): DevV3PositionSpec => ({ range: [-pct, pct], usdPerSide });
const wide = narrow;
const above = (fromPct: number, toPct: number, usdPerSide: number): DevV3PositionSpec => ({ range: [fromPct, toPct], usdPerSide });
const below = (fromPct: number, toPct: number, usdPerSide: number): DevV3PositionSpec => ({ range: [-toPct, -fromPct], usdPerSide });
const full = (usdPerSide: number): DevV3PositionSpec => ({ range: "full", usdPerSide });

export const DEV_V3_POOLS: readonly DevV3PoolSpec[] = [
  // The split pair (DEV_SPLIT_PAIR): the depth near the price is spread over three V3 pools on two
  // venues and the deepest V2 pool, none of which holds enough of it for a large order alone.
  { venue: "uniswap-v3", a: "WETH", b: "USDC", fee: 500, priceOffsetBps: 4, positions: [narrow(0.5, 150_000), wide(20, 300_000), above(2, 6, 300_000)] },
  { venue: "uniswap-v3", a: "WETH", b: "USDC", fee: 3000, priceOffsetBps: -3, positions: [wide(30, 800_000), below(2, 8, 300_000)] },
  { venue: "forkswap-v3", a: "WETH", b: "USDC", fee: 2500, priceOffsetBps: 2, positions: [narrow(0.6, 150_000), full(200_000)] },

  { venue: "uniswap-v3", a: "WETH", b: "USDT", fee: 3000, priceOffsetBps: -5, positions: [narrow(0.5, 400_000), wide(15, 300_000)] },
  { venue: "forkswap-v3", a: "WETH", b: "USDT", fee: 500, priceOffsetBps: 3, positions: [narrow(2, 300_000), above(1.5, 5, 200_000)] },

  { venue: "uniswap-v3", a: "WETH", b: "DAI", fee: 500, priceOffsetBps: 6, positions: [narrow(1, 500_000), below(1.5, 4, 200_000)] },

  { venue: "uniswap-v3", a: "WBTC", b: "WETH", fee: 3000, priceOffsetBps: -4, positions: [narrow(1, 500_000), wide(25, 1_000_000)] },
  { venue: "forkswap-v3", a: "WBTC", b: "WETH", fee: 2500, priceOffsetBps: 5, positions: [narrow(0.8, 400_000), above(2, 6, 200_000)] },

  { venue: "uniswap-v3", a: "WBTC", b: "USDC", fee: 3000, priceOffsetBps: 3, positions: [wide(10, 500_000)] },
  { venue: "uniswap-v3", a: "WBTC", b: "USDC", fee: 10000, priceOffsetBps: -8, positions: [full(200_000)] },

  // Stablecoins: tight ranges on the low tiers.
  { venue: "forkswap-v3", a: "USDC", b: "USDT", fee: 100, priceOffsetBps: 1, positions: [narrow(0.1, 600_000), above(0.3, 1, 200_000)] },
  { venue: "uniswap-v3", a: "USDC", b: "USDT", fee: 500, priceOffsetBps: -1, positions: [narrow(0.5, 400_000)] },
  { venue: "forkswap-v3", a: "USDC", b: "DAI", fee: 100, priceOffsetBps: -2, positions: [narrow(0.2, 500_000), below(0.3, 1, 150_000)] },
  { venue: "uniswap-v3", a: "USDC", b: "DAI", fee: 500, priceOffsetBps: 1, positions: [narrow(1, 300_000)] },

  { venue: "uniswap-v3", a: "LINK", b: "WETH", fee: 3000, priceOffsetBps: 8, positions: [wide(10, 300_000)] },
  { venue: "uniswap-v3", a: "LINK", b: "WETH", fee: 10000, priceOffsetBps: -10, positions: [full(100_000)] },
];

/**
 * The pair whose best execution splits across V2 and V3: WETH/USDC has the deepest V2 pool and three
 * V3 pools (0.05 % and the fork's 0.25 % with 150,000 USD a side within about half a percent of the
 * price, 0.3 % wide), so an order of `orderUsd` (10 % of the V2 pool's depth) does better split than
 * on any single venue. The routing bench measures the split's gain on it.
 */
export const DEV_SPLIT_PAIR = { a: "WETH", b: "USDC", orderUsd: 300_000 } as const;
