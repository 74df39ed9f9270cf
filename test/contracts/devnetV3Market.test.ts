import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { expect } from "chai";
import fc from "fast-check";
import { getAddress, parseUnits, type Address } from "viem";
import { getAmountOut, isManifestV2Pool, uniswapV2PairAbi, v3PoolAddress, type ManifestV3Pool } from "../../sdk";
import { intendedSqrtPriceX96, positionTicks, resolveV3Market, type ResolvedPool } from "../../scripts/deploy/deployV3Market";
import { DEV_SPLIT_PAIR, DEV_V3_POOLS } from "../../scripts/deploy/devnetV3Market";
import { DEVNET_V3_VENUES } from "../../scripts/deploy/devnetV3Venues";
import { uniswapV3Artifacts } from "../../scripts/deploy/uniswapV3";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fuzzRuns } from "../helpers/fuzzRuns";

const poolAbi = uniswapV3Artifacts.pool().abi;
const quoterAbi = uniswapV3Artifacts.quoterV2().abi;

/** price of token1 per token0 in raw units, from a sqrtPriceX96, as a float (exact enough for bps). */
const priceOf = (sqrtPriceX96: bigint) => (Number(sqrtPriceX96) / 2 ** 96) ** 2;

describe("the devnet's V3 market", function () {
  async function market() {
    const f = await loadFixture(settlementFixture);
    const resolved = resolveV3Market(f.tokens, f.v3Venues);
    const v3Pools = f.pools.filter((pool): pool is ManifestV3Pool => pool.type === "uniswap-v3");
    const read = async (address: Address, functionName: "slot0" | "liquidity") => f.publicClient.readContract({ address, abi: poolAbi, functionName });
    return { f, resolved, v3Pools, read };
  }

  it("creates every declared pool where the venue's factory and init-code hash put it, and lists it in the manifest's pools under its venue", async () => {
    const { f, resolved, v3Pools } = await market();
    expect(v3Pools).to.have.length(DEV_V3_POOLS.length);
    for (const [index, pool] of resolved.entries()) {
      const address = v3PoolAddress(pool.venue.factory, pool.venue.poolInitCodeHash, pool.a.address, pool.b.address, pool.spec.fee);
      const fromFactory = await f.publicClient.readContract({ address: pool.venue.factory, abi: uniswapV3Artifacts.factory().abi, functionName: "getPool", args: [pool.a.address, pool.b.address, pool.spec.fee] });
      expect(getAddress(fromFactory as string)).to.equal(address);
      expect(v3Pools[index]).to.deep.include({ address, type: "uniswap-v3", source: pool.spec.venue, fee: pool.spec.fee, tickSpacing: pool.tickSpacing });
    }
    // Every V2 pair is also on V3, and both V3 venues hold pools on tiers of their own.
    const pairKey = (pool: { token0: Address; token1: Address }) => `${pool.token0}|${pool.token1}`;
    const v2Pairs = new Set(f.pools.filter(isManifestV2Pool).map(pairKey));
    expect(new Set(v3Pools.map(pairKey))).to.deep.equal(v2Pairs);
    for (const venue of DEVNET_V3_VENUES) expect(v3Pools.some((pool) => pool.source === venue.name)).to.equal(true);
    expect(v3Pools.some((pool) => pool.source === "forkswap-v3" && [100, 2500].includes(pool.fee))).to.equal(true);
  });

  it("prices each pool a few bps from its V2 pair, by the declared offset", async () => {
    const { f, resolved, read } = await market();
    for (const pool of resolved) {
      const address = v3PoolAddress(pool.venue.factory, pool.venue.poolInitCodeHash, pool.a.address, pool.b.address, pool.spec.fee);
      const [sqrtPriceX96] = (await read(address, "slot0")) as readonly [bigint, number];
      const v2 = f.pools.filter(isManifestV2Pool).find((candidate) => new Set([candidate.token0, candidate.token1]).size === 2 && [candidate.token0, candidate.token1].every((token) => [pool.a.address, pool.b.address].includes(token)))!;
      const [reserve0, reserve1] = await f.publicClient.readContract({ address: v2.address, abi: uniswapV2PairAbi, functionName: "getReserves" });
      const offsetBps = (priceOf(sqrtPriceX96) / (Number(reserve1) / Number(reserve0)) - 1) * 10_000;
      // The pool's price is token1 per token0: an offset on the price of `a` reads inverted when `a` is token1.
      const aIsToken0 = pool.a.address.toLowerCase() < pool.b.address.toLowerCase();
      const expected = aIsToken0 ? pool.spec.priceOffsetBps : (1 / (1 + pool.spec.priceOffsetBps / 10_000) - 1) * 10_000;
      expect(offsetBps, `${pool.spec.venue} ${pool.spec.a}/${pool.spec.b} ${pool.spec.fee}`).to.be.closeTo(expected, 0.05);
      expect(Math.abs(offsetBps)).to.be.within(0.5, 15);
    }
  });

  it("mints the declared positions, narrow and wide in range and the others out of it, so the price's liquidity is only the in-range ones", async () => {
    const { f, resolved, read } = await market();
    let outOfRange = 0;
    for (const pool of resolved) {
      const address = v3PoolAddress(pool.venue.factory, pool.venue.poolInitCodeHash, pool.a.address, pool.b.address, pool.spec.fee);
      const [, tick] = (await read(address, "slot0")) as readonly [bigint, number];
      const liquidityNet = new Map<number, bigint>();
      for (const position of pool.spec.positions) {
        const { tickLower, tickUpper } = positionTicks(pool, position);
        expect(tickLower % pool.tickSpacing).to.equal(0);
        expect(tickUpper % pool.tickSpacing).to.equal(0);
        const inRange = tickLower <= tick && tick < tickUpper;
        // A range given entirely above or below the price must stay out of range once rounded to the spacing.
        expect(inRange, `${pool.spec.a}/${pool.spec.b} ${pool.spec.fee} ${JSON.stringify(position.range)}`).to.equal(position.range === "full" || (position.range[0] < 0 && position.range[1] > 0));
        if (!inRange) outOfRange++;
        for (const at of [tickLower, tickUpper]) {
          const [liquidityGross, net] = (await f.publicClient.readContract({ address, abi: poolAbi, functionName: "ticks", args: [at] })) as readonly [bigint, bigint];
          // Initialised at both ends: a position was minted on exactly these ticks.
          expect(liquidityGross > 0n).to.equal(true);
          liquidityNet.set(at, net);
        }
      }
      // The pool's active liquidity is the net liquidity of the position ticks at or below the price: only in-range positions count.
      const active = [...liquidityNet].filter(([at]) => at <= tick).reduce((sum, [, net]) => sum + net, 0n);
      expect(active > 0n).to.equal(true);
      expect(await read(address, "liquidity")).to.equal(active);
    }
    expect(outOfRange).to.be.greaterThan(5);
  });

  it("makes large orders cross ticks, and on the split pair a V2 + V3 split beats the best single venue", async () => {
    const { f, resolved } = await market();
    const [weth, usdc] = [DEV_SPLIT_PAIR.a, DEV_SPLIT_PAIR.b].map((symbol) => f.tokens.find((token) => token.symbol === symbol)!.address) as [Address, Address];
    const amountIn = parseUnits(String(DEV_SPLIT_PAIR.orderUsd), 6); // USDC → WETH
    const quoteV3 = async (venue: (typeof resolved)[number], amount: bigint) => {
      const { result } = await f.publicClient.simulateContract({
        address: venue.venue.quoterV2,
        abi: quoterAbi,
        functionName: "quoteExactInputSingle",
        args: [{ tokenIn: usdc, tokenOut: weth, amountIn: amount, fee: venue.spec.fee, sqrtPriceLimitX96: 0n }],
      });
      return result as readonly [bigint, bigint, number, bigint];
    };
    const v2 = f.pool("USDC", "WETH");
    const [reserve0, reserve1] = await f.publicClient.readContract({ address: v2, abi: uniswapV2PairAbi, functionName: "getReserves" });
    const usdcIsToken0 = usdc.toLowerCase() < weth.toLowerCase();
    const v2Out = (amount: bigint) => getAmountOut(amount, usdcIsToken0 ? reserve0 : reserve1, usdcIsToken0 ? reserve1 : reserve0, 30);
    const splitPools = resolved.filter((pool) => [pool.spec.a, pool.spec.b].join("/") === `${DEV_SPLIT_PAIR.a}/${DEV_SPLIT_PAIR.b}`);
    expect(splitPools.length).to.be.greaterThanOrEqual(2);

    let bestSingle = v2Out(amountIn);
    let bestV3 = splitPools[0]!;
    const crossed = new Map<number, number>();
    for (const pool of splitPools) {
      const [out, , ticksCrossed] = await quoteV3(pool, amountIn);
      crossed.set(pool.spec.fee, ticksCrossed);
      if (out > bestSingle) [bestSingle, bestV3] = [out, pool];
    }
    // The narrow pools' orders run out of their positions (0.3 %'s wide range holds this order).
    expect(crossed.get(500)).to.be.greaterThan(0);
    expect(crossed.get(2500)).to.be.greaterThan(0);
    let bestSplit = 0n;
    for (let twentieths = 1n; twentieths < 20n; twentieths++) {
      const toV3 = (amountIn * twentieths) / 20n;
      const [v3Out] = await quoteV3(bestV3, toV3);
      const total = v3Out + v2Out(amountIn - toV3);
      if (total > bestSplit) bestSplit = total;
    }
    const gainBps = Number(((bestSplit - bestSingle) * 1_000_000n) / bestSingle) / 100;
    expect(gainBps).to.be.greaterThan(10);
  });

  it("rounds any position's range to the tick spacing keeping its side of the price: around it stays around it, above or below stays out of range (property)", () => {
    const venue = { name: "v", factory: "0x0000000000000000000000000000000000000001", positionManager: "0x0000000000000000000000000000000000000002", quoterV2: "0x0000000000000000000000000000000000000003", poolInitCodeHash: "0x00", feeTiers: [] } as unknown as ResolvedPool["venue"];
    const token = fc.record({ address: fc.constantFrom("0x00000000000000000000000000000000000000aa", "0x00000000000000000000000000000000000000bb"), decimals: fc.constantFrom(6, 8, 18), usdPrice: fc.constantFrom(1, 15, 3_000, 60_000) });
    const percent = fc.double({ min: 0.05, max: 50, noNaN: true });
    fc.assert(
      fc.property(token, token, fc.constantFrom(1, 10, 50, 60, 200), fc.integer({ min: -20, max: 20 }), percent, percent, fc.constantFrom("around", "above", "below"), (a, b, tickSpacing, priceOffsetBps, x, y, side) => {
        fc.pre(a.address !== b.address);
        const [near, far] = [Math.min(x, y), Math.max(x, y)];
        fc.pre(side === "around" || far - near > 0.01);
        const range: readonly [number, number] = side === "around" ? [-x, y] : side === "above" ? [near, far] : [-far, -near];
        const pool: ResolvedPool = { spec: { venue: "v", a: "A", b: "B", fee: 1, priceOffsetBps, positions: [] }, venue, tickSpacing, a: a as ResolvedPool["a"], b: b as ResolvedPool["b"] };
        const { tickLower, tickUpper } = positionTicks(pool, { range, usdPerSide: 1 });
        const tick = Math.floor(Math.log(priceOf(intendedSqrtPriceX96(pool))) / Math.log(1.0001));
        expect(tickLower % tickSpacing === 0 && tickUpper % tickSpacing === 0 && tickLower < tickUpper).to.equal(true);
        // Which side of the pool's price (token1 per token0) "above the price of a" is depends on whether a is token0.
        const aIsToken0 = a.address < b.address;
        const poolSide = side === "around" ? "around" : (side === "above") === aIsToken0 ? "above" : "below";
        if (poolSide === "around") expect(tickLower <= tick && tick < tickUpper).to.equal(true);
        if (poolSide === "above") expect(tickLower > tick).to.equal(true);
        if (poolSide === "below") expect(tickUpper <= tick).to.equal(true);
      }),
      fuzzRuns(300),
    );
  });
});
