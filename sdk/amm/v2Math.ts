const BPS = 10_000n;

/**
 * Constant-product output for `amountIn`, exactly as the routers compute it on chain
 * (UniswapV2Library.getAmountOut when feeBps is 30).
 */
export function getAmountOut(amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): bigint {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n;
  const amountInWithFee = amountIn * (BPS - BigInt(feeBps));
  return (amountInWithFee * reserveOut) / (reserveIn * BPS + amountInWithFee);
}

/**
 * The least input for which `getAmountOut` pays at least `amountOut`, exactly as exact-output routes
 * compute it on chain (UniswapV2Library.getAmountIn when feeBps is 30); undefined when the pool cannot
 * pay that much.
 */
export function getAmountIn(amountOut: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): bigint | undefined {
  if (amountOut >= reserveOut || reserveIn <= 0n) return undefined;
  if (amountOut <= 0n) return 1n;
  return (reserveIn * amountOut * BPS) / ((reserveOut - amountOut) * (BPS - BigInt(feeBps))) + 1n;
}
