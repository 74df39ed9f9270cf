import { expect } from "chai";
import fc from "fast-check";
import { computeSwapStep, newSwapStep } from "../../sdk/amm/v3/swapMath";
import { mulDiv, mulDivRoundingUp, UINT256_CEILING, V3MathError } from "../../sdk/amm/v3/fullMath";
import { getAmount0Delta, getAmount1Delta, getNextSqrtPriceFromInput, getNextSqrtPriceFromOutput } from "../../sdk/amm/v3/sqrtPriceMath";
import { nextTickWithinWord } from "../../sdk/amm/v3/tickList";
import { getSqrtRatioAtTick, getTickAtSqrtRatio, MAX_SQRT_RATIO, MAX_TICK, MIN_SQRT_RATIO, MIN_TICK } from "../../sdk";

const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 4663;
const runs = (count: number) => ({ seed: SEED, numRuns: Math.max(1, Math.round(count * Number(process.env.FUZZ_SCALE ?? "1"))) });
const Q96 = 1n << 96n;
const E18 = 10n ** 18n;
/** encodePriceSqrt(reserve1, reserve0) of Uniswap's tests: floor(sqrt(reserve1 / reserve0) * 2^96). */
function encodePriceSqrt(reserve1: bigint, reserve0: bigint): bigint {
  const value = (reserve1 << 192n) / reserve0;
  let x = value;
  let y = (x + 1n) / 2n;
  while (y < x) [x, y] = [y, (y + value / y) / 2n];
  return x;
}

/**
 * TickMath.getTickAtSqrtRatio as the contract computes it (a 14-bit binary logarithm of the ratio,
 * scaled to ticks, then a one-tick correction): the reference the SDK's faster search must equal.
 */
function contractTickAtSqrtRatio(sqrtPriceX96: bigint): number {
  const ratio = sqrtPriceX96 << 32n;
  const msb = ratio.toString(2).length - 1;
  let r = msb >= 128 ? ratio >> BigInt(msb - 127) : ratio << BigInt(127 - msb);
  let log2 = BigInt(msb - 128) << 64n;
  for (let shift = 63n; shift >= 50n; shift--) {
    r = (r * r) >> 127n;
    const f = r >> 128n;
    log2 |= f << shift;
    r >>= f;
  }
  const logSqrt10001 = log2 * 255738958999603826347141n;
  const tickLow = Number((logSqrt10001 - 3402992956809132418596140100660247210n) >> 128n);
  const tickHigh = Number((logSqrt10001 + 291339464771989622907027621153398088495n) >> 128n);
  if (tickLow === tickHigh) return tickLow;
  return getSqrtRatioAtTick(tickHigh) <= sqrtPriceX96 ? tickHigh : tickLow;
}

describe("V3 tick math against Uniswap's own test vectors", () => {
  it("getSqrtRatioAtTick gives MIN/MAX_SQRT_RATIO at the tick bounds, 2^96 at tick 0, Uniswap's values next to the bounds, and refuses ticks beyond them", () => {
    expect(getSqrtRatioAtTick(MIN_TICK)).to.equal(MIN_SQRT_RATIO);
    expect(getSqrtRatioAtTick(MIN_TICK + 1)).to.equal(4295343490n);
    expect(getSqrtRatioAtTick(0)).to.equal(Q96);
    expect(getSqrtRatioAtTick(MAX_TICK - 1)).to.equal(1461373636630004318706518188784493106690254656249n);
    expect(getSqrtRatioAtTick(MAX_TICK)).to.equal(MAX_SQRT_RATIO);
    expect(MIN_SQRT_RATIO).to.equal(4295128739n);
    expect(MAX_SQRT_RATIO).to.equal(1461446703485210103287273052203988822378723970342n);
    expect(() => getSqrtRatioAtTick(MIN_TICK - 1)).to.throw(V3MathError);
    expect(() => getSqrtRatioAtTick(MAX_TICK + 1)).to.throw(V3MathError);
  });

  it("getTickAtSqrtRatio gives the bound ticks at the bound ratios and refuses ratios outside [MIN_SQRT_RATIO, MAX_SQRT_RATIO)", () => {
    expect(getTickAtSqrtRatio(MIN_SQRT_RATIO)).to.equal(MIN_TICK);
    expect(getTickAtSqrtRatio(4295343490n)).to.equal(MIN_TICK + 1);
    expect(getTickAtSqrtRatio(1461373636630004318706518188784493106690254656249n)).to.equal(MAX_TICK - 1);
    expect(getTickAtSqrtRatio(MAX_SQRT_RATIO - 1n)).to.equal(MAX_TICK - 1);
    expect(getTickAtSqrtRatio(Q96)).to.equal(0);
    expect(() => getTickAtSqrtRatio(MIN_SQRT_RATIO - 1n)).to.throw(V3MathError);
    expect(() => getTickAtSqrtRatio(MAX_SQRT_RATIO)).to.throw(V3MathError);
  });

  it("getTickAtSqrtRatio is the greatest tick at or below a ratio, for every tick and the ratios right around it", () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_TICK, max: MAX_TICK - 1 }), fc.bigInt({ min: 0n, max: 1n << 64n }), (tick, offset) => {
        const ratio = getSqrtRatioAtTick(tick);
        expect(getTickAtSqrtRatio(ratio)).to.equal(tick);
        if (tick > MIN_TICK) expect(getTickAtSqrtRatio(ratio - 1n)).to.equal(tick - 1);
        const next = getSqrtRatioAtTick(tick + 1);
        expect(next > ratio).to.equal(true);
        const inside = ratio + (offset % (next - ratio));
        expect(getTickAtSqrtRatio(inside)).to.equal(tick);
      }),
      runs(2000),
    );
  });

  it("getTickAtSqrtRatio equals the contract's binary-logarithm computation for any ratio in range, and at every tick's edges", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: MIN_SQRT_RATIO, max: MAX_SQRT_RATIO - 1n }), fc.integer({ min: MIN_TICK + 1, max: MAX_TICK - 1 }), (ratio, tick) => {
        expect(getTickAtSqrtRatio(ratio)).to.equal(contractTickAtSqrtRatio(ratio));
        for (const edge of [getSqrtRatioAtTick(tick) - 1n, getSqrtRatioAtTick(tick)]) expect(getTickAtSqrtRatio(edge)).to.equal(contractTickAtSqrtRatio(edge));
      }),
      runs(2000),
    );
  });
});

describe("V3 full-precision and price math", () => {
  it("mulDiv rounds down and mulDivRoundingUp up, past 256-bit products, and both refuse a result of 2^256 or more, as FullMath reverts", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: UINT256_CEILING - 1n }), fc.bigInt({ min: 0n, max: UINT256_CEILING - 1n }), fc.bigInt({ min: 1n, max: UINT256_CEILING - 1n }), (a, b, d) => {
        const exact = (a * b) / d;
        if (exact >= UINT256_CEILING) {
          expect(() => mulDiv(a, b, d)).to.throw(V3MathError);
          return;
        }
        expect(mulDiv(a, b, d)).to.equal(exact);
        const up = (a * b) % d === 0n ? exact : exact + 1n;
        if (up >= UINT256_CEILING) expect(() => mulDivRoundingUp(a, b, d)).to.throw(V3MathError);
        else expect(mulDivRoundingUp(a, b, d)).to.equal(up);
      }),
      runs(500),
    );
    expect(mulDivRoundingUp(UINT256_CEILING - 1n, UINT256_CEILING - 1n, UINT256_CEILING - 1n)).to.equal(UINT256_CEILING - 1n);
    expect(() => mulDiv(1n, 1n, 0n)).to.throw(V3MathError);
  });

  it("next prices and amount deltas match Uniswap's SqrtPriceMath vectors (0.1 of a token in and out at 1:1, deltas between 1 and 1.21)", () => {
    const price = encodePriceSqrt(1n, 1n);
    expect(getNextSqrtPriceFromInput(price, E18, E18 / 10n, false)).to.equal(87150978765690771352898345369n);
    expect(getNextSqrtPriceFromInput(price, E18, E18 / 10n, true)).to.equal(72025602285694852357767227579n);
    expect(getNextSqrtPriceFromOutput(price, E18, E18 / 10n, false)).to.equal(88031291682515930659493278152n);
    expect(getNextSqrtPriceFromOutput(price, E18, E18 / 10n, true)).to.equal(71305346262837903834189555302n);
    const upper = encodePriceSqrt(121n, 100n);
    expect(getAmount0Delta(price, upper, E18, true)).to.equal(90909090909090910n);
    expect(getAmount0Delta(price, upper, E18, false)).to.equal(90909090909090909n);
    expect(getAmount1Delta(price, upper, E18, true)).to.equal(100000000000000000n);
    expect(getAmount1Delta(price, upper, E18, false)).to.equal(99999999999999999n);
    // Taking out all of token1 (or more) at a price is impossible: the contract reverts.
    expect(() => getNextSqrtPriceFromOutput(price, 1n, 4n, true)).to.throw(V3MathError);
    expect(() => getNextSqrtPriceFromInput(price, 0n, 1n, true)).to.throw(V3MathError);
  });

  it("computeSwapStep matches Uniswap's SwapMath vector (exact input capped at the target price, fee 0.06 %)", () => {
    const step = computeSwapStep(encodePriceSqrt(1n, 1n), encodePriceSqrt(101n, 100n), 2n * E18, E18, 600n, newSwapStep());
    expect(step.sqrtRatioNextX96).to.equal(encodePriceSqrt(101n, 100n));
    expect([step.amountIn, step.feeAmount, step.amountOut]).to.deep.equal([9975124224178055n, 5988667735148n, 9925619580021728n]);
  });

  it("a swap step never passes its target, takes at most what remains (exact input) and pays at most what is asked (exact output)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: MIN_TICK, max: MAX_TICK }),
        fc.integer({ min: MIN_TICK, max: MAX_TICK }),
        fc.bigInt({ min: 1n, max: (1n << 128n) - 1n }),
        fc.bigInt({ min: -(1n << 200n), max: 1n << 200n }).filter((amount) => amount !== 0n),
        fc.integer({ min: 0, max: 999_999 }),
        (currentTick, targetTick, liquidity, amountRemaining, fee) => {
          const [current, target] = [getSqrtRatioAtTick(currentTick), getSqrtRatioAtTick(targetTick)];
          let step;
          try {
            step = computeSwapStep(current, target, liquidity, amountRemaining, BigInt(fee), newSwapStep());
          } catch (error) {
            expect(error).to.be.instanceOf(V3MathError);
            return;
          }
          const zeroForOne = current >= target;
          expect(zeroForOne ? step.sqrtRatioNextX96 >= target && step.sqrtRatioNextX96 <= current : step.sqrtRatioNextX96 <= target && step.sqrtRatioNextX96 >= current).to.equal(true);
          if (amountRemaining > 0n) expect(step.amountIn + step.feeAmount <= amountRemaining).to.equal(true);
          else expect(step.amountOut <= -amountRemaining).to.equal(true);
        },
      ),
      runs(1000),
    );
  });
});

describe("V3 tick-bitmap word stepping", () => {
  it("stops at the next initialized tick within the 256-spacing word, else at the word's edge, as TickBitmap does", () => {
    expect(nextTickWithinWord(0, 0, 60, true)).to.equal(0);
    expect(nextTickWithinWord(0, 59, 60, true)).to.equal(0);
    expect(nextTickWithinWord(-60, -1, 60, true)).to.equal(-60);
    expect(nextTickWithinWord(60, 0, 60, false)).to.equal(60);
    // Word 0 holds compressed ticks 0..255 (ticks 0..15,300 at spacing 60): the next tick, 15,360, is in word 1.
    expect(nextTickWithinWord(15360, 60, 60, false)).to.equal(15300);
    expect(nextTickWithinWord(15360, 15300, 60, false)).to.equal(15360);
    expect(nextTickWithinWord(undefined, -601, 60, true)).to.equal(-15360);
    expect(nextTickWithinWord(-20000, -601, 60, true)).to.equal(-15360);
    expect(nextTickWithinWord(undefined, 5, 1, false)).to.equal(255);
  });
});
