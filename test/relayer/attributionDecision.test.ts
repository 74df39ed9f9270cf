import { expect } from "chai";
import fc from "fast-check";
import type { Address } from "viem";
import { getAmountOut, getSqrtRatioAtTick, quoteConcentratedExactInput, routeHops, routeOutput, splitAmounts, type PairReserves, type RouteAction, type V3PoolState } from "../../sdk";
import type { AttributionFacts } from "../../relayer/attribution/attributionFacts";
import { decideCause, shouldRetry, TAKER_PULL_REFUSED_DETAIL } from "../../relayer/attribution/decideCause";
import { fuzzRuns } from "../helpers/fuzzRuns";

const A = "0x00000000000000000000000000000000000000a1" as Address;
const B = "0x00000000000000000000000000000000000000b2" as Address;
const C = "0x00000000000000000000000000000000000000c3" as Address;
const P1 = "0x0000000000000000000000000000000000000101" as Address;
const P2 = "0x0000000000000000000000000000000000000202" as Address;

const innocent: AttributionFacts = { gateClosed: false, route: { minimum: 990n, atParent: 1_000n, met: 1_000n }, takerCode: { whenAccepted: false, whenMined: false }, nonceSpent: false, fundsShort: false, takerPullRefused: false, tradedBefore: false, routeRefused: false, capBurnt: false };

describe("attribution: who caused a failed order, decided from facts", () => {
  it("a closed gate at the block is the operator's, whatever else holds (a wallet's forged bytes cannot close it)", () => {
    expect(decideCause({ ...innocent, gateClosed: true, takerCode: { whenAccepted: false, whenMined: true } }).cause).to.equal("operator");
  });
  it("a route that misses its minimum at the state it met but fills at the parent is the market's; one that misses at the parent too is the operator's (sent or kept too late)", () => {
    expect(decideCause({ ...innocent, route: { minimum: 990n, atParent: 1_000n, met: 900n } })).to.include({ cause: "market", market: true });
    expect(decideCause({ ...innocent, route: { minimum: 990n, atParent: 950n, met: 900n } })).to.include({ cause: "operator", market: true });
  });
  it("a taker with code at the mined block whose route would fill is the taker's, whether it had code when accepted or gained it after", () => {
    expect(decideCause({ ...innocent, takerCode: { whenAccepted: false, whenMined: true } }).detail).to.match(/had no code when its relay was accepted and had code when mined/);
    expect(decideCause({ ...innocent, takerCode: { whenAccepted: true, whenMined: true } }).cause).to.equal("taker");
  });
  it("a taker that gained code after acceptance is the taker's even when a pool moved its route past its minimum (never innocent)", () => {
    const sandwiched = { minimum: 990n, atParent: 1_000n, met: 900n };
    expect(decideCause({ ...innocent, route: sandwiched, takerCode: { whenAccepted: false, whenMined: true } })).to.include({ cause: "taker", retryable: false });
  });
  it("a wallet taker (code when accepted) whose order burnt its gas is the taker's though a pool moved past its minimum; one that did not burn it counts against nobody but is never sent again", () => {
    const wallet = { whenAccepted: true, whenMined: true };
    const oneUnit = { minimum: 1_000n, atParent: 1_000n, met: 999n };
    expect(decideCause({ ...innocent, route: oneUnit, takerCode: wallet, capBurnt: true }).cause).to.equal("taker");
    for (const capBurnt of [false, undefined]) {
      const attribution = decideCause({ ...innocent, route: oneUnit, takerCode: wallet, capBurnt });
      expect(attribution).to.include({ cause: "market", retryable: false });
      expect(shouldRetry(attribution, { gateOpen: true, fillsNow: true, resentBefore: false })).to.equal(false);
    }
    // A sandwiched taker without code stays the market's, and is retried when it would fill now.
    const eoa = decideCause({ ...innocent, route: oneUnit, capBurnt: true });
    expect(eoa).to.include({ cause: "market", retryable: true });
    expect(shouldRetry(eoa, { gateOpen: true, fillsNow: true, resentBefore: false })).to.equal(true);
  });
  it("a route that cannot be repriced is the market's when a pool of it traded before the order in its block, the integrator's otherwise (unproven: its budget alone); never the taker's for want of facts, unless a taker fact says so", () => {
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: true })).to.include({ cause: "market", market: true });
    // Unproven: nobody's fault shown; counted against the integrator's budget alone, and sent once more when it would fill.
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: false })).to.include({ cause: "integrator", market: false, retryable: true });
    expect(shouldRetry(decideCause({ ...innocent, route: undefined, tradedBefore: false }), { gateOpen: true, fillsNow: undefined, resentBefore: false })).to.equal(true);
    expect(shouldRetry(decideCause({ ...innocent, route: undefined, tradedBefore: false }), { gateOpen: true, fillsNow: undefined, resentBefore: true })).to.equal(false);
    // A hop the router does not reach, or calldata that does not decode: the operator's side (the API quoted it, the hand-off took it).
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: false, routeRefused: true })).to.include({ cause: "operator" });
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: true, routeRefused: true })).to.include({ cause: "operator" });
    // Refused at the mined block (a propAMM pair removed within it) while the parent still priced the route: the operator's, whatever the taker did.
    expect(decideCause({ ...innocent, routeRefused: true, fundsShort: true, takerCode: { whenAccepted: false, whenMined: true } })).to.include({ cause: "operator" });
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: true, nonceSpent: true }).cause).to.equal("taker");
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: true, takerCode: { whenAccepted: true, whenMined: true } }).cause).to.equal("taker");
  });
  it("a route that cannot be repriced with nothing traded before it, whose taker-side transfers are refused when simulated, is the taker's (not sent again); the market's still when a venue traded before it", () => {
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: false, takerPullRefused: true })).to.include({ cause: "taker", detail: TAKER_PULL_REFUSED_DETAIL, retryable: false });
    expect(decideCause({ ...innocent, route: undefined, tradedBefore: true, takerPullRefused: true })).to.include({ cause: "market" });
    // A priceable route's refused pull is left to the other rules (a pool moved against it: the market's).
    expect(decideCause({ ...innocent, route: { minimum: 900n, atParent: 1_000n, met: 950n }, takerPullRefused: true }).cause).to.equal("market");
    expect(decideCause({ ...innocent, routeRefused: true, takerPullRefused: true }).cause).to.equal("operator");
  });
  it("a spent nonce or short funds are the taker's, even with a pool moved against it in the block", () => {
    const moved = { minimum: 900n, atParent: 1_000n, met: 950n };
    expect(decideCause({ ...innocent, route: moved, nonceSpent: true }).cause).to.equal("taker");
    expect(decideCause({ ...innocent, route: moved, fundsShort: true }).cause).to.equal("taker");
  });
  it("an adverse move within the block that the untaxed repricing says still fills is the market's (a taxed token's order); no move and no other fact is the taker's", () => {
    expect(decideCause({ ...innocent, route: { minimum: 900n, atParent: 1_000n, met: 950n } }).cause).to.equal("market");
    expect(decideCause(innocent).cause).to.equal("taker");
  });
  it("a retry only for the operator or the market, when the latest block says it now goes through, and only once", () => {
    const market = decideCause({ ...innocent, route: { minimum: 990n, atParent: 1_000n, met: 900n } });
    expect(shouldRetry(market, { gateOpen: true, fillsNow: true, resentBefore: false })).to.equal(true);
    expect(shouldRetry(market, { gateOpen: true, fillsNow: false, resentBefore: false })).to.equal(false);
    expect(shouldRetry(market, { gateOpen: true, fillsNow: true, resentBefore: true })).to.equal(false);
    const paused = decideCause({ ...innocent, gateClosed: true });
    expect(shouldRetry(paused, { gateOpen: false, fillsNow: true, resentBefore: false })).to.equal(false);
    expect(shouldRetry(paused, { gateOpen: true, fillsNow: undefined, resentBefore: false })).to.equal(true);
    expect(shouldRetry(decideCause(innocent), { gateOpen: true, fillsNow: true, resentBefore: false })).to.equal(false);
  });

  it("property: what a third party controls (pool states, the revert bytes it cannot even reach) never makes an order whose taker has no code, an unspent nonce and its funds the taker's once a pool moved against it", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 24n }), fc.bigInt({ min: 0n, max: 10n ** 24n }), fc.integer({ min: 2, max: 10_000 }), (atParent, minimum, moveBps) => {
        const met = (atParent * BigInt(10_000 - moveBps)) / 10_000n;
        const cause = decideCause({ ...innocent, route: { minimum, atParent, met } }).cause;
        expect(cause).to.not.equal("taker");
      }),
      fuzzRuns(500),
    );
  });
});

describe("routeOutput: an exact-input route repriced from its venues' states", () => {
  const states = new Map<string, PairReserves>([
    [P1.toLowerCase(), { token0: A, reserve0: 1_000_000n, reserve1: 2_000_000n }],
    [P2.toLowerCase(), { token0: C, reserve0: 5_000_000n, reserve1: 1_000_000n }],
  ]);
  const at = { v2Pair: (pair: Address) => states.get(pair.toLowerCase()) };
  // One position over ticks [-600, 600): 10^6 liquidity at price 1 (token0 A, token1 B), fee 0.3 %.
  const pool: V3PoolState = {
    address: "0x0000000000000000000000000000000000000303",
    token0: A,
    token1: B,
    sqrtPriceX96: getSqrtRatioAtTick(0),
    tick: 0,
    liquidity: 10n ** 6n,
    fee: 3000,
    tickSpacing: 60,
    ticks: [
      { index: -600, liquidityGross: 10n ** 6n, liquidityNet: 10n ** 6n },
      { index: 600, liquidityGross: 10n ** 6n, liquidityNet: -(10n ** 6n) },
    ],
  };
  const v3Hop = { type: "swapV3", tokenOut: B, fee: 3000, venue: 0 } as const;
  it("chains hops through each pair's own token order, takes a fee's share, and splits as the router does", async () => {
    const twoHops: RouteAction[] = [{ type: "swapV2", pair: P1, tokenOut: B, feeBps: 30 }, { type: "swapV2", pair: P2, tokenOut: C, feeBps: 30 }, { type: "fee", bps: 100, recipient: A }];
    const first = getAmountOut(1_000n, 1_000_000n, 2_000_000n, 30);
    const second = getAmountOut(first, 1_000_000n, 5_000_000n, 30);
    expect(await routeOutput(twoHops, A, 1_000n, at)).to.equal(second - (second * 100n) / 10_000n);
    const split: RouteAction[] = [{ type: "split", legs: [{ shareBps: 3_000, hops: [{ type: "swapV2", pair: P1, tokenOut: B, feeBps: 30 }] }, { shareBps: 7_000, hops: [{ type: "swapV2", pair: P1, tokenOut: B, feeBps: 30 }] }] }];
    const [legA, legB] = splitAmounts(10_001n, [3_000, 7_000]) as [bigint, bigint];
    const outA = getAmountOut(legA, 1_000_000n, 2_000_000n, 30);
    // The second leg meets the pair the first leg moved.
    expect(await routeOutput(split, A, 10_001n, at)).to.equal(outA + getAmountOut(legB, 1_000_000n + legA, 2_000_000n - outA, 30));
  });
  it("is undefined when a pair's state is unknown, and for V3 and propAMM hops without their states", async () => {
    expect(await routeOutput([{ type: "swapV2", pair: C, tokenOut: B, feeBps: 30 }], A, 1n, at)).to.equal(undefined);
    expect(await routeOutput([v3Hop], A, 1_000n, at)).to.equal(undefined);
    expect(await routeOutput([{ type: "swapPropAmm", pair: P2, tokenOut: B }], A, 1_000n, at)).to.equal(undefined);
  });
  it("prices a V3 hop with the pool's swap loop from the running token, and a second hop through the same pool meets the price the first left", async () => {
    const seen: string[] = [];
    const venues = { ...at, v3Pool: (hop: { tokenOut: Address; fee: number; venue: number }, tokenIn: Address) => (seen.push(`${hop.venue}:${tokenIn}:${hop.tokenOut}:${hop.fee}`), pool) };
    const alone = quoteConcentratedExactInput(pool, true, 5_000n)!;
    expect(await routeOutput([v3Hop], A, 5_000n, venues)).to.equal(alone.amountOut);
    // Two legs through the same pool: the second meets the price the first left.
    const split: RouteAction[] = [{ type: "split", legs: [{ shareBps: 5_000, hops: [v3Hop] }, { shareBps: 5_000, hops: [v3Hop] }] }];
    const first = quoteConcentratedExactInput(pool, true, 2_500n)!;
    const second = quoteConcentratedExactInput({ ...pool, sqrtPriceX96: first.sqrtPriceAfter, tick: first.tickAfter, liquidity: first.liquidityAfter }, true, 2_500n)!;
    expect(await routeOutput(split, A, 5_000n, venues)).to.equal(first.amountOut + second.amountOut);
    expect(second.amountOut < first.amountOut, `${second.amountOut} after ${first.amountOut}`).to.equal(true);
    expect(seen.every((key) => key === `0:${A}:${B}:3000`)).to.equal(true);
    // More than the pool holds: the router refuses a partial fill, so the route is not priced.
    expect(await routeOutput([v3Hop], A, 10n ** 15n, venues)).to.equal(undefined);
  });
  it("asks a propAMM for its quote at the hop's input from the running token, once per pair: a second hop through it is not priced", async () => {
    const asked: [Address, Address, bigint][] = [];
    const venues = { ...at, propAmmOut: async (hop: { pair: Address; tokenOut: Address }, tokenIn: Address, amountIn: bigint) => (asked.push([hop.pair, tokenIn, amountIn]), amountIn * 2n) };
    const route: RouteAction[] = [{ type: "swapV2", pair: P1, tokenOut: B, feeBps: 30 }, { type: "swapPropAmm", pair: P2, tokenOut: C }];
    const first = getAmountOut(1_000n, 1_000_000n, 2_000_000n, 30);
    expect(await routeOutput(route, A, 1_000n, venues)).to.equal(first * 2n);
    expect(asked).to.deep.equal([[P2, B, first]]);
    const twice: RouteAction[] = [{ type: "split", legs: [5_000, 5_000].map((shareBps) => ({ shareBps, hops: [{ type: "swapPropAmm" as const, pair: P2, tokenOut: C }] })) }];
    expect(await routeOutput(twice, A, 1_000n, venues)).to.equal(undefined);
  });
  it("routeHops names each hop's input token: the running token, each split leg from the split's input", () => {
    const route: RouteAction[] = [
      { type: "swapV2", pair: P1, tokenOut: B, feeBps: 30 },
      { type: "split", legs: [{ shareBps: 5_000, hops: [{ type: "swapV3", tokenOut: C, fee: 500, venue: 1 }] }, { shareBps: 5_000, hops: [{ type: "swapPropAmm", pair: P2, tokenOut: A }, { type: "swapV2", pair: P1, tokenOut: C, feeBps: 30 }] }] },
      { type: "unwrap" },
    ];
    expect(routeHops(route, A).map(({ hop, tokenIn }) => [hop.type, tokenIn])).to.deep.equal([
      ["swapV2", A],
      ["swapV3", B],
      ["swapPropAmm", B],
      ["swapV2", A],
    ]);
  });
});
