import { expect } from "chai";
import fc from "fast-check";
import type { Address } from "viem";
import { decodeRouteActions, encodeRouteActions, getAmountIn, getAmountOut } from "../../sdk";
import { pathAmountIn, searchRouteForOutput } from "../../api/quote/routing/exactOutputRoute";
import { estimateGas } from "../../api/quote/gas/gasEstimate";
import { marketWithoutSources } from "../../api/quote/market/marketView";
import { pricedMarketOf } from "../../api/quote/routing/poolGraph";
import { hopsGas, searchRoute, type RouteSearchStats } from "../../api/quote/routing/prunedRouteSearch";
import { actionsOfLegs } from "../../api/quote/routing/routePlan";
import type { PricedPool, RouteHop, V2Pool, VenuePool } from "../../api/quote/routing/routeSearch";
import { pathOutput, splitRoute } from "../../api/quote/routing/splitRoute";
import type { VenueAdapter } from "../../api/quote/venues/venueAdapter";
import { adapterOf, legName, registerVenueAdapter } from "../../api/quote/venues/venueAdapters";

/**
 * Routing over several venues before the V3 and propAMM adapters exist: Uniswap V2, a V2 fork with
 * a fee of its own (a fork is a venue name, a factory and a fee: the V2 adapter prices it), and a
 * second adapter TYPE registered here whose pools keep their state opaque, as V3 pools will. That
 * type prices with the real on-chain constant-product arithmetic (sdk getAmountOut / getAmountIn,
 * the math its router hop executes), but it declares its curve local (`exactCurve: false`), has its
 * own gas model and can be exact-input only, so every generic path the V3 and propAMM adapters take
 * is exercised: dispatch by kind, net-of-gas ranking, the iterated split allotment, leg names and
 * exact-output exclusion.
 */

type ConstantProductState = { reserve0: bigint; reserve1: bigint; feeBps: number };

const OPAQUE_HOP_GAS = 120_000;

function opaqueState(pool: PricedPool): ConstantProductState {
  return (pool as VenuePool).state as ConstantProductState;
}

function reservesOf(pool: PricedPool, tokenIn: Address): [bigint, bigint] | undefined {
  const state = opaqueState(pool);
  if (pool.token0 === tokenIn) return [state.reserve0, state.reserve1];
  if (pool.token1 === tokenIn) return [state.reserve1, state.reserve0];
  return undefined;
}

/** A venue type whose pools carry constant-product reserves as opaque state (see the file's comment). */
function constantProductAdapter(kind: string, exactOutput: boolean): VenueAdapter {
  return {
    kind,
    exactOutput,
    exactCurve: false,
    amountOut(pool, tokenIn, amountIn) {
      const reserves = reservesOf(pool, tokenIn);
      return reserves === undefined ? 0n : getAmountOut(amountIn, reserves[0], reserves[1], opaqueState(pool).feeBps);
    },
    amountIn(pool, tokenIn, amountOut) {
      const reserves = reservesOf(pool, tokenIn);
      return reserves === undefined ? undefined : getAmountIn(amountOut, reserves[0], reserves[1], opaqueState(pool).feeBps);
    },
    spotPrice(pool, tokenIn) {
      const reserves = reservesOf(pool, tokenIn);
      return reserves === undefined ? undefined : [reserves[1] * BigInt(10_000 - opaqueState(pool).feeBps), reserves[0] * 10_000n];
    },
    curve(pool, tokenIn, amountIn) {
      const reserves = reservesOf(pool, tokenIn);
      if (reserves === undefined) return undefined;
      const gamma = (10_000 - opaqueState(pool).feeBps) / 10_000;
      const sold = getAmountOut(amountIn, reserves[0], reserves[1], opaqueState(pool).feeBps);
      const [reserveIn, reserveOut] = [Number(reserves[0] + amountIn), Number(reserves[1] - sold)];
      return { p: (gamma * reserveOut) / reserveIn, q: gamma / reserveIn };
    },
    hopGas: () => OPAQUE_HOP_GAS,
    action: (pool, tokenOut) => ({ type: "swapV2", pair: pool.address, tokenOut, feeBps: opaqueState(pool).feeBps }),
    feePips: (pool) => opaqueState(pool).feeBps * 100,
  };
}

registerVenueAdapter(constantProductAdapter("test-cp", true));
registerVenueAdapter(constantProductAdapter("test-cp-exact-in", false));
/** A venue whose consecutive hops run together, as V4's do in one unlock: the second saves RUN_SAVING gas. */
const RUN_SAVING = 100_000;
registerVenueAdapter({ ...constantProductAdapter("test-cp-run", true), runHopSaving: RUN_SAVING });
/** A venue whose hops may only lead an exact-output path, as V4's (the routers run them backwards first, in one unlock). */
registerVenueAdapter({ ...constantProductAdapter("test-cp-first", true), exactOutputFirst: true });

const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const [SELL, BUY, HUB] = [token(1), token(2), token(3)];

function ordered(a: number, b: number, reserveA: bigint, reserveB: bigint) {
  const aFirst = token(a) < token(b);
  return { token0: token(aFirst ? a : b), token1: token(aFirst ? b : a), reserve0: aFirst ? reserveA : reserveB, reserve1: aFirst ? reserveB : reserveA };
}

const v2 = (n: number, a: number, b: number, reserveA: bigint, reserveB: bigint, source = "uniswap-v2", feeBps = 30): V2Pool => ({
  address: token(1000 + n),
  ...ordered(a, b, reserveA, reserveB),
  feeBps,
  source,
  oracleStarted: true,
});

const opaque = (n: number, a: number, b: number, reserveA: bigint, reserveB: bigint, kind = "test-cp", feeBps = 5): VenuePool => {
  const { token0, token1, reserve0, reserve1 } = ordered(a, b, reserveA, reserveB);
  return { kind, address: token(2000 + n), token0, token1, source: `${kind}-venue`, state: { reserve0, reserve1, feeBps } satisfies ConstantProductState };
};

/** The same pool as a V2 pair: what the opaque adapter's results must equal. */
const asV2 = (pool: VenuePool): V2Pool => ({ address: pool.address, token0: pool.token0, token1: pool.token1, ...opaqueState(pool), source: "uniswap-v2", oracleStarted: true });

const E18 = 10n ** 18n;

describe("venue adapters: route search and splits over several venues", () => {
  it("names each hop `<venue>:chain-<id>:<pool>:<fee>` with the fee in hundredths of a bip, for V2, a V2 fork and another venue type", () => {
    expect(legName(v2(1, 1, 2, E18, E18), 4663)).to.equal(`uniswap-v2:chain-4663:${token(1001)}:3000`);
    expect(legName(v2(2, 1, 2, E18, E18, "forkswap-v2", 25), 4663)).to.equal(`forkswap-v2:chain-4663:${token(1002)}:2500`);
    expect(legName(opaque(3, 1, 2, E18, E18), 1)).to.equal(`test-cp-venue:chain-1:${token(2003)}:500`);
  });

  it("refuses a pool of a kind no adapter is registered for, naming the kind and the pool", () => {
    const stray: VenuePool = { kind: "v9", address: token(9), token0: SELL, token1: BUY, source: "nowhere", state: undefined };
    expect(() => adapterOf(stray)).to.throw(/kind v9.*pool 0x0+9/);
  });

  it("chooses per hop among every venue's pools of the pair: the fork's lower fee wins at equal reserves, and excluding its venue falls back", () => {
    const market = pricedMarketOf([v2(1, 1, 2, 1000n * E18, 1000n * E18), v2(2, 1, 2, 1000n * E18, 1000n * E18, "forkswap-v2", 10)]);
    const stats: RouteSearchStats = { candidatePaths: 0, successfulRoutes: 0, bySource: {} };
    const route = searchRoute(market, SELL, BUY, E18, 3, stats)!;
    expect(route.hops.map((hop) => hop.pool.source)).to.deep.equal(["forkswap-v2"]);
    expect(route.amountOut).to.equal(getAmountOut(E18, 1000n * E18, 1000n * E18, 10));
    expect(stats.bySource).to.deep.equal({ "uniswap-v2": 1, "forkswap-v2": 1 });
    const without = searchRoute(marketWithoutSources(market, new Set(["forkswap-v2"])), SELL, BUY, E18)!;
    expect(without.hops.map((hop) => hop.pool.source)).to.deep.equal(["uniswap-v2"]);
    expect(searchRoute(marketWithoutSources(market, new Set(["forkswap-v2", "uniswap-v2"])), SELL, BUY, E18)).to.equal(undefined);
  });

  it("prices an opaque-state venue through its adapter exactly as the same pools as V2 pairs, on random two-hop markets", () => {
    const reserve = fc.bigInt({ min: 10n ** 19n, max: 10n ** 24n });
    fc.assert(
      fc.property(fc.tuple(reserve, reserve, reserve, reserve), fc.bigInt({ min: 1n, max: 10n ** 21n }), ([a, b, c, d], amountIn) => {
        const pools = [opaque(1, 1, 3, a, b), opaque(2, 3, 2, c, d)];
        const viaAdapter = searchRoute(pricedMarketOf(pools), SELL, BUY, amountIn);
        const viaV2 = searchRoute(pricedMarketOf(pools.map(asV2)), SELL, BUY, amountIn);
        expect(viaAdapter?.amountOut).to.equal(viaV2?.amountOut);
      }),
      { numRuns: 100 },
    );
  });

  it("ranks candidates net of gas in the buy token: a direct hop that pays a little more gross loses to a cheaper one when its gas costs more than the difference", () => {
    // The opaque venue pays 0.05 % more (5 bps fee against 10) but costs 120,000 gas against 44,000.
    const market = pricedMarketOf([v2(1, 1, 2, 1000n * E18, 1000n * E18, "forkswap-v2", 10), opaque(2, 1, 2, 1000n * E18, 1000n * E18)]);
    const gross = searchRoute(market, SELL, BUY, E18)!;
    expect(gross.hops[0]!.pool.source).to.equal("test-cp-venue");
    const gap = gross.amountOut - getAmountOut(E18, 1000n * E18, 1000n * E18, 10);
    // Gas worth a little more than the gross gap over the 76,000 gas between them: the cheaper venue wins.
    const perGas = gap / 76_000n + 1n;
    const net = searchRoute(market, SELL, BUY, E18, 3, undefined, (gas) => BigInt(gas) * perGas)!;
    expect(net.hops[0]!.pool.source).to.equal("forkswap-v2");
    // And a little less: the better gross output still wins.
    const cheap = searchRoute(market, SELL, BUY, E18, 3, undefined, (gas) => (BigInt(gas) * (gap / 76_000n)) / 2n)!;
    expect(cheap.hops[0]!.pool.source).to.equal("test-cp-venue");
  });

  it("prices a run of one venue's hops as shared only for a route's only path: as a SPLIT leg the same run pays every hop and loses to a direct hop", () => {
    const direct = v2(1, 1, 2, 1000n * E18, 1000n * E18);
    const market = pricedMarketOf([direct, opaque(2, 1, 3, 1000n * E18, 1000n * E18, "test-cp-run", 1), opaque(3, 3, 2, 1000n * E18, 1000n * E18, "test-cp-run", 1)]);
    const gross = searchRoute(market, SELL, BUY, E18)!;
    expect(gross.hops.map((hop) => hop.pool.source)).to.deep.equal(["test-cp-run-venue", "test-cp-run-venue"]);
    expect(hopsGas(gross.hops, true)).to.equal(2 * OPAQUE_HOP_GAS - RUN_SAVING);
    expect(hopsGas(gross.hops, false)).to.equal(2 * OPAQUE_HOP_GAS);
    // Gas priced so the run's gain covers its shared cost over the direct hop's, not its full one.
    const gain = gross.amountOut - getAmountOut(E18, 1000n * E18, 1000n * E18, 30);
    const extraShared = BigInt(2 * OPAQUE_HOP_GAS - RUN_SAVING - hopsGas([{ ...gross.hops[0]!, pool: direct }], true));
    const extraFull = extraShared + BigInt(RUN_SAVING);
    const gasCost = (gas: number) => (BigInt(gas) * 2n * gain) / (extraShared + extraFull);
    expect(searchRoute(market, SELL, BUY, E18, 3, undefined, gasCost, true)!.hops).to.have.length(2);
    expect(searchRoute(market, SELL, BUY, E18, 3, undefined, gasCost, false)!.hops.map((hop) => hop.pool.address)).to.deep.equal([direct.address]);
  });

  it("an exact-output search never puts a leading-only venue's hop (V4's rule) after another venue's, and needs no more input than the best path the rule allows, up to three hops (brute force over random markets)", () => {
    const HUB2 = token(4);
    const edges: [number, number][] = [[1, 2], [1, 3], [1, 4], [3, 4], [3, 2], [4, 2]];
    const reserve = fc.bigInt({ min: 10n ** 19n, max: 10n ** 23n });
    // Two pool slots per edge, each empty, a V2 pair or a pool of the leading-only venue.
    const slot = fc.option(fc.tuple(reserve, reserve, fc.boolean()), { nil: undefined, freq: 3 });
    fc.assert(
      fc.property(fc.array(slot, { minLength: edges.length * 2, maxLength: edges.length * 2 }), (slots) => {
        const pools: PricedPool[] = [];
        slots.forEach((drawn, index) => {
          if (drawn === undefined) return;
          const [a, b] = edges[Math.floor(index / 2)]!;
          const [reserveA, reserveB, leading] = drawn;
          pools.push(leading ? opaque(index, a, b, reserveA, reserveB, "test-cp-first") : v2(index, a, b, reserveA, reserveB));
        });
        const amountOut = 10n ** 18n;
        const found = searchRouteForOutput(pricedMarketOf(pools), SELL, BUY, amountOut, 3);
        const isLeading = (pool: PricedPool) => pool.source === "test-cp-first-venue";
        const between = (x: Address, y: Address) => pools.filter((pool) => (pool.token0 === x && pool.token1 === y) || (pool.token0 === y && pool.token1 === x));
        // Every path of pools along every token path of up to three hops, kept if the routers would run it backwards.
        let best: bigint | undefined;
        for (const tokens of [[SELL, BUY], [SELL, HUB, BUY], [SELL, HUB2, BUY], [SELL, HUB, HUB2, BUY], [SELL, HUB2, HUB, BUY]]) {
          const paths = tokens.slice(1).reduce<PricedPool[][]>((partial, next, step) => partial.flatMap((path) => between(tokens[step]!, next).map((pool) => [...path, pool])), [[]]);
          for (const path of paths) {
            if (path.some((pool, index) => index > 0 && isLeading(pool) && !isLeading(path[index - 1]!))) continue;
            const amountIn = pathAmountIn(path, tokens, amountOut);
            if (amountIn !== undefined && (best === undefined || amountIn < best)) best = amountIn;
          }
        }
        expect(found?.amountIn).to.equal(best);
        if (found !== undefined) expect(found.pools.some((pool, index) => index > 0 && isLeading(pool) && !isLeading(found.pools[index - 1]!))).to.equal(false);
      }),
      { numRuns: 300 },
    );
  });

  it("ranks a two-hop path below a direct one when its extra hop's gas costs more than it gains", () => {
    const direct = v2(1, 1, 2, 1000n * E18, 1000n * E18);
    const market = pricedMarketOf([direct, v2(2, 1, 3, 1000n * E18, 1000n * E18, "forkswap-v2", 1), v2(3, 3, 2, 1000n * E18, 1000n * E18, "forkswap-v2", 1)]);
    const gross = searchRoute(market, SELL, BUY, E18)!;
    expect(gross.hops.length).to.equal(2);
    const gain = gross.amountOut - getAmountOut(E18, 1000n * E18, 1000n * E18, 30);
    const net = searchRoute(market, SELL, BUY, E18, 3, undefined, (gas) => (BigInt(gas) * gain) / 40_000n)!;
    expect(net.hops.map((hop) => hop.pool.address)).to.deep.equal([direct.address]);
  });

  it("splits one order across venues of the same pair, within 0.1 % of a grid optimum and never below the best single venue", () => {
    const reserve = fc.bigInt({ min: 10n ** 20n, max: 10n ** 24n });
    fc.assert(
      fc.property(fc.tuple(reserve, reserve, reserve, reserve, reserve, reserve), fc.integer({ min: 1, max: 400 }), ([a, b, c, d, e, g], permille) => {
        // V2, its fork and the opaque venue, all on the same pair.
        const pools: PricedPool[] = [v2(1, 1, 2, a, b), v2(2, 1, 2, c, d, "forkswap-v2", 25), opaque(3, 1, 2, e, g)];
        const depth = a < c ? (a < e ? a : e) : c < e ? c : e;
        const amountIn = (depth * BigInt(permille)) / 1000n + 1n;
        const split = splitRoute(pricedMarketOf(pools), SELL, BUY, amountIn)!;
        expect(split.amountOut >= split.singleAmountOut).to.equal(true);
        expect(split.legs.reduce((sum, leg) => sum + leg.amountIn, 0n)).to.equal(amountIn);
        for (const leg of split.legs) expect(leg.amountOut).to.equal(pathOutput(leg.hops, leg.amountIn));
        const optimum = gridOptimum(pools.map((pool) => [{ pool, tokenIn: SELL, tokenOut: BUY, amountIn: 0n, amountOut: 0n }]), amountIn, 60n);
        expect(split.amountOut * 1000n >= optimum * 999n, `split ${split.amountOut} against grid ${optimum}`).to.equal(true);
      }),
      { numRuns: 60 },
    );
  });

  it("allots an order over a venue with a local curve as well as the closed form does over the same pools as V2 pairs (within 1 bps)", () => {
    const reserve = fc.bigInt({ min: 10n ** 20n, max: 10n ** 24n });
    fc.assert(
      fc.property(fc.tuple(reserve, reserve, reserve, reserve), fc.integer({ min: 1, max: 500 }), ([a, b, c, d], permille) => {
        const first = opaque(1, 1, 2, a, b, "test-cp", 30);
        const second = opaque(2, 1, 2, c, d, "test-cp", 30);
        const amountIn = (((a < c ? a : c) * BigInt(permille)) / 1000n) + 1n;
        const iterated = splitRoute(pricedMarketOf([first, second]), SELL, BUY, amountIn)!;
        const closedForm = splitRoute(pricedMarketOf([asV2(first), asV2(second)]), SELL, BUY, amountIn)!;
        expect(iterated.amountOut * 10_000n >= closedForm.amountOut * 9_999n, `iterated ${iterated.amountOut} against ${closedForm.amountOut}`).to.equal(true);
      }),
      { numRuns: 80 },
    );
  });

  it("splits across multi-hop legs that mix venues, and the route's actions are each hop's venue action in SPLIT order", () => {
    const pools: PricedPool[] = [
      v2(1, 1, 2, 1000n * E18, 1000n * E18),
      opaque(2, 1, 3, 1000n * E18, 1000n * E18),
      v2(3, 3, 2, 1000n * E18, 1000n * E18, "forkswap-v2", 25),
    ];
    const split = splitRoute(pricedMarketOf(pools), SELL, BUY, 100n * E18)!;
    expect(split.legs.length).to.equal(2);
    const mixed = split.legs.find((leg) => leg.hops.length === 2)!;
    expect(mixed.hops.map((hop) => hop.pool.source)).to.deep.equal(["test-cp-venue", "forkswap-v2"]);
    expect(hopsGas(mixed.hops, true)).to.equal(OPAQUE_HOP_GAS + 44_000);
    const actions = actionsOfLegs(split.legs, false, false);
    const decoded = decodeRouteActions(encodeRouteActions(actions));
    expect(decoded).to.have.length(1);
    const splitAction = decoded[0]!;
    if (splitAction.type !== "split") throw new Error("expected a SPLIT");
    expect(splitAction.legs.map((leg) => leg.shareBps)).to.deep.equal(split.legs.map((leg) => leg.shareBps));
    expect(splitAction.legs.map((leg) => leg.hops.map((hop) => (hop.type === "swapV2" ? [hop.pair.toLowerCase(), hop.feeBps] : [hop.type])))).to.deep.equal(
      split.legs.map((leg) => leg.hops.map((hop: RouteHop) => [hop.pool.address, adapterOf(hop.pool).feePips(hop.pool) / 100])),
    );
  });

  it("leaves exact-input-only venues out of exact-output routes, and prices the others backwards through their adapters", () => {
    const exactIn = opaque(1, 1, 2, 1000n * E18, 1000n * E18, "test-cp-exact-in", 1);
    const backwards = opaque(2, 1, 2, 1000n * E18, 1000n * E18, "test-cp", 30);
    const found = searchRouteForOutput(pricedMarketOf([exactIn, backwards]), SELL, BUY, E18)!;
    expect(found.pools.map((pool) => pool.address)).to.deep.equal([backwards.address]);
    expect(found.amountIn).to.equal(getAmountIn(E18, 1000n * E18, 1000n * E18, 30));
    expect(searchRouteForOutput(pricedMarketOf([exactIn]), SELL, BUY, E18)).to.equal(undefined);
    // Forwards, the exact-input-only venue is routed (it pays the most).
    expect(searchRoute(pricedMarketOf([exactIn, backwards]), SELL, BUY, E18)!.hops[0]!.pool.address).to.equal(exactIn.address);
  });

  it("the V2 adapter's gas model gives the transaction estimate exactly its V2 terms (per hop, and the oracle's first write)", () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), fc.boolean(), (oracleStarted, wrap) => {
        const hops: RouteHop[] = oracleStarted.map((started, index) => ({
          pool: { ...v2(index, index + 1, index + 2, E18, E18), oracleStarted: started },
          tokenIn: token(index + 1),
          tokenOut: token(index + 2),
          amountIn: E18,
          amountOut: E18 / 2n,
        }));
        const factors = { settlement: "permit2" as const, hops: hops.length, wrap, unwrap: false, buysNative: false, fee: false, freshNonceWord: false, recipientEmpty: false, feeRecipientEmpty: false };
        const legacy = estimateGas("0x00ff", undefined, { ...factors, hopsStartingOracle: oracleStarted.filter((started) => !started).length });
        expect(estimateGas("0x00ff", undefined, { ...factors, hopsStartingOracle: 0, hopGas: hopsGas(hops, true) })).to.equal(legacy);
      }),
    );
  });

  it("keeps route search over a V2-only market exactly as before the adapters: the same path and output with or without a zero gas cost", () => {
    const reserve = fc.bigInt({ min: 10n ** 18n, max: 10n ** 24n });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), reserve, reserve), { minLength: 1, maxLength: 12 }), fc.bigInt({ min: 1n, max: 10n ** 22n }), (specs, amountIn) => {
        const pools = specs.filter(([a, b]) => a !== b).map(([a, b, ra, rb], index) => v2(index, a, b, ra, rb));
        const market = pricedMarketOf(pools);
        const plain = searchRoute(market, SELL, BUY, amountIn);
        const zeroGas = searchRoute(market, SELL, BUY, amountIn, 3, undefined, () => 0n);
        expect(zeroGas?.amountOut).to.equal(plain?.amountOut);
      }),
      { numRuns: 100 },
    );
  });
});

/** The best total output over a grid of allotments to three one-hop paths (step = amount / steps). */
function gridOptimum(paths: readonly (readonly RouteHop[])[], amountIn: bigint, steps: bigint): bigint {
  let best = 0n;
  const step = amountIn / steps;
  for (let i = 0n; i <= steps; i++) {
    for (let j = 0n; i + j <= steps; j++) {
      const [x, y] = [i * step, j * step];
      const out = pathOutput(paths[0]!, x) + pathOutput(paths[1]!, y) + pathOutput(paths[2]!, amountIn - x - y);
      if (out > best) best = out;
    }
  }
  return best;
}
