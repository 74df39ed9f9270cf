import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { decodeEventLog, maxUint256, type Address } from "viem";
import { mintV3Position, uniswapV3Artifacts } from "../../scripts/deploy/uniswapV3";
import { writeAndWait } from "../../scripts/deploy/writeAndWait";
import { getSqrtRatioAtTick, quoteConcentratedExactInput, quoteConcentratedExactOutput, uniswapV3PoolAbi, afterV3PoolEvent, readV3PoolEvents, readV3PoolState, type V3PoolState } from "../../sdk";
import { readWholePool, v3PoolsFixture, type V3PoolsFixture, type V3TestPool } from "../fixtures/v3Pools";

/** Applies the pool's events of blocks (from, to] to `state`. */
async function follow(f: V3PoolsFixture, state: V3PoolState, from: bigint, to: bigint): Promise<V3PoolState> {
  const events = await readV3PoolEvents(f.publicClient, [state.address], { fromBlock: from + 1n, toBlock: to });
  return events.reduce(afterV3PoolEvent, state);
}

/** The same prices, ticks and liquidity, and the same quotes both ways for a range of sizes. */
function expectSamePool(followed: V3PoolState, read: V3PoolState): void {
  expect({ ...followed, tickRange: undefined }).to.deep.equal({ ...read, tickRange: undefined });
  for (const amount of [10n ** 6n, 10n ** 18n, 10n ** 20n, 10n ** 21n, 5n * 10n ** 21n]) {
    for (const zeroForOne of [true, false]) {
      expect(quoteConcentratedExactInput(followed, zeroForOne, amount)).to.deep.equal(quoteConcentratedExactInput(read, zeroForOne, amount));
      expect(quoteConcentratedExactOutput(followed, zeroForOne, amount)).to.deep.equal(quoteConcentratedExactOutput(read, zeroForOne, amount));
    }
  }
}

/** A real exact-input swap through SwapRouter02; returns the pool's own `Swap` event. */
async function swap(f: V3PoolsFixture, pool: V3TestPool, zeroForOne: boolean, amountIn: bigint, sqrtPriceLimitX96: bigint) {
  const [tokenIn, tokenOut] = zeroForOne ? [pool.token0, pool.token1] : [pool.token1, pool.token0];
  const receipt = await writeAndWait(f.clients, f.deployer, {
    address: f.swapRouter02,
    abi: uniswapV3Artifacts.swapRouter02().abi,
    functionName: "exactInputSingle",
    args: [{ tokenIn, tokenOut, fee: pool.fee, recipient: f.deployer.account.address, amountIn, amountOutMinimum: 0n, sqrtPriceLimitX96 }],
  });
  const log = receipt.logs.find((entry) => entry.address.toLowerCase() === pool.address.toLowerCase() && entry.topics[0] === SWAP_TOPIC)!;
  return decodeEventLog({ abi: uniswapV3PoolAbi, eventName: "Swap", data: log.data, topics: log.topics }).args;
}

const SWAP_TOPIC = "0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67";

/** Removes all of a position's liquidity through the position manager (the pool emits `Burn`). */
async function burnAll(f: V3PoolsFixture, tokenId: bigint): Promise<void> {
  const manager = uniswapV3Artifacts.positionManager();
  const position = (await f.publicClient.readContract({ address: f.v3.positionManager, abi: manager.abi, functionName: "positions", args: [tokenId] })) as readonly unknown[];
  const liquidity = position[7] as bigint;
  await writeAndWait(f.clients, f.deployer, {
    address: f.v3.positionManager,
    abi: manager.abi,
    functionName: "decreaseLiquidity",
    args: [{ tokenId, liquidity, amount0Min: 0n, amount1Min: 0n, deadline: maxUint256 }],
  });
}

describe("V3 pool state followed from the pool's events", function () {
  this.timeout(300_000);

  it("from the pool's creation, Initialize and every Mint rebuild exactly the state read from slot0, liquidity and the tick bitmap", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const head = await f.publicClient.getBlockNumber();
    for (const pool of f.pools) {
      const empty: V3PoolState = { address: pool.address.toLowerCase() as Address, token0: pool.token0.toLowerCase() as Address, token1: pool.token1.toLowerCase() as Address, sqrtPriceX96: 0n, tick: 0, liquidity: 0n, fee: pool.fee, tickSpacing: pool.tickSpacing, ticks: [] };
      const followed = await follow(f, empty, 0n, head);
      expect(followed.sqrtPriceX96, `${pool.name} was initialized`).to.not.equal(0n);
      expectSamePool(followed, await readWholePool(f, pool, head));
    }
  });

  it("after real swaps across ticks, mints (new ticks and shared ones) and burns (ticks uninitialized), each swap is what the simulator predicted and the followed state equals the pool's", async () => {
    const f = await loadFixture(v3PoolsFixture);
    for (const pool of f.pools) {
      const start = await f.publicClient.getBlockNumber();
      let state = await readWholePool(f, pool, start);
      const ticksBefore = state.ticks.length;
      const center = state.tick - (((state.tick % pool.tickSpacing) + pool.tickSpacing) % pool.tickSpacing);
      const [tokenA, tokenB] = [pool.token0, pool.token1];
      // A new narrow position on fresh ticks, one sharing an existing tick, and one burnt entirely again.
      const lowest = state.ticks[0]!.index;
      await mintV3Position(f.clients, f.deployer, f.v3, { tokenA, tokenB, fee: pool.fee, tickLower: center - 7 * pool.tickSpacing, tickUpper: center + 11 * pool.tickSpacing, amountA: 10n ** 20n, amountB: 10n ** 20n });
      await mintV3Position(f.clients, f.deployer, f.v3, { tokenA, tokenB, fee: pool.fee, tickLower: lowest, tickUpper: center + 3 * pool.tickSpacing, amountA: 10n ** 19n, amountB: 10n ** 19n });
      const burnt = await mintV3Position(f.clients, f.deployer, f.v3, { tokenA, tokenB, fee: pool.fee, tickLower: center - 13 * pool.tickSpacing, tickUpper: center - 12 * pool.tickSpacing, amountA: 10n ** 19n, amountB: 10n ** 19n });
      let block = await f.publicClient.getBlockNumber();
      state = await follow(f, state, start, block);
      expect(state.ticks.length, `${pool.name}: the fresh ticks are initialized`).to.equal(ticksBefore + 5);
      await burnAll(f, burnt);
      const afterBurn = await f.publicClient.getBlockNumber();
      state = await follow(f, state, block, afterBurn);
      block = afterBurn;
      expect(state.ticks.length, `${pool.name}: the burnt position's ticks are no longer initialized`).to.equal(ticksBefore + 3);
      expectSamePool(state, await readWholePool(f, pool, block));

      for (const [zeroForOne, amountIn, spacings] of [[true, 10n ** 21n, 40], [false, 3n * 10n ** 21n, 60], [true, 10n ** 19n, 5], [false, 7n * 10n ** 20n, 30]] as const) {
        const limit = getSqrtRatioAtTick(state.tick + (zeroForOne ? -1 : 1) * spacings * pool.tickSpacing);
        const predicted = quoteConcentratedExactInput(state, zeroForOne, amountIn, limit)!;
        const event = await swap(f, pool, zeroForOne, amountIn, limit);
        expect(zeroForOne ? [event.amount0, -event.amount1] : [event.amount1, -event.amount0], `${pool.name}: amounts in and out`).to.deep.equal([predicted.amountIn, predicted.amountOut]);
        expect([event.sqrtPriceX96, event.tick, event.liquidity], `${pool.name}: price, tick and liquidity after`).to.deep.equal([predicted.sqrtPriceAfter, predicted.tickAfter, predicted.liquidityAfter]);
        const next = await f.publicClient.getBlockNumber();
        state = await follow(f, state, block, next);
        block = next;
      }
      expectSamePool(state, await readWholePool(f, pool, block));
    }
  });

  it("a bounded read knows the ticks of the words around the price only, and a swap that would leave them is refused rather than mispriced", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const pool = f.pools[1]!; // spacing 1: a word is 256 ticks, positions span about 4,500
    const block = await f.publicClient.getBlockNumber();
    const bounded = await readV3PoolState(f.publicClient, pool, block, 2);
    const whole = await readWholePool(f, pool, block);
    expect(bounded.tickRange!.upper - bounded.tickRange!.lower + 1).to.equal(5 * 256);
    expect(bounded.ticks).to.deep.equal(whole.ticks.filter((tick) => tick.index >= bounded.tickRange!.lower && tick.index <= bounded.tickRange!.upper));
    expect(bounded.ticks.length).to.be.lessThan(whole.ticks.length);
    // Small swaps stay inside the known words and price exactly as with every tick known.
    expect(quoteConcentratedExactInput(bounded, true, 10n ** 19n)).to.deep.equal(quoteConcentratedExactInput(whole, true, 10n ** 19n));
    // A swap through every position leaves them: unfilled, so routing skips it.
    const large = quoteConcentratedExactInput(bounded, true, 10n ** 24n)!;
    expect(large.filled).to.equal(false);
    expect(quoteConcentratedExactInput(whole, true, 10n ** 24n)!.amountOut > large.amountOut, "every tick known, the swap goes further").to.equal(true);
  });
});
