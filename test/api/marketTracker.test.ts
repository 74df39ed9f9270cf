import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseUnits, type Address, type PublicClient } from "viem";
import { alignedTick, createV3Pool, mintV3Position, sqrtPriceX96Of } from "../../scripts/deploy/uniswapV3";
import { quoteConcentratedExactInput, type ManifestPool, type ManifestV3Pool } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { MarketTracker, type MarketPools } from "../../api/quote/market/marketTracker";
import { PoolStateTracker, type PoolSnapshot } from "../../api/quote/market/poolState";
import { v3Adapter, type V3RoutedPool } from "../../api/quote/venues/uniswapV3/v3Adapter";
import { V3PoolTracker } from "../../api/quote/venues/uniswapV3/v3PoolTracker";
import type { RouterVenueSet } from "../../api/quote/venues/activeRouterVenues";
import { amountThroughPool } from "../../api/quote/venues/venueAdapters";
import { movePrice, slot0, v3PoolsFixture, type V3PoolsFixture } from "../fixtures/v3Pools";

const VENUE = "uniswap-v3";
const lower = (address: Address) => address.toLowerCase() as Address;
/** The routers' venues as these tests fix them: the fixture's factory at index 0, no propAMM (activeRouterVenues.test.ts reads real routers). */
const ROUTER_VENUES: RouterVenueSet = { routers: [], v3Index: new Map([[VENUE, 0]]), propAmms: [], pairs: new Set() };

/** A market tracker as the API builds one (chainMarket.ts), over the fixture's V3 pools (and `more`) and its factory's new ones. */
function marketOf(f: V3PoolsFixture, more: readonly ManifestV3Pool[] = []) {
  const tracker = new MarketTracker(
    new PoolStateTracker({ factory: undefined, isSupported: () => true, observeReads: () => undefined }),
    new V3PoolTracker({ factories: [{ address: f.v3.factory, source: VENUE }] }),
    { at: () => Promise.resolve(ROUTER_VENUES) },
  );
  const listed: ManifestV3Pool[] = f.pools.map((pool) => ({ address: pool.address, token0: pool.token0, token1: pool.token1, type: "uniswap-v3", source: VENUE, fee: pool.fee, tickSpacing: pool.tickSpacing }));
  listed.push(...more);
  // The same list objects every time, as a chain's supported set hands them out until it changes.
  const noV2Pools: ManifestPool[] = [];
  const lists: MarketPools = { pools: () => noV2Pools, venuePools: () => listed };
  const client = f.publicClient as PublicClient;
  const heads = new ChainHead(client);
  return { tracker, snapshot: async () => tracker.at(client, await heads.fresh(), lists) };
}


/** The graph's token pairs and their pools, and its hubs: what routing reads of it. */
function shapeOf(market: PoolSnapshot) {
  const tokens = [...new Set([...market.pools.values()].flatMap((pool) => [pool.token0, pool.token1]))].sort();
  const between = tokens.flatMap((a) => tokens.map((b) => [a, b, [...market.graph.between(a, b)].sort()] as const)).filter(([, , pools]) => pools.length > 0);
  return { hubs: [...market.graph.hubs].sort(), between, size: market.graph.size };
}

/** Every pool of `ours` prices like the same pool of `fresh` (read directly at the same block), both ways, at amounts that cross ticks. */
function expectSamePrices(ours: PoolSnapshot, fresh: PoolSnapshot): void {
  expect([...ours.pools.keys()].sort()).to.deep.equal([...fresh.pools.keys()].sort());
  for (const [address, pool] of ours.pools) {
    const other = fresh.pools.get(address)!;
    for (const tokenIn of [pool.token0, pool.token1]) {
      for (const amount of [10n ** 12n, 10n ** 18n, 10n ** 21n]) {
        const [mine, theirs] = [amountThroughPool(pool, tokenIn, amount), amountThroughPool(other, tokenIn, amount)];
        // A followed pool knows the ticks around where it was read; a fresh read around the price now. Where both can fill, they agree.
        if (mine > 0n && theirs > 0n) expect(mine, `${address} selling ${amount} of ${tokenIn}`).to.equal(theirs);
      }
    }
  }
}

describe("Market tracker (the union of every venue's pools)", function () {
  this.timeout(300_000);

  it("a block that only moves V3 prices keeps the market's graph and the routed objects of the pools it did not touch, and prices as a fresh read of that block", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const { snapshot } = marketOf(f);
    const first = await snapshot();
    expect(first.pools.size).to.equal(f.pools.length);
    const [moved, still] = [f.pools[0]!, f.pools[2]!];
    await movePrice(f, moved, true, 9);
    const second = await snapshot();
    expect(second.block.number > first.block.number).to.equal(true);
    expect(second.graph, "the graph is the first block's").to.equal(first.graph);
    expect(second.pools.get(lower(still.address)), "an untouched pool keeps its object").to.equal(first.pools.get(lower(still.address)));
    const after = second.pools.get(lower(moved.address)) as V3RoutedPool;
    expect(after).to.not.equal(first.pools.get(lower(moved.address)));
    expect(after.state.pool.sqrtPriceX96).to.equal((await slot0(f, moved)).sqrtPriceX96);
    // A block with no event at all keeps every object too.
    await f.publicClient.request({ method: "evm_mine" } as never);
    const third = await snapshot();
    expect(third.graph).to.equal(first.graph);
    for (const [address, pool] of second.pools) expect(third.pools.get(address), address).to.equal(pool);

    const fresh = await marketOf(f).snapshot();
    expect(fresh.block.hash).to.equal(third.block.hash);
    expect(shapeOf(third)).to.deep.equal(shapeOf(fresh));
    expectSamePrices(third, fresh);
  });

  it("a pool the followed factory creates joins the graph at the block that brings it, and later price moves keep the new graph", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const { snapshot } = marketOf(f);
    const first = await snapshot();
    const [a, b] = [f.pools[0]!.token0, f.pools[0]!.token1];
    const price = sqrtPriceX96Of(3n, 2n);
    const created = lower(await createV3Pool(f.clients, f.deployer, f.v3, a, b, 500, price));
    const center = alignedTick(price, 10);
    await mintV3Position(f.clients, f.deployer, f.v3, { tokenA: a, tokenB: b, fee: 500, tickLower: center - 100, tickUpper: center + 200, amountA: parseUnits("100", 18), amountB: parseUnits("100", 18) });
    const second = await snapshot();
    expect(second.graph, "a new pool is a new shape").to.not.equal(first.graph);
    expect(second.graph.between(lower(a), lower(b))).to.include(created);
    expect(second.pools.get(created)!.source).to.equal(VENUE);
    await movePrice(f, f.pools[1]!, false, 40);
    const third = await snapshot();
    expect(third.graph).to.equal(second.graph);
    // A fresh tracker starts after the PoolCreated event: it knows the pool from its list.
    const [token0, token1] = lower(a) < lower(b) ? [a, b] : [b, a];
    const fresh = await marketOf(f, [{ address: created, token0, token1, type: "uniswap-v3", source: VENUE, fee: 500, tickSpacing: 10 }]).snapshot();
    expect(shapeOf(third)).to.deep.equal(shapeOf(fresh));
    expectSamePrices(third, fresh);
  });

  it("a V3 pool answers every sequence of exact-input questions (output, then gas) as a fresh simulation does, whatever was asked before", async () => {
    const f = await loadFixture(v3PoolsFixture);
    const market = await marketOf(f).snapshot();
    const pools = [...market.pools.values()] as V3RoutedPool[];
    const question = fc.record({ pool: fc.nat({ max: pools.length - 1 }), zeroForOne: fc.boolean(), amount: fc.bigInt({ min: 1n, max: 10n ** 24n }), repeat: fc.nat({ max: 2 }) });
    fc.assert(
      fc.property(fc.array(question, { minLength: 1, maxLength: 30 }), (questions) => {
        for (const { pool: index, zeroForOne, amount, repeat } of questions) {
          const pool = pools[index]!;
          const tokenIn = zeroForOne ? pool.token0 : pool.token1;
          const simulated = quoteConcentratedExactInput(pool.state.pool, zeroForOne, amount);
          const fills = simulated !== undefined && simulated.filled && simulated.amountOut > 0n;
          for (let time = 0; time <= repeat; time++) {
            expect(v3Adapter.amountOut(pool, tokenIn, amount)).to.equal(fills ? simulated.amountOut : 0n);
            if (fills) expect(v3Adapter.hopGas(pool, tokenIn, amount)).to.equal(v3Adapter.hopGas({ ...pool, state: { ...pool.state, pool: { ...pool.state.pool } } }, tokenIn, amount));
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
