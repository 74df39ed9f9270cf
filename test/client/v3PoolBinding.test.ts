import { expect } from "chai";
import { getAddress, isAddressEqual, zeroAddress, type Address, type Hex } from "viem";
import {
  QuoteMismatchError,
  decodeQuoteOrder,
  decodeRouteActions,
  encodeRouteActions,
  readRouterV3Venues,
  sortCurrencies,
  v3PoolAddress,
  v4PoolId,
  verifyQuoteOrder,
  type QuoteExpectation,
  type QuoteJson,
  type RouteAction,
  type TradingClient,
} from "../../sdk";
import { DEV_KEYS, sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";
import { copyQuote, withCall } from "../fixtures/quoteTampering";

type V3Action = Extract<RouteAction, { type: "swapV3" }>;

/** Every SWAP_V3 hop of a route's actions, in order, with the token it sells (the path's previous token). */
function v3HopsOf(actions: readonly RouteAction[], start: Address): { hop: V3Action; tokenIn: Address }[] {
  const found: { hop: V3Action; tokenIn: Address }[] = [];
  const walk = (hops: readonly Exclude<RouteAction, { type: "split" | "wrap" | "unwrap" | "fee" }>[], from: Address) => {
    let token = from;
    for (const hop of hops) {
      if (hop.type === "swapV3") found.push({ hop, tokenIn: token });
      token = hop.tokenOut;
    }
    return token;
  };
  let token = start;
  for (const action of actions) {
    if (action.type === "split") token = action.legs.map((leg) => walk(leg.hops, token))[0]!;
    else if (action.type === "swapV2" || action.type === "swapV3" || action.type === "swapPropAmm") token = walk([action], token);
  }
  return found;
}

/** The quote with its SWAP_V3 hops' venue index rewritten (tx.data only; the JSON as served). */
function withV3Venue(quote: QuoteJson, venue: number): QuoteJson {
  const rewrite = (hop: RouteAction): RouteAction => (hop.type === "swapV3" ? { ...hop, venue } : hop);
  return withCall(quote, (call) => {
    const actions = decodeRouteActions(call.order.actions).map((action) =>
      action.type === "split" ? { ...action, legs: action.legs.map((leg) => ({ ...leg, hops: leg.hops.map(rewrite) as typeof leg.hops })) } : rewrite(action),
    );
    return { ...call, order: { ...call.order, actions: encodeRouteActions(actions) } } as typeof call;
  });
}

describe("The SDK binds each V3 hop of a quote to the pool the router computes from its own venue table", function () {
  this.timeout(240_000);
  let devnet: SharedDevnet;
  let client: TradingClient;
  let quote: QuoteJson;
  let expected: QuoteExpectation;
  let router: Address;

  before(async function () {
    this.timeout(240_000);
    devnet = await sharedDevnet();
    ({ client } = await devnet.onboardedClient());
    const taker = devnet.wallet(DEV_KEYS[7]).account.address;
    const usdc = devnet.token("USDC");
    // A native sell settles straight on the router (no permit binds tx.data), over the V3 venues only.
    const request = { taker, sellToken: "ETH", buyToken: usdc, sellAmount: 10n ** 17n, excludedSources: ["uniswap-v2", "dev-propamm", "uniswap-v4"] };
    quote = await client.getQuote(request);
    expected = { taker, sellToken: "ETH", buyToken: usdc, sellAmount: request.sellAmount, chainId: 4663 };
    router = getAddress(quote.tx.to);
  });
  after(() => client?.close());

  it("reads the router's V3 venue table (v3Venue(i)) and its wrapped token, which are the deployment's V3 venues", async () => {
    const table = await readRouterV3Venues(devnet.publicClient, router);
    const v3Venues = devnet.manifest.venues.filter((venue) => venue.type === "uniswap-v3");
    expect(table.venues.length).to.equal(v3Venues.length).and.to.be.greaterThan(1);
    for (const venue of table.venues) expect(v3Venues.some((listed) => isAddressEqual(listed.factory, venue!.factory) && listed.poolInitCodeHash === venue!.poolInitCodeHash)).to.equal(true);
    expect(table.weth).to.equal(getAddress(devnet.manifest.contracts.weth));
  });

  it("accepts a real V3 route: every V3 hop's computed pool is the pool its quote JSON names", async () => {
    const actions = decodeRouteActions(decodeQuoteOrder(quote.tx.data).order.actions);
    const table = await readRouterV3Venues(devnet.publicClient, router);
    const hops = v3HopsOf(actions, table.weth!);
    expect(hops.length, "the route swaps on V3").to.be.greaterThan(0);
    const named = quote.route.hops.filter((hop) => hop.source !== "uniswap-v2").map((hop) => hop.pool.toLowerCase());
    for (const { hop, tokenIn } of hops) {
      const venue = table.venues[hop.venue]!;
      expect(named).to.include(v3PoolAddress(venue.factory, venue.poolInitCodeHash, tokenIn, hop.tokenOut, hop.fee).toLowerCase());
    }
    await client.verifyQuote(quote, expected);
  });

  it("refuses a quote JSON naming another pool of the same fee tier, which the fee-only check (no venue table) lets through", async () => {
    const tampered = copyQuote(quote);
    const named = tampered.route.hops.find((hop) => hop.source !== "uniswap-v2")!.pool;
    const other = devnet.manifest.pools.find((pool) => pool.type === "uniswap-v3" && !isAddressEqual(pool.address, named))!.address;
    for (const hop of [...tampered.route.hops, ...tampered.route.legs.flatMap((leg) => leg.hops)]) {
      if (!isAddressEqual(hop.pool, named)) continue;
      hop.leg = hop.leg.replace(new RegExp(hop.pool, "i"), other);
      hop.pool = other;
    }
    // Without the router's table only the fee tier and token are compared: the swapped pool passes.
    verifyQuoteOrder(tampered, expected);
    const error = await client.verifyQuote(tampered, expected).catch((caught: unknown) => caught);
    expect(error, String(error)).to.be.instanceOf(QuoteMismatchError);
    expect((error as QuoteMismatchError).field).to.equal("tx.data.order.actions");
  });

  it("refuses tx.data whose V3 hops name another venue of the router's table, or a venue the router does not have", async () => {
    const actions = decodeRouteActions(decodeQuoteOrder(quote.tx.data).order.actions);
    const used = v3HopsOf(actions, getAddress(devnet.manifest.contracts.weth))[0]!.hop.venue;
    for (const venue of [used === 0 ? 1 : 0, 3]) {
      const tampered = withV3Venue(quote, venue);
      verifyQuoteOrder(tampered, expected);
      const error = await client.verifyQuote(tampered, expected).catch((caught: unknown) => caught);
      expect(error, `venue ${venue}: ${String(error)}`).to.be.instanceOf(QuoteMismatchError);
      expect((error as QuoteMismatchError).field).to.equal("tx.data.order.actions");
      if (venue === 3) expect((error as Error).message).to.contain("no v3 venue 3");
    }
  });

  it("binds a SWAP_V4 hop the same way: the pool id its key computes from the running token must be the pool the quote names, with or without the router's table", async () => {
    // A one-hop route of its own: one V3 venue and an amount too small for a split or a detour to pay its gas,
    // whatever earlier suites on the shared devnet did to the pools' prices.
    const taker = expected.taker;
    const sellAmount = 10n ** 15n;
    const oneHop = await client.getQuote({ taker, sellToken: "ETH", buyToken: devnet.token("USDC"), sellAmount, excludedSources: ["uniswap-v2", "dev-propamm", "uniswap-v4", "forkswap-v3"] });
    const oneHopExpected = { ...expected, sellAmount };
    const actions = decodeRouteActions(decodeQuoteOrder(oneHop.tx.data).order.actions);
    const weth = getAddress(devnet.manifest.contracts.weth);
    // The quote as a router with SWAP_V4 would serve it: its one V3 hop (after WRAP) through a V4 pool of WETH/USDC instead.
    const at = actions.findIndex((action) => action.type === "swapV3");
    expect(at, JSON.stringify(actions)).to.equal(1);
    expect(oneHop.route.hops.length, JSON.stringify(oneHop.route)).to.equal(1);
    const v3 = actions[at] as V3Action;
    const v4Hop = { type: "swapV4" as const, tokenOut: v3.tokenOut, fee: 500, tickSpacing: 10, hooks: zeroAddress };
    const idOf = (fee: number) => {
      const [currency0, currency1] = sortCurrencies(weth, v3.tokenOut);
      return v4PoolId({ currency0, currency1, fee, tickSpacing: 10, hooks: zeroAddress });
    };
    const asV4 = (poolId: Hex, fee: number): QuoteJson => {
      const tampered = withCall(oneHop, (call) => ({ ...call, order: { ...call.order, actions: encodeRouteActions(actions.map((action, index) => (index === at ? v4Hop : action))) } }) as typeof call);
      for (const hop of [...tampered.route.hops, ...tampered.route.legs.flatMap((leg) => leg.hops)]) {
        hop.pool = poolId;
        hop.source = "uniswap-v4";
        hop.leg = `uniswap-v4:chain-4663:${poolId}:${fee}`;
      }
      return tampered;
    };
    const bound = asV4(idOf(500), 500);
    verifyQuoteOrder(bound, oneHopExpected);
    await client.verifyQuote(bound, oneHopExpected);
    // The JSON naming another V4 pool of the same fee (another tick spacing's): only the router-bound check (verifyQuote) sees it.
    const [currency0, currency1] = sortCurrencies(weth, v3.tokenOut);
    const otherSpacing = v4PoolId({ currency0, currency1, fee: 500, tickSpacing: 1, hooks: zeroAddress });
    verifyQuoteOrder(asV4(otherSpacing, 500), oneHopExpected);
    const error = await client.verifyQuote(asV4(otherSpacing, 500), oneHopExpected).catch((caught: unknown) => caught);
    expect(error, String(error)).to.be.instanceOf(QuoteMismatchError);
    expect((error as QuoteMismatchError).field).to.equal("tx.data.order.actions");
    // Another fee in the leg than the action's is refused by both.
    expect(() => verifyQuoteOrder(asV4(idOf(3000), 3000), oneHopExpected)).to.throw(QuoteMismatchError);
  });
});
