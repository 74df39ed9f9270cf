import { expect } from "chai";
import fc from "fast-check";
import {
  afterLiquidityChange,
  getSqrtRatioAtTick,
  MAX_SQRT_RATIO,
  MAX_SWAP_FEE,
  MAX_TICK,
  MIN_SQRT_RATIO,
  MIN_TICK,
  quoteConcentratedExactInput,
  quoteConcentratedExactOutput,
  swapFeePips,
  type ConcentratedPoolState,
  type V3PoolState,
} from "../../sdk";
import { v3Curve, v3ExactInput, v3ExactOutput, v3SpotPrice } from "../../api/quote/venues/uniswapV3/v3Pricing";

const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 4663;
const runs = (count: number) => ({ seed: SEED, numRuns: Math.max(1, Math.round(count * Number(process.env.FUZZ_SCALE ?? "1"))) });
const Q96 = 1n << 96n;
const E18 = 10n ** 18n;

/** A pool built from random positions through the same liquidity bookkeeping the API follows events with. */
const poolArbitrary = fc
  .record({
    spacing: fc.constantFrom(1, 10, 60, 200),
    priceTick: fc.integer({ min: -50_000, max: 50_000 }),
    fee: fc.constantFrom(100, 500, 3000, 10000),
    positions: fc.array(fc.record({ from: fc.integer({ min: -400, max: 400 }), width: fc.integer({ min: 1, max: 300 }), liquidity: fc.bigInt({ min: 1n, max: 10n ** 24n }) }), { minLength: 1, maxLength: 12 }),
  })
  .map(({ spacing, priceTick, fee, positions }): ConcentratedPoolState => {
    const sqrtPriceX96 = getSqrtRatioAtTick(priceTick);
    const center = Math.floor(priceTick / spacing) * spacing;
    let pool: V3PoolState = { address: "0x0000000000000000000000000000000000000001", token0: "0x0000000000000000000000000000000000000002", token1: "0x0000000000000000000000000000000000000003", sqrtPriceX96, tick: priceTick, liquidity: 0n, fee, tickSpacing: spacing, ticks: [] };
    for (const position of positions) {
      const lower = Math.max(Math.ceil(MIN_TICK / spacing), Math.floor(center / spacing) + position.from) * spacing;
      const upper = Math.min(Math.floor(MAX_TICK / spacing) * spacing, lower + position.width * spacing);
      pool = afterLiquidityChange(pool, lower, upper, position.liquidity);
    }
    return pool;
  });

describe("V3 swap simulator properties", () => {
  it("an exact-output quote for what an exact input pays never asks more than that input, and more input never pays less", () => {
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), fc.bigInt({ min: 1n, max: 10n ** 26n }), (pool, zeroForOne, amountIn) => {
        const forward = quoteConcentratedExactInput(pool, zeroForOne, amountIn);
        if (forward === undefined || !forward.filled || forward.amountOut === 0n) return;
        const back = quoteConcentratedExactOutput(pool, zeroForOne, forward.amountOut)!;
        expect(back.filled).to.equal(true);
        expect(back.amountIn <= amountIn, "exact output of the same amount costs at most the input").to.equal(true);
        const more = quoteConcentratedExactInput(pool, zeroForOne, amountIn * 2n)!;
        expect(more.amountOut >= forward.amountOut).to.equal(true);
      }),
      runs(300),
    );
  });

  it("an exact input that drains every position is unfilled (a partial fill that routing must refuse) and ends at the price limit with no liquidity left", () => {
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), (pool, zeroForOne) => {
        const drained = quoteConcentratedExactInput(pool, zeroForOne, 1n << 200n);
        if (drained === undefined) return;
        expect(drained.filled).to.equal(false);
        expect(drained.sqrtPriceAfter).to.equal(zeroForOne ? MIN_SQRT_RATIO + 1n : MAX_SQRT_RATIO - 1n);
        expect(drained.liquidityAfter).to.equal(0n);
        expect(drained.amountIn < 1n << 200n).to.equal(true);
      }),
      runs(100),
    );
  });

  it("a swap through empty bitmap words ends exactly where stepping edge by edge ends (every edge made an initialized tick of zero net liquidity), price limits on edges included", () => {
    /** The pool with a zero-net tick at every word edge a swap in this direction stops at: the simulator then steps through each. */
    const steppedEdgeByEdge = (pool: ConcentratedPoolState, zeroForOne: boolean): ConcentratedPoolState => {
      const word = 256 * pool.tickSpacing;
      const known = new Set(pool.ticks.map((tick) => tick.index));
      const edges = [];
      for (let start = Math.floor(MIN_TICK / word) * word; start <= MAX_TICK; start += word) {
        const edge = zeroForOne ? start : start + word - pool.tickSpacing;
        if (edge >= MIN_TICK && edge <= MAX_TICK && !known.has(edge)) edges.push({ index: edge, liquidityNet: 0n });
      }
      return { ...pool, ticks: [...pool.ticks, ...edges].sort((a, b) => a.index - b.index) };
    };
    // Limits on (or a wei off) the word edges around the last position and the tick bound, where the walk through empty words ends.
    const limitArbitrary = fc.record({ anchor: fc.constantFrom("lastTick", "bound", "default"), words: fc.integer({ min: -3, max: 3 }), offset: fc.constantFrom(-1n, 0n, 1n) });
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), fc.oneof(fc.constant(1n << 200n), fc.bigInt({ min: 1n, max: 10n ** 26n })), limitArbitrary, (pool, zeroForOne, amount, limit) => {
        const word = 256 * pool.tickSpacing;
        const last = zeroForOne ? (limit.anchor === "bound" ? MIN_TICK : pool.ticks[0]!.index) : limit.anchor === "bound" ? MAX_TICK : pool.ticks.at(-1)!.index;
        const start = Math.floor(last / word) * word + limit.words * word;
        const edgeTick = Math.min(MAX_TICK, Math.max(MIN_TICK, zeroForOne ? start : start + word - pool.tickSpacing));
        const sqrtPriceLimit = limit.anchor === "default" ? undefined : getSqrtRatioAtTick(edgeTick) + limit.offset;
        const stepped = steppedEdgeByEdge(pool, zeroForOne);
        for (const quote of [quoteConcentratedExactInput, quoteConcentratedExactOutput]) {
          const ours = quote(pool, zeroForOne, amount, sqrtPriceLimit);
          const theirs = quote(stepped, zeroForOne, amount, sqrtPriceLimit);
          if (theirs === undefined) {
            expect(ours).to.equal(undefined);
            continue;
          }
          expect({ ...ours!, ticksCrossed: 0 }).to.deep.equal({ ...theirs, ticksCrossed: 0 });
          expect(ours!.ticksCrossed <= theirs.ticksCrossed).to.equal(true);
        }
      }),
      runs(150),
    );
  });

  it("refuses what the pool reverts on: a zero amount, and a price limit on the wrong side of the price", () => {
    const pool: ConcentratedPoolState = { sqrtPriceX96: Q96, tick: 0, liquidity: E18, fee: 3000, tickSpacing: 60, ticks: [] };
    expect(quoteConcentratedExactInput(pool, true, 0n)).to.equal(undefined);
    expect(quoteConcentratedExactOutput(pool, true, 0n)).to.equal(undefined);
    expect(quoteConcentratedExactInput(pool, true, E18, Q96 + 1n)).to.equal(undefined);
    expect(quoteConcentratedExactInput(pool, false, E18, Q96 - 1n)).to.equal(undefined);
    expect(quoteConcentratedExactInput(pool, true, E18, MIN_SQRT_RATIO)).to.equal(undefined);
  });
});

describe("V3 pricing for route search", () => {
  const token0 = "0x0000000000000000000000000000000000000002" as const;
  const token1 = "0x0000000000000000000000000000000000000003" as const;

  it("the spot price is the first wei's price and the local curve predicts a swap inside the current tick range to a part in a million, both directions", () => {
    let checked = 0;
    fc.assert(
      fc.property(poolArbitrary, fc.boolean(), (generated, zeroForOne) => {
        const pool = generated as V3PoolState;
        if (pool.liquidity === 0n) return;
        const tokenIn = zeroForOne ? token0 : token1;
        const [numerator, denominator] = v3SpotPrice(pool, tokenIn)!;
        const curve = v3Curve(pool, tokenIn, 0n)!;
        expect(Math.abs(curve.p / (Number(numerator) / Number(denominator)) - 1)).to.be.lessThan(1e-9);
        // A swap small enough to stay between the current ticks: the virtual-reserve curve holds.
        const amountIn = pool.liquidity / 10n ** 6n + 10n ** 6n;
        const swapped = v3ExactInput(pool, tokenIn, amountIn);
        if (swapped === undefined || swapped.ticksCrossed > 0) return;
        const d = Number(amountIn);
        const predicted = (curve.p * d) / (1 + curve.q * d);
        expect(Math.abs(predicted / Number(swapped.amountOut) - 1)).to.be.lessThan(1e-6);
        checked++;
        // The exact-output quote for that output asks at most the input.
        expect(v3ExactOutput(pool, tokenIn, swapped.amountOut)!.amountIn <= amountIn).to.equal(true);
      }),
      runs(200),
    );
    expect(checked, "cases swapping inside the current range").to.be.greaterThan(20);
  });

  it("refuses a token the pool does not hold and a sale the pool cannot fill", () => {
    const pool: V3PoolState = { address: "0x0000000000000000000000000000000000000001", token0, token1, sqrtPriceX96: Q96, tick: 0, liquidity: E18, fee: 3000, tickSpacing: 60, ticks: [{ index: -60, liquidityNet: E18, liquidityGross: E18 }, { index: 60, liquidityNet: -E18, liquidityGross: E18 }] };
    expect(v3ExactInput(pool, "0x0000000000000000000000000000000000000009", E18)).to.equal(undefined);
    expect(v3SpotPrice(pool, "0x0000000000000000000000000000000000000009")).to.equal(undefined);
    expect(v3ExactInput(pool, token0, 10n * E18), "more than the range holds: a partial fill").to.equal(undefined);
    expect(v3ExactInput(pool, token0, E18 / 1000n)!.amountOut > 0n).to.equal(true);
    expect(v3ExactOutput(pool, token0, 10n * E18)).to.equal(undefined);
  });
});

describe("V3 simulator parameters V4 reuses", () => {
  const pool: ConcentratedPoolState = { sqrtPriceX96: Q96, tick: 0, liquidity: 10n ** 24n, fee: 3000, tickSpacing: 60, ticks: [] };

  it("a V4 protocol fee combines with the LP fee per direction as ProtocolFeeLibrary.calculateSwapFee does, and the swap pays the combined fee", () => {
    const protocolFee = 1000 | (500 << 12);
    expect(swapFeePips(3000, protocolFee, true)).to.equal(3997);
    expect(swapFeePips(3000, protocolFee, false)).to.equal(3499);
    expect(swapFeePips(3000, 0, true)).to.equal(3000);
    for (const zeroForOne of [true, false]) {
      const combined = swapFeePips(3000, protocolFee, zeroForOne);
      expect(quoteConcentratedExactInput({ ...pool, protocolFee }, zeroForOne, E18)).to.deep.equal(quoteConcentratedExactInput({ ...pool, fee: combined }, zeroForOne, E18));
      expect(quoteConcentratedExactOutput({ ...pool, protocolFee }, zeroForOne, E18)).to.deep.equal(quoteConcentratedExactOutput({ ...pool, fee: combined }, zeroForOne, E18));
    }
  });

  it("at a 100 % fee (possible in V4) an exact input buys nothing and an exact output is refused", () => {
    const full = { ...pool, fee: MAX_SWAP_FEE };
    const result = quoteConcentratedExactInput(full, true, E18)!;
    expect([result.amountIn, result.amountOut, result.filled, result.sqrtPriceAfter]).to.deep.equal([E18, 0n, true, Q96]);
    expect(quoteConcentratedExactOutput(full, true, E18)).to.equal(undefined);
  });
});
