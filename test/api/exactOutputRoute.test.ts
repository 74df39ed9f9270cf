import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import type { Address } from "viem";
import { getAmountOut, splitAmounts, v2PoolsOf } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { bestExactOutputExecution, pathAmountIn, searchRouteForOutput } from "../../api/quote/routing/exactOutputRoute";
import { HUB_COUNT, pricedMarketOf } from "../../api/quote/routing/poolGraph";
import { PoolStateTracker } from "../../api/quote/market/poolState";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";
import { amountThrough, type PricedPool, type V2Pool } from "../../api/quote/routing/routeSearch";
import { isV2Pool } from "../../api/quote/venues/pricedPool";
import { settlementFixture } from "../fixtures/settlementFixture";

/** The devnet market's pools as quotes see them, read once. */
async function devnetPools(): Promise<{ pools: V2Pool[]; tokens: Address[]; weth: Address }> {
  const f = await loadFixture(settlementFixture);
  const tracker = new PoolStateTracker({ factory: undefined, isSupported: () => true, observeReads: () => undefined });
  const snapshot = await tracker.at(f.publicClient, await new ChainHead(f.publicClient).fresh(), v2PoolsOf(f));
  return { pools: [...snapshot.pools.values()].filter(isV2Pool), tokens: f.tokens.map((token) => token.address.toLowerCase() as Address), weth: f.contracts.weth.toLowerCase() as Address };
}

const moved = (pool: V2Pool, factor: number, other: number): V2Pool => ({
  ...pool,
  reserve0: (pool.reserve0 * BigInt(factor)) / 1000n,
  reserve1: (pool.reserve1 * BigInt(other)) / 1000n,
});

/** Every simple path of at most 3 pools from `tokenIn` to `tokenOut` (no pool or token twice): the brute force. */
function allPaths(pools: readonly V2Pool[], tokenIn: Address, tokenOut: Address): { pools: V2Pool[]; tokens: Address[] }[] {
  const found: { pools: V2Pool[]; tokens: Address[] }[] = [];
  const walk = (token: Address, used: V2Pool[], tokens: Address[]): void => {
    if (used.length === 3) return;
    for (const pool of pools) {
      if (used.includes(pool) || (pool.token0 !== token && pool.token1 !== token)) continue;
      const next = pool.token0 === token ? pool.token1 : pool.token0;
      if (tokens.includes(next)) continue;
      if (next === tokenOut) found.push({ pools: [...used, pool], tokens: [...tokens, next] });
      else walk(next, [...used, pool], [...tokens, next]);
    }
  };
  walk(tokenIn, [], [tokenIn]);
  return found;
}

/** What `amountIn` pays forwards along a path, as the router runs it. */
function forwardOutput(pools: readonly PricedPool[], tokens: readonly Address[], amountIn: bigint): bigint {
  let amount = amountIn;
  pools.forEach((pool, index) => (amount = amountThrough(pool, tokens[index]!, amount)));
  return amount;
}

describe("exact-output routing: the cheapest input for an output (the reverse of the exact-input search)", () => {
  it("needs exactly the least input any path of up to 3 pools needs, and that input pays at least the output forwards, on the devnet market and moved versions of it", async () => {
    const { pools, tokens } = await devnetPools();
    expect(tokens.length, "every devnet token is a hub").to.be.at.most(HUB_COUNT);
    const scale = fc.integer({ min: 50, max: 20_000 });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: tokens.length - 1 }),
        fc.integer({ min: 0, max: tokens.length - 1 }),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.array(fc.tuple(scale, scale), { minLength: pools.length, maxLength: pools.length }),
        (inIndex, outIndex, amountOut, scales) => {
          const market = pools.map((pool, index) => moved(pool, ...scales[index]!));
          const [tokenIn, tokenOut] = [tokens[inIndex]!, tokens[outIndex]!];
          const found = searchRouteForOutput(pricedMarketOf(market), tokenIn, tokenOut, amountOut);
          const inputs = tokenIn === tokenOut ? [] : allPaths(market, tokenIn, tokenOut).map((path) => pathAmountIn(path.pools, path.tokens, amountOut)).filter((input): input is bigint => input !== undefined);
          const least = inputs.reduce<bigint | undefined>((best, input) => (best === undefined || input < best ? input : best), undefined);
          expect(found?.amountIn).to.equal(least);
          if (found === undefined) return;
          expect(found.tokens[0]).to.equal(tokenIn);
          expect(found.tokens.at(-1)).to.equal(tokenOut);
          // The forward direction agrees: the path pays the output for that input, and so does the best exact-input route.
          expect(forwardOutput(found.pools, found.tokens, found.amountIn) >= amountOut).to.equal(true);
          expect(searchRoute(pricedMarketOf(market), tokenIn, tokenOut, found.amountIn)!.amountOut >= amountOut).to.equal(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("a single hop's input is the least for which the forward V2 formula pays the output (getAmountIn against getAmountOut)", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1000n, max: 10n ** 30n }), fc.bigInt({ min: 1000n, max: 10n ** 30n }), fc.bigInt({ min: 1n, max: 10n ** 30n }), (reserveIn, reserveOut, wanted) => {
        const amountOut = (wanted % (reserveOut - 1n)) + 1n;
        const pool: V2Pool = { address: "0x00000000000000000000000000000000000000a1", token0: "0x0000000000000000000000000000000000000001", token1: "0x0000000000000000000000000000000000000002", reserve0: reserveIn, reserve1: reserveOut, feeBps: 30, source: "uniswap-v2", oracleStarted: true };
        const input = pathAmountIn([pool], [pool.token0, pool.token1], amountOut);
        if (reserveIn + (input ?? 0n) > (1n << 112n) - 1n || input === undefined) return;
        expect(getAmountOut(input, reserveIn, reserveOut, 30) >= amountOut).to.equal(true);
        // Uniswap's getAmountIn rounds up by one unit: at most one unit more than the least that pays.
        expect(getAmountOut(input - 2n, reserveIn, reserveOut, 30) < amountOut).to.equal(true);
      }),
      { numRuns: 500 },
    );
  });

  it("a split never needs more input than the single path; its legs divide the output as the router does (shares of the output, the last leg the rest) and each pays its part", async () => {
    const { pools, tokens, weth } = await devnetPools();
    const scale = fc.integer({ min: 20, max: 5_000 });
    let splits = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: tokens.length - 1 }),
        fc.integer({ min: 0, max: tokens.length - 1 }),
        fc.integer({ min: 1, max: 60 }),
        fc.array(fc.tuple(scale, scale), { minLength: pools.length, maxLength: pools.length }),
        (inIndex, outIndex, percent, scales) => {
          const market = pools.map((pool, index) => moved(pool, ...scales[index]!));
          const [tokenIn, tokenOut] = [tokens[inIndex]!, tokens[outIndex]!];
          if (tokenIn === tokenOut) return;
          // A sizeable part of what the direct pools hold, so that splitting pays.
          const depth = market.filter((pool) => pool.token0 === tokenOut || pool.token1 === tokenOut).reduce((sum, pool) => sum + (pool.token0 === tokenOut ? pool.reserve0 : pool.reserve1), 0n);
          const amountOut = (depth * BigInt(percent)) / 100n;
          const priced = pricedMarketOf(market);
          const single = searchRouteForOutput(priced, tokenIn, tokenOut, amountOut);
          if (single === undefined) return;
          const execution = bestExactOutputExecution(priced, tokenIn, tokenOut, amountOut, single, 0n, weth);
          expect(execution.amountIn <= single.amountIn).to.equal(true);
          expect(execution.amountOut >= amountOut).to.equal(true);
          expect(execution.legs.reduce((sum, leg) => sum + leg.shareBps, 0)).to.equal(10_000);
          expect(execution.legs.reduce((sum, leg) => sum + leg.amountIn, 0n)).to.equal(execution.amountIn);
          if (execution.legs.length < 2) return;
          splits++;
          const parts = splitAmounts(amountOut, execution.legs.map((leg) => leg.shareBps));
          execution.legs.forEach((leg, index) => {
            const path = { pools: leg.hops.map((hop) => hop.pool), tokens: [...leg.hops.map((hop) => hop.tokenIn), tokenOut] };
            expect(leg.amountIn).to.equal(pathAmountIn(path.pools, path.tokens, parts[index]!));
            expect(leg.amountOut >= parts[index]!).to.equal(true);
          });
        },
      ),
      { numRuns: 200 },
    );
    expect(splits, "some of the runs split").to.be.greaterThan(0);
  });
});
