import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { BaseError, ContractFunctionRevertedError, type Hex } from "viem";
import { getSqrtRatioAtTick, isV4PoolRoutable, v4HookExclusion, quoteConcentratedExactInput, quoteConcentratedExactOutput, uniswapV4QuoterAbi, MAX_TICK, MIN_TICK } from "../../sdk";
import type { ManifestV4Pool } from "../../sdk/chain/manifest";
import { applyV4PoolEvents, readV4PoolEvents, readV4PoolState, type V4PoolState } from "../../sdk";
import { v4MarketFixture, type V4MarketFixture } from "../fixtures/v4Market";

// Deterministic unless FUZZ_SEED is set (test:fuzz replays a failure with it); FUZZ_SCALE multiplies the runs.
const SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : 4663;
const RUNS = Math.max(1, Math.round(24 * Number(process.env.FUZZ_SCALE ?? "1")));

/** V4Quoter's answer for a single-pool swap (output for exact input, input for exact output), or that it reverted. */
async function v4Quoter(f: V4MarketFixture, pool: ManifestV4Pool, zeroForOne: boolean, exactInput: boolean, amount: bigint): Promise<bigint | "reverted"> {
  const params = { poolKey: f.keyOf(pool), zeroForOne, exactAmount: amount, hookData: "0x" as Hex };
  try {
    const { result } = await f.publicClient.simulateContract({
      address: f.v4.v4Quoter,
      abi: uniswapV4QuoterAbi,
      functionName: exactInput ? "quoteExactInputSingle" : "quoteExactOutputSingle",
      args: [params],
    });
    return result[0];
  } catch (error) {
    if (error instanceof BaseError && error.walk((cause) => cause instanceof ContractFunctionRevertedError || /reverted/.test((cause as Error).message ?? "")) !== null) return "reverted";
    throw error;
  }
}

/** Every V4 pool's state followed from the PoolManager's events since deployment, as quoting follows it. */
async function followedPools(f: V4MarketFixture): Promise<Map<Hex, V4PoolState>> {
  const events = await readV4PoolEvents(f.publicClient, f.v4.poolManager, { fromBlock: BigInt(f.v4.manifest.startBlock), toBlock: await f.publicClient.getBlockNumber() });
  return applyV4PoolEvents(new Map(), events);
}

/** An amount as a number of digits relative to a pool's depth: mostly near it (crossing positions), sometimes anything from 1 wei to far beyond (running the pool dry). */
const sizeArbitrary = fc.oneof(
  { arbitrary: fc.integer({ min: -3, max: 1 }).map((offset) => ({ offset })), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 30 }).map((digits) => ({ digits })), weight: 1 },
);
const amountArbitrary = fc.tuple(sizeArbitrary, fc.bigInt({ min: 1n, max: 10n ** 30n }));

/** The amount for `size` in a currency of `decimals` (a pool's depth: tens of thousands of USD, about 10^(decimals+1..4) units). */
function amountOf([size, raw]: [{ offset: number } | { digits: number }, bigint], decimals: number): bigint {
  const digits = "digits" in size ? size.digits : decimals + 4 + size.offset;
  return 1n + (raw % 10n ** BigInt(Math.max(1, digits)));
}

describe("V4 swap simulator (sdk/amm/v3, parameterised) against V4Quoter on the real PoolManager", function () {
  this.timeout(600_000);

  it("follows every pool from the PoolManager's events to exactly the state StateView reads", async () => {
    const f = await loadFixture(v4MarketFixture);
    const followed = await followedPools(f);
    const block = await f.publicClient.getBlockNumber();
    expect(followed.size).to.equal(f.v4.manifest.pools.length);
    for (const pool of f.v4.manifest.pools) {
      const ours = followed.get(pool.id.toLowerCase() as Hex)!;
      const read = await readV4PoolState(f.publicClient, f.v4.stateView, f.keyOf(pool), block, 512);
      const { tickRange: _range, ...readState } = read;
      expect(ours, pool.id).to.deep.equal(readState);
    }
  });

  it("prices exact input and exact output in both directions to the wei from event-followed state, after a random real swap moved the price, and refuses exactly what the pool cannot fill", async () => {
    let crossedMany = 0;
    let unfilled = 0;
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.record({ zeroForOne: fc.boolean(), spacings: fc.integer({ min: 0, max: 80 }), amount: amountArbitrary }),
        fc.boolean(),
        fc.boolean(),
        amountArbitrary,
        async (poolPick, move, zeroForOne, exactInput, size) => {
          const f = await loadFixture(v4MarketFixture);
          // Pools whose hook may change a swap's amounts are not priced from their curve (hook rules); the rest
          // are, an observing hook's included (it needs allowlisting to route, but its swaps follow the curve).
          const routable = f.v4.manifest.pools.filter((pool) => isV4PoolRoutable(pool, new Set()) || v4HookExclusion(pool) === "swap-hook");
          const pool = routable[poolPick % routable.length]!;
          const [decimals0, decimals1] = [f.decimalsOf(pool.currency0), f.decimalsOf(pool.currency1)];
          if (move.spacings > 0) {
            const before = (await followedPools(f)).get(pool.id.toLowerCase() as Hex)!;
            const span = move.spacings * pool.tickSpacing * (pool.tickSpacing === 1 ? 10 : 1);
            const limitTick = Math.min(MAX_TICK - 1, Math.max(MIN_TICK + 1, before.tick + (move.zeroForOne ? -span : span)));
            await f.swapExactInput(pool, move.zeroForOne, amountOf(move.amount, move.zeroForOne ? decimals0 : decimals1), getSqrtRatioAtTick(limitTick));
          }
          const state = (await followedPools(f)).get(pool.id.toLowerCase() as Hex)!;
          const amount = amountOf(size, zeroForOne === exactInput ? decimals0 : decimals1);
          if (amount >= 1n << 128n) return;
          const ours = exactInput ? quoteConcentratedExactInput(state, zeroForOne, amount) : quoteConcentratedExactOutput(state, zeroForOne, amount);
          const theirs = await v4Quoter(f, pool, zeroForOne, exactInput, amount);
          const label = `${pool.id} ${zeroForOne ? "0→1" : "1→0"} ${exactInput ? "exact in" : "exact out"} ${amount}`;
          if (theirs === "reverted") {
            expect(ours === undefined || !ours.filled, `${label}: V4Quoter reverts, so ours must refuse`).to.equal(true);
            unfilled++;
            return;
          }
          expect(ours?.filled, `${label}: V4Quoter answers, so ours fills`).to.equal(true);
          expect(exactInput ? ours!.amountOut : ours!.amountIn, `${label}: amount`).to.equal(theirs);
          compared++;
          if (ours!.ticksCrossed >= 3) crossedMany++;
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
    if (process.env.V4_DIFF_REPORT !== undefined) console.log({ compared, crossedMany, unfilled });
    // The random cases must reach what the test is about: swaps across several ticks, and pools running dry.
    expect(compared, "cases compared to the wei").to.be.greaterThan(RUNS / 2);
    expect(crossedMany, "cases compared that cross at least 3 initialized ticks").to.be.greaterThan(0);
    expect(unfilled, "cases the pool could not fill").to.be.greaterThan(0);
  });
});
