import { expect } from "chai";
import fc from "fast-check";
import type { Address } from "viem";
import { pricedMarketOf } from "../../api/quote/routing/poolGraph";
import { pathOutput, priceImpactLoss, splitRoute } from "../../api/quote/routing/splitRoute";
import { splitAmounts } from "../../sdk";
import { bestExecution } from "../../api/quote/routing/splitDecision";
import type { V2Pool, RouteHop } from "../../api/quote/routing/routeSearch";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";

const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const pool = (n: number, a: number, b: number, reserveA: bigint, reserveB: bigint): V2Pool => {
  const aFirst = token(a) < token(b);
  return {
    address: token(1000 + n),
    token0: token(aFirst ? a : b),
    token1: token(aFirst ? b : a),
    reserve0: aFirst ? reserveA : reserveB,
    reserve1: aFirst ? reserveB : reserveA,
    feeBps: 30,
    source: "uniswap-v2",
    oracleStarted: true,
  };
};
const [SELL, BUY] = [token(1), token(2)];

/** The best total output over a grid of allotments to the legs' paths (step = amount / steps). */
function gridOptimum(paths: readonly (readonly RouteHop[])[], amountIn: bigint, steps: bigint): bigint {
  let best = 0n;
  const step = amountIn / steps;
  if (paths.length === 2) {
    for (let i = 0n; i <= steps; i++) {
      const x = i === steps ? amountIn : i * step;
      const out = pathOutput(paths[0]!, x) + pathOutput(paths[1]!, amountIn - x);
      if (out > best) best = out;
    }
    return best;
  }
  for (let i = 0n; i <= steps; i++) {
    for (let j = 0n; i + j <= steps; j++) {
      const [x, y] = [i * step, j * step];
      const out = pathOutput(paths[0]!, x) + pathOutput(paths[1]!, y) + pathOutput(paths[2]!, amountIn - x - y);
      if (out > best) best = out;
    }
  }
  return best;
}

describe("split routes", () => {
  it("over random markets of parallel paths: never below the best single path, and within 0.1 % of the optimum", () => {
    const reserve = fc.bigInt({ min: 10n ** 20n, max: 10n ** 24n });
    fc.assert(
      fc.property(
        fc.tuple(reserve, reserve, reserve, reserve, reserve, reserve, reserve, reserve),
        fc.integer({ min: 1, max: 400 }),
        fc.boolean(),
        ([a, b, c, d, e, g, h, k], permille, threeLegs) => {
          // A direct pool, a route through hub 3, and (sometimes) one through hub 4.
          const pools = [pool(1, 1, 2, a, b), pool(2, 1, 3, c, d), pool(3, 3, 2, e, g)];
          if (threeLegs) pools.push(pool(4, 1, 4, h, k), pool(5, 4, 2, k, h));
          const amountIn = (a * BigInt(permille)) / 1000n;
          const split = splitRoute(pricedMarketOf(pools), SELL, BUY, amountIn)!;
          expect(split.amountOut >= split.singleAmountOut).to.equal(true);
          expect(split.legs.reduce((sum, leg) => sum + leg.amountIn, 0n)).to.equal(amountIn);
          for (const leg of split.legs) expect(leg.amountOut).to.equal(pathOutput(leg.hops, leg.amountIn));
          // The legs are what the router's SPLIT gives them: whole-bps shares adding up to 10,000.
          expect(split.legs.reduce((sum, leg) => sum + leg.shareBps, 0)).to.equal(10_000);
          expect(split.legs.map((leg) => leg.amountIn)).to.deep.equal(splitAmounts(amountIn, split.legs.map((leg) => leg.shareBps)));
          const paths = [[pools[0]!], [pools[1]!, pools[2]!], ...(threeLegs ? [[pools[3]!, pools[4]!]] : [])].map((route) => {
            let tokenIn = SELL;
            return route.map((p) => {
              const hop = { pool: p, tokenIn, tokenOut: p.token0 === tokenIn ? p.token1 : p.token0, amountIn: 0n, amountOut: 0n };
              tokenIn = hop.tokenOut;
              return hop;
            });
          });
          const optimum = gridOptimum(paths, amountIn, threeLegs ? 120n : 2000n);
          expect(split.amountOut * 1000n >= optimum * 999n, `split ${split.amountOut} vs optimum ${optimum}`).to.equal(true);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("a large order on a market with parallel paths gains over the best single path; a small one stays single", () => {
    const deep = 10n ** 24n;
    const pools = [pool(1, 1, 2, deep, deep), pool(2, 1, 3, deep, deep), pool(3, 3, 2, deep, deep), pool(4, 1, 4, deep, deep), pool(5, 4, 2, deep, deep)];
    const market = pricedMarketOf(pools);
    const large = splitRoute(market, SELL, BUY, deep / 10n)!;
    expect(large.legs).to.have.length(3);
    const gainBps = ((large.amountOut - large.singleAmountOut) * 10_000n) / large.singleAmountOut;
    expect(gainBps >= 20n, `gain ${gainBps} bps`).to.equal(true);
    const small = splitRoute(market, SELL, BUY, 10n ** 15n)!;
    expect(small.legs).to.have.length(1);
    expect(small.amountOut).to.equal(small.singleAmountOut);
  });

  it("gains at most what the best single path loses to price impact, when that path is also the best priced (the quote's screen)", () => {
    const depth = fc.bigInt({ min: 10n ** 20n, max: 10n ** 24n });
    fc.assert(
      fc.property(depth, depth, depth, fc.integer({ min: 1, max: 300 }), (a, b, c, permille) => {
        // Every pool at the same 1:1 price: the direct pool has the best marginal price (one fee).
        const pools = [pool(1, 1, 2, a, a), pool(2, 1, 3, b, b), pool(3, 3, 2, b, b), pool(4, 1, 4, c, c), pool(5, 4, 2, c, c)];
        const market = pricedMarketOf(pools);
        const amountIn = (a * BigInt(permille)) / 1000n;
        const single = searchRoute(market, SELL, BUY, amountIn)!;
        const split = splitRoute(market, SELL, BUY, amountIn, { single })!;
        // Bounded only when the single path is the best-priced one; a deeper two-hop path can win instead.
        fc.pre(single.hops.length === 1);
        expect(split.amountOut - split.singleAmountOut <= priceImpactLoss(single)).to.equal(true);
      }),
      { numRuns: 100 },
    );
  });

  it("the quote's decision: a large order splits when its gas can be priced through WETH, and stays single when the buy token has no route from WETH", () => {
    const deep = 10n ** 24n;
    const parallel = [pool(1, 1, 2, deep, deep), pool(2, 1, 3, deep, deep), pool(3, 3, 2, deep, deep)];
    const WETH = token(9);
    const gasPrice = 10n ** 9n;
    const amount = deep / 10n;
    const single = (market: ReturnType<typeof pricedMarketOf>) => searchRoute(market, SELL, BUY, amount)!;
    const unpriced = pricedMarketOf(parallel);
    expect(bestExecution(unpriced, SELL, BUY, amount, single(unpriced), gasPrice, WETH).legs).to.have.length(1);
    const priced = pricedMarketOf([...parallel, pool(4, 9, 2, deep, deep)]);
    const execution = bestExecution(priced, SELL, BUY, amount, single(priced), gasPrice, WETH);
    expect(execution.legs).to.have.length(2);
    expect(execution.amountOut > single(priced).amountOut).to.equal(true);
    // A small order is screened out before any further search: its price impact is below the split's gas.
    expect(bestExecution(priced, SELL, BUY, 10n ** 12n, searchRoute(priced, SELL, BUY, 10n ** 12n)!, gasPrice, WETH).legs).to.have.length(1);
  });

  it("stays on one path when the extra legs' gas costs more than they gain", () => {
    const deep = 10n ** 24n;
    const pools = [pool(1, 1, 2, deep, deep), pool(2, 1, 3, deep, deep), pool(3, 3, 2, deep, deep)];
    const free = splitRoute(pricedMarketOf(pools), SELL, BUY, deep / 100n)!;
    expect(free.legs).to.have.length(2);
    const gain = free.amountOut - free.singleAmountOut;
    const costly = splitRoute(pricedMarketOf(pools), SELL, BUY, deep / 100n, { legCost: () => gain + 1n })!;
    expect(costly.legs).to.have.length(1);
    expect(costly.amountOut).to.equal(free.singleAmountOut);
  });
});
