import { mulDiv, mulDivRoundingUp } from "./fullMath";
import { getAmount0Delta, getAmount1Delta, getNextSqrtPriceFromInput, getNextSqrtPriceFromOutput } from "./sqrtPriceMath";

/** Fees are in hundredths of a bip: 1e6 is 100 %. */
export const FEE_DENOMINATOR = 1_000_000n;

/** One step of a swap within a single liquidity range. Mutable so that a swap loop reuses one. */
export type SwapStep = {
  sqrtRatioNextX96: bigint;
  amountIn: bigint;
  amountOut: bigint;
  feeAmount: bigint;
};

/** A fresh step record to pass to `computeSwapStep`. */
export function newSwapStep(): SwapStep {
  return { sqrtRatioNextX96: 0n, amountIn: 0n, amountOut: 0n, feeAmount: 0n };
}

/**
 * SwapMath.computeSwapStep, written into `out` (no allocation per step): how far the price moves
 * from `sqrtRatioCurrentX96` towards `sqrtRatioTargetX96` at `liquidity`, and what that takes in, pays
 * out and charges. `amountRemaining` follows V3's sign: positive for exact input, negative for exact
 * output. `feePips` is the swap fee in hundredths of a bip.
 */
export function computeSwapStep(sqrtRatioCurrentX96: bigint, sqrtRatioTargetX96: bigint, liquidity: bigint, amountRemaining: bigint, feePips: bigint, out: SwapStep): SwapStep {
  const zeroForOne = sqrtRatioCurrentX96 >= sqrtRatioTargetX96;
  const exactIn = amountRemaining >= 0n;
  let amountIn = 0n;
  let amountOut = 0n;
  let next: bigint;
  if (exactIn) {
    const remainingLessFee = mulDiv(amountRemaining, FEE_DENOMINATOR - feePips, FEE_DENOMINATOR);
    amountIn = zeroForOne ? getAmount0Delta(sqrtRatioTargetX96, sqrtRatioCurrentX96, liquidity, true) : getAmount1Delta(sqrtRatioCurrentX96, sqrtRatioTargetX96, liquidity, true);
    next = remainingLessFee >= amountIn ? sqrtRatioTargetX96 : getNextSqrtPriceFromInput(sqrtRatioCurrentX96, liquidity, remainingLessFee, zeroForOne);
  } else {
    amountOut = zeroForOne ? getAmount1Delta(sqrtRatioTargetX96, sqrtRatioCurrentX96, liquidity, false) : getAmount0Delta(sqrtRatioCurrentX96, sqrtRatioTargetX96, liquidity, false);
    next = -amountRemaining >= amountOut ? sqrtRatioTargetX96 : getNextSqrtPriceFromOutput(sqrtRatioCurrentX96, liquidity, -amountRemaining, zeroForOne);
  }
  const max = next === sqrtRatioTargetX96;
  if (zeroForOne) {
    if (!(max && exactIn)) amountIn = getAmount0Delta(next, sqrtRatioCurrentX96, liquidity, true);
    if (!(max && !exactIn)) amountOut = getAmount1Delta(next, sqrtRatioCurrentX96, liquidity, false);
  } else {
    if (!(max && exactIn)) amountIn = getAmount1Delta(sqrtRatioCurrentX96, next, liquidity, true);
    if (!(max && !exactIn)) amountOut = getAmount0Delta(sqrtRatioCurrentX96, next, liquidity, false);
  }
  if (!exactIn && amountOut > -amountRemaining) amountOut = -amountRemaining;
  out.sqrtRatioNextX96 = next;
  out.amountIn = amountIn;
  out.amountOut = amountOut;
  // At a 100 % fee (V4 allows one) a step reaching its target took nothing, so there is no fee to scale up.
  out.feeAmount = exactIn && next !== sqrtRatioTargetX96 ? amountRemaining - amountIn : feePips === FEE_DENOMINATOR ? amountIn : mulDivRoundingUp(amountIn, feePips, FEE_DENOMINATOR - feePips);
  return out;
}
