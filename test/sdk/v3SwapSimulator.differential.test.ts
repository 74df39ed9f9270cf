import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { BaseError, ContractFunctionRevertedError } from "viem";
import { uniswapV3Artifacts } from "../../scripts/deploy/uniswapV3";
import { getSqrtRatioAtTick, quoteConcentratedExactInput, quoteConcentratedExactOutput, MAX_TICK, MIN_TICK, type V3Tick } from "../../sdk";
import { readWholePool, slot0, swapExactInput, v3PoolsFixture, type V3PoolsFixture, type V3TestPool } from "../fixtures/v3Pools";

// Deterministic unless FUZZ_SEED is set (test:fuzz replays a failure with it); FUZZ_SCALE multiplies the runs.
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 4663;
const RUNS = Math.max(1, Math.round(24 * Number(process.env.FUZZ_SCALE ?? "1")));

type QuoterAnswer = { amount: bigint; sqrtPriceAfter: bigint; ticksCrossed: number } | "reverted";

/** QuoterV2's answer for a single-pool swap: the amount computed (output for exact input, input for exact output). */
async function quoterV2(f: V3PoolsFixture, pool: V3TestPool, zeroForOne: boolean, exactInput: boolean, amount: bigint): Promise<QuoterAnswer> {
  const [tokenIn, tokenOut] = zeroForOne ? [pool.token0, pool.token1] : [pool.token1, pool.token0];
  const abi = uniswapV3Artifacts.quoterV2().abi;
  try {
    const { result } = exactInput
      ? await f.publicClient.simulateContract({ address: f.v3.quoterV2, abi, functionName: "quoteExactInputSingle", args: [{ tokenIn, tokenOut, amountIn: amount, fee: pool.fee, sqrtPriceLimitX96: 0n }] })
      : await f.publicClient.simulateContract({ address: f.v3.quoterV2, abi, functionName: "quoteExactOutputSingle", args: [{ tokenIn, tokenOut, amount, fee: pool.fee, sqrtPriceLimitX96: 0n }] });
    const [computed, sqrtPriceAfter, ticksCrossed] = result as readonly [bigint, bigint, number, bigint];
    return { amount: computed, sqrtPriceAfter, ticksCrossed };
  } catch (error) {
    // Hardhat reports some of QuoterV2's reverts ("Unexpected error" from its revert parsing) as an unknown RPC error.
    if (error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionRevertedError || /reverted/.test((cause as Error).message ?? "")) !== null) return "reverted";
    throw error;
  }
}

/**
 * What QuoterV2 reports as ticks crossed: its PoolTicksCounter counts the bitmap's initialized ticks
 * between the ticks before and after (compressing by truncation, not floor), then removes the end
 * ticks by rules of its own, so it can differ from what the swap loop crosses (a 1-wei swap starting
 * on an initialized tick counts 1). Recomputed here from our tick after, so that the comparison checks it.
 */
function quoterV2TickCount(ticks: readonly V3Tick[], spacing: number, tickBefore: number, tickAfter: number): number {
  const initialized = new Set(ticks.map((tick) => tick.index));
  const [before, after] = [Math.trunc(tickBefore / spacing), Math.trunc(tickAfter / spacing)];
  let count = ticks.filter((tick) => tick.index >= Math.min(before, after) * spacing && tick.index <= Math.max(before, after) * spacing).length;
  if (initialized.has(after * spacing) && tickAfter % spacing === 0 && tickBefore > tickAfter) count--;
  if (initialized.has(before * spacing) && tickBefore % spacing === 0 && tickBefore < tickAfter) count--;
  return count;
}

/** The initialized ticks a swap from (priceBefore, tickBefore) to priceAfter crosses: where the price reaches their sqrt ratio. */
function ticksCrossedBetween(ticks: readonly V3Tick[], tickBefore: number, priceAfter: bigint, zeroForOne: boolean): number {
  return ticks.filter((tick) => (zeroForOne ? tick.index <= tickBefore && getSqrtRatioAtTick(tick.index) >= priceAfter : tick.index > tickBefore && getSqrtRatioAtTick(tick.index) <= priceAfter)).length;
}

/**
 * An amount's size as digits relative to a pool's typical depth in the input token: mostly sizes that
 * cross several positions' edges (one to a hundred times the depth), sometimes anything from 1 wei to
 * far beyond the pool (which runs it dry).
 */
const sizeArbitrary = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 2 }).map((offset) => ({ offset })), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 26 }).map((digits) => ({ digits })), weight: 1 },
);
const amountArbitrary = fc.tuple(sizeArbitrary, fc.bigInt({ min: 1n, max: 10n ** 26n }));

/** The amount for `size` in a token of `decimals` (typical depth: about 1,000 tokens of 18 decimals, or their worth in the 6-decimal one). */
function amountOf([size, raw]: [{ offset: number } | { digits: number }, bigint], decimals: number): bigint {
  const digits = "digits" in size ? size.digits : (decimals === 6 ? 12 : 21) + size.offset;
  return 1n + (raw % 10n ** BigInt(digits));
}

describe("V3 swap simulator against QuoterV2 on real pools", function () {
  this.timeout(300_000);

  it("prices exact input and exact output in both directions to the wei (amount, price after, ticks crossed), after a random real swap moved the price, and refuses exactly what the pool cannot fill", async () => {
    let crossedMany = 0;
    let unfilled = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 2 }),
        fc.record({ zeroForOne: fc.boolean(), spacings: fc.integer({ min: 0, max: 60 }), amount: amountArbitrary }),
        fc.boolean(),
        fc.boolean(),
        amountArbitrary,
        async (poolIndex, move, zeroForOne, exactInput, size) => {
          const f = await loadFixture(v3PoolsFixture);
          const pool = f.pools[poolIndex]!;
          // Exact input is sized in the input token, exact output in the output token.
          const amount = amountOf(size, zeroForOne === exactInput ? pool.decimals0 : pool.decimals1);
          if (move.spacings > 0) {
            // A real swap first, bounded by a price limit, so that quotes start from varied prices and liquidity.
            const before = await slot0(f, pool);
            const span = move.spacings * pool.tickSpacing * (pool.tickSpacing === 1 ? 40 : 1);
            const limitTick = Math.min(MAX_TICK - 1, Math.max(MIN_TICK + 1, before.tick + (move.zeroForOne ? -span : span)));
            await swapExactInput(f, pool, move.zeroForOne, amountOf(move.amount, move.zeroForOne ? pool.decimals0 : pool.decimals1), getSqrtRatioAtTick(limitTick));
          }
          const state = await readWholePool(f, pool);
          const ours = exactInput ? quoteConcentratedExactInput(state, zeroForOne, amount) : quoteConcentratedExactOutput(state, zeroForOne, amount);
          const theirs = await quoterV2(f, pool, zeroForOne, exactInput, amount);
          const label = `${pool.name} ${zeroForOne ? "0→1" : "1→0"} ${exactInput ? "exact in" : "exact out"} ${amount}`;
          if (theirs === "reverted") {
            expect(ours === undefined || !ours.filled, `${label}: QuoterV2 reverts, so ours must refuse`).to.equal(true);
            if (ours !== undefined) unfilled++;
            return;
          }
          expect(ours, `${label}: QuoterV2 answers`).to.not.equal(undefined);
          const result = ours!;
          expect(exactInput ? result.amountOut : result.amountIn, `${label}: amount`).to.equal(theirs.amount);
          expect(result.sqrtPriceAfter, `${label}: sqrt price after`).to.equal(theirs.sqrtPriceAfter);
          expect(quoterV2TickCount(state.ticks, state.tickSpacing, state.tick, result.tickAfter), `${label}: QuoterV2's tick count`).to.equal(theirs.ticksCrossed);
          expect(result.ticksCrossed, `${label}: ticks crossed`).to.equal(ticksCrossedBetween(state.ticks, state.tick, result.sqrtPriceAfter, zeroForOne));
          if (exactInput && !result.filled) unfilled++;
          if (result.ticksCrossed >= 3) crossedMany++;
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    // The random cases must reach what the test is about: swaps across many ticks, and pools running dry.
    expect(crossedMany, "cases compared that cross at least 3 initialized ticks").to.be.greaterThan(RUNS / 8);
    expect(unfilled, "cases the pool could not fill").to.be.greaterThan(0);
  });
});
