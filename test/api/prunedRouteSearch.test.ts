import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import type { Address } from "viem";
import { v2PoolsOf } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { HUB_COUNT, pricedMarketOf } from "../../api/quote/routing/poolGraph";
import { PoolStateTracker } from "../../api/quote/market/poolState";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";
import { findBestRoute, type PricedPool, type V2Pool } from "../../api/quote/routing/routeSearch";
import { isV2Pool } from "../../api/quote/venues/pricedPool";
import { settlementFixture } from "../fixtures/settlementFixture";

/** The devnet market's pools as quotes see them, read once. */
async function devnetPools(): Promise<{ pools: V2Pool[]; tokens: Address[] }> {
  const f = await loadFixture(settlementFixture);
  const tracker = new PoolStateTracker({ factory: undefined, isSupported: () => true, observeReads: () => undefined });
  const snapshot = await tracker.at(f.publicClient, await new ChainHead(f.publicClient).fresh(), v2PoolsOf(f));
  return { pools: [...snapshot.pools.values()].filter(isV2Pool), tokens: f.tokens.map((token) => token.address.toLowerCase() as Address) };
}

/** A pool's reserves scaled by `factor`/1000 on side 0 and `other`/1000 on side 1: the same market, moved. */
const moved = (pool: V2Pool, factor: number, other: number): V2Pool => ({
  ...pool,
  reserve0: (pool.reserve0 * BigInt(factor)) / 1000n,
  reserve1: (pool.reserve1 * BigInt(other)) / 1000n,
});

describe("pruned route search", () => {
  it("on the devnet market (and moved versions of it), finds a path paying exactly what the exhaustive search's best pays, for any pair and amount", async () => {
    const { pools, tokens } = await devnetPools();
    expect(tokens.length, "every devnet token is a hub").to.be.at.most(HUB_COUNT);
    const scale = fc.integer({ min: 50, max: 20_000 });
    const amount = fc.bigInt({ min: 1n, max: 10n ** 24n });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: tokens.length - 1 }),
        fc.integer({ min: 0, max: tokens.length - 1 }),
        amount,
        fc.array(fc.tuple(scale, scale), { minLength: pools.length, maxLength: pools.length }),
        (inIndex, outIndex, amountIn, scales) => {
          const market = pools.map((pool, index) => moved(pool, ...scales[index]!));
          const [tokenIn, tokenOut] = [tokens[inIndex]!, tokens[outIndex]!];
          const exhaustive = findBestRoute(market, tokenIn, tokenOut, amountIn);
          const pruned = searchRoute(pricedMarketOf(market), tokenIn, tokenOut, amountIn);
          expect(pruned?.amountOut).to.equal(exhaustive?.amountOut);
          expect(pruned?.hops.length).to.equal(exhaustive?.hops.length);
          if (pruned !== undefined) {
            expect(pruned.hops[0]!.tokenIn).to.equal(tokenIn);
            expect(pruned.hops.at(-1)!.tokenOut).to.equal(tokenOut);
            pruned.hops.forEach((hop, index) => index > 0 && expect(hop.amountIn).to.equal(pruned.hops[index - 1]!.amountOut));
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it("on the devnet market as deployed, picks the same pools as the exhaustive search for every pair at several sizes", async () => {
    const { pools, tokens } = await devnetPools();
    const market = pricedMarketOf(pools);
    let compared = 0;
    for (const tokenIn of tokens) {
      for (const tokenOut of tokens) {
        for (const amountIn of [10n ** 6n, 10n ** 12n, 10n ** 18n, 10n ** 21n]) {
          const exhaustive = findBestRoute(pools, tokenIn, tokenOut, amountIn);
          const pruned = searchRoute(market, tokenIn, tokenOut, amountIn);
          expect(pruned?.hops.map((hop) => hop.pool.address)).to.deep.equal(exhaustive?.hops.map((hop) => hop.pool.address));
          if (exhaustive !== undefined) compared++;
        }
      }
    }
    expect(compared).to.be.greaterThan(100);
  });

  it("looks only at hub intermediates: a market of thousands of pools costs it no more than a small one", () => {
    const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
    const pool = (n: number, a: number, b: number): V2Pool => ({
      address: token(1_000_000 + n),
      token0: token(Math.min(a, b)),
      token1: token(Math.max(a, b)),
      reserve0: 10n ** 24n,
      reserve1: 10n ** 24n,
      feeBps: 30,
      source: "uniswap-v2",
      oracleStarted: true,
    });
    // Tokens 1..4 are hubs joined to each other; every other token is paired with two hubs.
    const pools: V2Pool[] = [pool(0, 1, 2), pool(1, 1, 3), pool(2, 1, 4), pool(3, 2, 3), pool(4, 2, 4), pool(5, 3, 4)];
    for (let leaf = 10; leaf < 2_510; leaf++) pools.push(pool(pools.length, leaf, 1 + (leaf % 4)), pool(pools.length + 1, leaf, 1 + ((leaf + 1) % 4)));
    const market = pricedMarketOf(pools);
    const looked = new Set<string>();
    const spied = { ...market, pools: { get: (address: Address) => (looked.add(address), market.pools.get(address)) } as ReadonlyMap<Address, PricedPool> };
    const route = searchRoute(spied, token(10), token(2_000), 10n ** 18n)!;
    expect(route.hops.length).to.be.within(2, 3);
    expect(route.amountOut).to.equal(findBestRoute(pools, token(10), token(2_000), 10n ** 18n)!.amountOut);
    expect(looked.size, "pools examined").to.be.below(40);
  });
});
