import { V3MathError } from "./fullMath";

/** The lowest tick a price can sit at: log_1.0001(2^-128). */
export const MIN_TICK = -887272;
/** The highest tick: log_1.0001(2^128). */
export const MAX_TICK = 887272;
/** getSqrtRatioAtTick(MIN_TICK). */
export const MIN_SQRT_RATIO = 4295128739n;
/** getSqrtRatioAtTick(MAX_TICK). */
export const MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342n;

// sqrt(1.0001)^-(2^i) in Q128.128, for i = 0..19: the constants of Uniswap's TickMath.
const RATIO_FACTORS: readonly bigint[] = [
  0xfffcb933bd6fad37aa2d162d1a594001n,
  0xfff97272373d413259a46990580e213an,
  0xfff2e50f5f656932ef12357cf3c7fdccn,
  0xffe5caca7e10e4e61c3624eaa0941cd0n,
  0xffcb9843d60f6159c9db58835c926644n,
  0xff973b41fa98c081472e6896dfb254c0n,
  0xff2ea16466c96a3843ec78b326b52861n,
  0xfe5dee046a99a2a811c461f1969c3053n,
  0xfcbe86c7900a88aedcffc83b479aa3a4n,
  0xf987a7253ac413176f2b074cf7815e54n,
  0xf3392b0822b70005940c7a398e4b70f3n,
  0xe7159475a2c29b7443b29c7fa6e889d9n,
  0xd097f3bdfd2022b8845ad8f792aa5825n,
  0xa9f746462d870fdf8a65dc1f90e061e5n,
  0x70d869a156d2a1b890bb3df62baf32f7n,
  0x31be135f97d08fd981231505542fcfa6n,
  0x9aa508b5b7a84e1c677de54f3e99bc9n,
  0x5d6af8dedb81196699c329225ee604n,
  0x2216e584f5fa1ea926041bedfe98n,
  0x48a170391f7dc42444e8fa2n,
];
const Q128 = 1n << 128n;
const MAX_UINT256 = (1n << 256n) - 1n;
const LOW_32_BITS = (1n << 32n) - 1n;

/**
 * sqrt(1.0001^tick) in Q64.96, bit for bit as TickMath.getSqrtRatioAtTick (rounded up, so that
 * getTickAtSqrtRatio of the result is `tick` again).
 */
export function getSqrtRatioAtTick(tick: number): bigint {
  const cached = ratioCache.get(tick);
  if (cached !== undefined) return cached;
  const ratio = computeSqrtRatioAtTick(tick);
  if (ratioCache.size >= RATIO_CACHE_LIMIT) ratioCache.clear();
  ratioCache.set(tick, ratio);
  return ratio;
}

// Swaps step through the same few ticks (pools' initialized ticks, bitmap word edges) quote after
// quote, so their ratios are remembered; bounded so that memory stays small.
const RATIO_CACHE_LIMIT = 1 << 16;
const ratioCache = new Map<number, bigint>();

function computeSqrtRatioAtTick(tick: number): bigint {
  const absTick = tick < 0 ? -tick : tick;
  if (!Number.isInteger(tick) || absTick > MAX_TICK) throw new V3MathError("tick out of range");
  let ratio = (absTick & 1) !== 0 ? RATIO_FACTORS[0]! : Q128;
  for (let bit = 1; bit < 20; bit++) {
    if ((absTick & (1 << bit)) !== 0) ratio = (ratio * RATIO_FACTORS[bit]!) >> 128n;
  }
  if (tick > 0) ratio = MAX_UINT256 / ratio;
  return (ratio >> 32n) + ((ratio & LOW_32_BITS) === 0n ? 0n : 1n);
}

const LN_SQRT_1_0001 = Math.log(1.0001) / 2;
const TWO_POW_96 = 2 ** 96;

/**
 * The greatest tick whose sqrt ratio is at most `sqrtPriceX96`: what TickMath.getTickAtSqrtRatio
 * returns (its own definition; a property test holds it to a port of the contract's binary
 * logarithm). A floating-point logarithm lands within a tick of the answer, and exact comparisons
 * with getSqrtRatioAtTick settle it: a few times faster than the 14 squarings of 256-bit numbers.
 */
export function getTickAtSqrtRatio(sqrtPriceX96: bigint): number {
  if (sqrtPriceX96 < MIN_SQRT_RATIO || sqrtPriceX96 >= MAX_SQRT_RATIO) throw new V3MathError("sqrt price out of range");
  let tick = Math.floor(Math.log(Number(sqrtPriceX96) / TWO_POW_96) / LN_SQRT_1_0001);
  if (tick > MAX_TICK - 1) tick = MAX_TICK - 1;
  else if (tick < MIN_TICK) tick = MIN_TICK;
  while (tick > MIN_TICK && getSqrtRatioAtTick(tick) > sqrtPriceX96) tick--;
  while (tick < MAX_TICK - 1 && getSqrtRatioAtTick(tick + 1) <= sqrtPriceX96) tick++;
  return tick;
}
