import { expect } from "chai";
import fc from "fast-check";
import type { Address } from "viem";
import { getAmountOut } from "../../sdk";
import { findBestRoute, type V2Pool } from "../../api/quote/routing/routeSearch";
import { pricedMarketOf } from "../../api/quote/routing/poolGraph";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";
import { priceImpactLoss, splitRoute } from "../../api/quote/routing/splitRoute";

const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const pool = (n: number, a: number, b: number, reserveA: bigint, reserveB: bigint): V2Pool => {
  const [ta, tb] = [token(a), token(b)];
  const aFirst = ta < tb;
  return {
    address: token(1000 + n),
    token0: aFirst ? ta : tb,
    token1: aFirst ? tb : ta,
    reserve0: aFirst ? reserveA : reserveB,
    reserve1: aFirst ? reserveB : reserveA,
    feeBps: 30,
    source: "uniswap-v2",
    oracleStarted: true,
  };
};

describe("route search", () => {
  it("prefers a two-hop path when it pays more than the thin direct pool", () => {
    const pools = [pool(1, 1, 2, 10n ** 18n, 10n ** 18n), pool(2, 1, 3, 10n ** 24n, 10n ** 24n), pool(3, 3, 2, 10n ** 24n, 10n ** 24n)];
    const route = findBestRoute(pools, token(1), token(2), 10n ** 17n)!;
    expect(route.hops.map((hop) => hop.pool.address)).to.deep.equal([token(1002), token(1003)]);
    expect(route.hops[1]!.amountIn).to.equal(route.hops[0]!.amountOut);
  });

  it("finds three-hop paths and no longer ones", () => {
    const chain = [pool(1, 1, 2, 10n ** 20n, 10n ** 20n), pool(2, 2, 3, 10n ** 20n, 10n ** 20n), pool(3, 3, 4, 10n ** 20n, 10n ** 20n), pool(4, 4, 5, 10n ** 20n, 10n ** 20n)];
    expect(findBestRoute(chain, token(1), token(4), 10n ** 15n)?.hops).to.have.length(3);
    expect(findBestRoute(chain, token(1), token(5), 10n ** 15n)).to.equal(undefined);
  });

  it("never routes through a pool with an empty side (a pair anyone can sync to one token): the pruned search and a split skip it too", () => {
    // Pool 1 has no token-1 reserve: V2's formula would pay all of its token-2 reserve for any input.
    const pools = [pool(1, 1, 2, 0n, 10n ** 24n), pool(2, 1, 3, 10n ** 22n, 10n ** 22n), pool(3, 3, 2, 10n ** 22n, 10n ** 22n), pool(4, 1, 2, 10n ** 22n, 0n)];
    const route = findBestRoute(pools, token(1), token(2), 10n ** 18n)!;
    expect(route.hops.map((hop) => hop.pool.address)).to.deep.equal([token(1002), token(1003)]);
    const market = pricedMarketOf(pools);
    expect(searchRoute(market, token(1), token(2), 10n ** 18n)!.hops.map((hop) => hop.pool.address)).to.deep.equal([token(1002), token(1003)]);
    const split = splitRoute(market, token(1), token(2), 10n ** 21n)!;
    expect(split.legs).to.have.length(1);
    expect(priceImpactLoss(split.legs[0]!) > 0n).to.equal(true);
  });

  it("returns nothing for unconnected tokens, a zero amount, or the same token", () => {
    const pools = [pool(1, 1, 2, 10n ** 20n, 10n ** 20n)];
    expect(findBestRoute(pools, token(1), token(9), 10n)).to.equal(undefined);
    expect(findBestRoute(pools, token(1), token(2), 0n)).to.equal(undefined);
    expect(findBestRoute(pools, token(1), token(1), 10n)).to.equal(undefined);
  });

  it("over random markets: the best route pays at least every direct pool, and each hop's amounts chain exactly", () => {
    const reserve = fc.bigInt({ min: 10n ** 3n, max: 10n ** 27n });
    const market = fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), reserve, reserve), { minLength: 1, maxLength: 10 });
    fc.assert(
      fc.property(market, fc.bigInt({ min: 1n, max: 10n ** 24n }), (edges, amountIn) => {
        const pools = edges.filter(([a, b]) => a !== b).map(([a, b, ra, rb], index) => pool(index, a, b, ra, rb));
        const route = findBestRoute(pools, token(1), token(2), amountIn);
        for (const direct of pools.filter((p) => [p.token0, p.token1].includes(token(1)) && [p.token0, p.token1].includes(token(2)))) {
          const zeroForOne = direct.token0 === token(1);
          const out = getAmountOut(amountIn, zeroForOne ? direct.reserve0 : direct.reserve1, zeroForOne ? direct.reserve1 : direct.reserve0, 30);
          if (out > 0n) expect(route, "a direct pool with output means a route exists").to.not.equal(undefined);
          if (route) expect(route.amountOut >= out).to.equal(true);
        }
        if (route) {
          expect(route.hops[0]!.tokenIn).to.equal(token(1));
          expect(route.hops[route.hops.length - 1]!.tokenOut).to.equal(token(2));
          expect(route.hops.length).to.be.at.most(3);
          route.hops.forEach((hop, index) => {
            if (index > 0) expect(hop.amountIn).to.equal(route.hops[index - 1]!.amountOut);
          });
          expect(route.amountOut).to.equal(route.hops[route.hops.length - 1]!.amountOut);
        }
      }),
      { numRuns: 300 },
    );
  });
});
