import { mulDiv } from "./fullMath";

const Q96 = 1n << 96n;

/**
 * The most liquidity that amounts of token0 and token1 buy over the range [sqrtPriceAX96,
 * sqrtPriceBX96] at the price `sqrtPriceX96`, as v4-periphery's LiquidityAmounts.getLiquidityForAmounts:
 * below the range only token0 counts, above it only token1, inside it the scarcer of the two. Rounds
 * down, so the position never takes more than the amounts.
 */
export function liquidityForAmounts(sqrtPriceX96: bigint, sqrtPriceAX96: bigint, sqrtPriceBX96: bigint, amount0: bigint, amount1: bigint): bigint {
  const [lower, upper] = sqrtPriceAX96 <= sqrtPriceBX96 ? [sqrtPriceAX96, sqrtPriceBX96] : [sqrtPriceBX96, sqrtPriceAX96];
  const for0 = (from: bigint) => mulDiv(amount0, mulDiv(from, upper, Q96), upper - from);
  const for1 = (to: bigint) => mulDiv(amount1, Q96, to - lower);
  if (sqrtPriceX96 <= lower) return for0(lower);
  if (sqrtPriceX96 >= upper) return for1(upper);
  const liquidity0 = for0(sqrtPriceX96);
  const liquidity1 = for1(sqrtPriceX96);
  return liquidity0 < liquidity1 ? liquidity0 : liquidity1;
}
