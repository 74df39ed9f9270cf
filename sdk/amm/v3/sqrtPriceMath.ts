import { MAX_UINT160, Q96, UINT256_CEILING, V3MathError, divRoundingUp, mulDiv, mulDivRoundingUp } from "./fullMath";

/**
 * The sqrt price after adding (`add`) or removing `amount` of token0, rounded up, as
 * SqrtPriceMath.getNextSqrtPriceFromAmount0RoundingUp (including its fallback when the exact formula
 * would overflow 256 bits, which rounds differently).
 */
export function getNextSqrtPriceFromAmount0RoundingUp(sqrtPX96: bigint, liquidity: bigint, amount: bigint, add: boolean): bigint {
  if (amount === 0n) return sqrtPX96;
  const numerator1 = liquidity << 96n;
  const product = amount * sqrtPX96;
  if (add) {
    if (product < UINT256_CEILING && numerator1 + product < UINT256_CEILING) return mulDivRoundingUp(numerator1, sqrtPX96, numerator1 + product);
    const denominator = numerator1 / sqrtPX96 + amount;
    if (denominator >= UINT256_CEILING) throw new V3MathError("amount0 overflow");
    return divRoundingUp(numerator1, denominator);
  }
  if (product >= UINT256_CEILING || numerator1 <= product) throw new V3MathError("amount0 exceeds the price's reserves");
  const next = mulDivRoundingUp(numerator1, sqrtPX96, numerator1 - product);
  if (next > MAX_UINT160) throw new V3MathError("sqrt price overflow");
  return next;
}

/**
 * The sqrt price after adding (`add`) or removing `amount` of token1, rounded down, as
 * SqrtPriceMath.getNextSqrtPriceFromAmount1RoundingDown.
 */
export function getNextSqrtPriceFromAmount1RoundingDown(sqrtPX96: bigint, liquidity: bigint, amount: bigint, add: boolean): bigint {
  if (add) {
    const quotient = amount <= MAX_UINT160 ? (amount << 96n) / liquidity : mulDiv(amount, Q96, liquidity);
    const next = sqrtPX96 + quotient;
    if (next > MAX_UINT160) throw new V3MathError("sqrt price overflow");
    return next;
  }
  const quotient = amount <= MAX_UINT160 ? divRoundingUp(amount << 96n, liquidity) : mulDivRoundingUp(amount, Q96, liquidity);
  if (sqrtPX96 <= quotient) throw new V3MathError("amount1 exceeds the price's reserves");
  return sqrtPX96 - quotient;
}

/** The sqrt price after `amountIn` of the input token enters at `liquidity`, as getNextSqrtPriceFromInput. */
export function getNextSqrtPriceFromInput(sqrtPX96: bigint, liquidity: bigint, amountIn: bigint, zeroForOne: boolean): bigint {
  if (sqrtPX96 <= 0n || liquidity <= 0n) throw new V3MathError("no price or liquidity");
  return zeroForOne ? getNextSqrtPriceFromAmount0RoundingUp(sqrtPX96, liquidity, amountIn, true) : getNextSqrtPriceFromAmount1RoundingDown(sqrtPX96, liquidity, amountIn, true);
}

/** The sqrt price after `amountOut` of the output token leaves at `liquidity`, as getNextSqrtPriceFromOutput. */
export function getNextSqrtPriceFromOutput(sqrtPX96: bigint, liquidity: bigint, amountOut: bigint, zeroForOne: boolean): bigint {
  if (sqrtPX96 <= 0n || liquidity <= 0n) throw new V3MathError("no price or liquidity");
  return zeroForOne ? getNextSqrtPriceFromAmount1RoundingDown(sqrtPX96, liquidity, amountOut, false) : getNextSqrtPriceFromAmount0RoundingUp(sqrtPX96, liquidity, amountOut, false);
}

/** Token0 between two sqrt prices at `liquidity` (either order), rounded as asked, as getAmount0Delta. */
export function getAmount0Delta(sqrtRatioAX96: bigint, sqrtRatioBX96: bigint, liquidity: bigint, roundUp: boolean): bigint {
  // No destructuring: this runs several times per swap step, and an array per call shows up.
  const swap = sqrtRatioAX96 > sqrtRatioBX96;
  const lower = swap ? sqrtRatioBX96 : sqrtRatioAX96;
  const upper = swap ? sqrtRatioAX96 : sqrtRatioBX96;
  if (lower <= 0n) throw new V3MathError("zero sqrt price");
  const numerator1 = liquidity << 96n;
  const numerator2 = upper - lower;
  return roundUp ? divRoundingUp(mulDivRoundingUp(numerator1, numerator2, upper), lower) : mulDiv(numerator1, numerator2, upper) / lower;
}

/** Token1 between two sqrt prices at `liquidity` (either order), rounded as asked, as getAmount1Delta. */
export function getAmount1Delta(sqrtRatioAX96: bigint, sqrtRatioBX96: bigint, liquidity: bigint, roundUp: boolean): bigint {
  const difference = sqrtRatioAX96 > sqrtRatioBX96 ? sqrtRatioAX96 - sqrtRatioBX96 : sqrtRatioBX96 - sqrtRatioAX96;
  return roundUp ? mulDivRoundingUp(liquidity, difference, Q96) : mulDiv(liquidity, difference, Q96);
}

/**
 * The signed token0 amount of a liquidity change (positive: owed to the pool, rounded up; negative:
 * paid out, rounded down), as the int128 overload of getAmount0Delta.
 */
export function getAmount0DeltaSigned(sqrtRatioAX96: bigint, sqrtRatioBX96: bigint, liquidityDelta: bigint): bigint {
  return liquidityDelta < 0n ? -getAmount0Delta(sqrtRatioAX96, sqrtRatioBX96, -liquidityDelta, false) : getAmount0Delta(sqrtRatioAX96, sqrtRatioBX96, liquidityDelta, true);
}

/** The signed token1 amount of a liquidity change, as the int128 overload of getAmount1Delta. */
export function getAmount1DeltaSigned(sqrtRatioAX96: bigint, sqrtRatioBX96: bigint, liquidityDelta: bigint): bigint {
  return liquidityDelta < 0n ? -getAmount1Delta(sqrtRatioAX96, sqrtRatioBX96, -liquidityDelta, false) : getAmount1Delta(sqrtRatioAX96, sqrtRatioBX96, liquidityDelta, true);
}
