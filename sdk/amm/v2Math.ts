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
