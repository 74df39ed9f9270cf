/** 2^256: every intermediate of Uniswap's math is a uint256 that must stay below it. */
export const UINT256_CEILING = 1n << 256n;
/** 2^160 - 1: the largest sqrt price a pool can hold. */
export const MAX_UINT160 = (1n << 160n) - 1n;
/** 2^96, the Q64.96 fixed-point unit of sqrt prices. */
export const Q96 = 1n << 96n;

/**
 * Raised where the on-chain contract would revert (an overflow, a zero divisor, a price out of range):
 * a simulation that throws it stands for a swap the pool refuses.
 */
export class V3MathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "V3MathError";
  }
}

/**
 * floor(a * b / denominator) at full precision, as Uniswap's FullMath.mulDiv: the product may exceed
 * 256 bits, the result may not (the contract reverts; so do we).
 */
export function mulDiv(a: bigint, b: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new V3MathError("mulDiv by zero");
  const result = (a * b) / denominator;
  if (result >= UINT256_CEILING) throw new V3MathError("mulDiv overflow");
  return result;
}

/** ceil(a * b / denominator) at full precision, as FullMath.mulDivRoundingUp. */
export function mulDivRoundingUp(a: bigint, b: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new V3MathError("mulDiv by zero");
  const product = a * b;
  let result = product / denominator;
  // A multiplication tells whether the division was exact for less than a second division (`%`) costs:
  // this runs several times per swap step, the hottest function of a quote on a V3 market.
  if (result * denominator !== product) result += 1n;
  if (result >= UINT256_CEILING) throw new V3MathError("mulDiv overflow");
  return result;
}

/** ceil(x / y) for y > 0, as UnsafeMath.divRoundingUp. */
export function divRoundingUp(x: bigint, y: bigint): bigint {
  if (y === 0n) throw new V3MathError("division by zero");
  const quotient = x / y;
  return quotient * y === x ? quotient : quotient + 1n;
}
