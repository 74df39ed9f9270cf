import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { erc20Abi, getAddress, maxUint256, parseEther, parseUnits, zeroAddress, type Address, type Hex } from "viem";
import type { PrivateKeyAccount } from "viem/accounts";
import {
  decodeExactOutputQuoteOrder,
  decodeQuoteOrder,
  decodeRouteActions,
  encodeRouteActions,
  encodeSwapNative,
  encodeSwapWithAllowance,
  NATIVE_TOKEN,
  patchSignature,
  QuoteMismatchError,
  readRouterPoolManager,
  readRouterV4Revision,
  readRouterV4Venue,
  V4_REVISION_EXACT_OUTPUT,
  routeOutput,
  swapV4Hop,
  v4HookExclusion,
  v4HopPoolKey,
  v4PoolId,
  type DeploymentManifest,
  type ManifestPool,
  type ManifestV4Pool,
  type ManifestVenuePool,
  type QuoteJson,
  type SwapOrder,
  type V4Hop,
} from "../../sdk";
import { verifyQuote } from "../../sdk/client/verifyQuote";
import { v4HookAllowlistPath, writeV4HookAllowlist } from "../../sdk/chain/v4HookAllowlist";
import { ChainHead } from "../../sdk/chain/chainHead";
import { marketTrackerOfManifest } from "../../api/quote/market/chainMarket";
import type { MarketPools } from "../../api/quote/market/marketTracker";
import { marketWhere, marketWithoutSources } from "../../api/quote/market/marketView";
import type { PoolSnapshot } from "../../api/quote/market/poolState";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";
import { amountInThrough, pricesBackwards, searchRouteForOutput } from "../../api/quote/routing/exactOutputRoute";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "../../scripts/deploy/uniswapArtifacts";
import { actionsOfLegs } from "../../api/quote/routing/routePlan";
import { bestExecution } from "../../api/quote/routing/splitDecision";
import { FollowedV4HookAllowlist } from "../../api/quote/venues/uniswapV4/followedHookAllowlist";
import type { V4RoutedPool } from "../../api/quote/venues/uniswapV4/v4Adapter";
import { legName } from "../../api/quote/venues/venueAdapters";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { closeSharedQuoteApis, quoteReady, type QuoteApi } from "../fixtures/quoteApi";
import { gaslessReadyFixture, startGaslessStack } from "../fixtures/gaslessStack";
import { withCall } from "../fixtures/quoteTampering";
import { balanceOf } from "../fixtures/testRoute";
import { quoteV4 } from "../fixtures/venueQuotes";

const V4 = "uniswap-v4";
const GAS_PRICE = 1_000_000_000n;
const lower = (address: Address) => address.toLowerCase() as Address;

/**
 * The devnet's market (V2, V3, propAMM and the V4 market deployDevnet put in the PoolManager) as the
 * API builds it (chainMarket.ts), over the fixture's manifest with its `uniswapV4` part; the fixture's
 * routers execute SWAP_V4 (`poolManager()` names the manifest's PoolManager). `withoutV4` reads them as
 * routers built before the V4 action read (no PoolManager in their venue set); `withoutV4ExactOutput`
 * as routers built before exact output over V4 read (a PoolManager, no `v4Revision()`: revision 1).
 */
async function marketOf(f: SettlementFixture, options: { withoutV4?: boolean; withoutV4ExactOutput?: boolean; hooks?: FollowedV4HookAllowlist }) {
  const overriding = options.withoutV4 ? { v4PoolManager: undefined } : options.withoutV4ExactOutput ? { v4Revision: 1 } : undefined;
  const manifest: DeploymentManifest = { ...(await fixtureManifest(f)), uniswapV4: f.uniswapV4 };
  const tracker = marketTrackerOfManifest(f.publicClient, manifest, {
    isSupported: () => true,
    observeReads: () => undefined,
    decimalsOf: (token) => manifest.tokens.find((candidate) => lower(candidate.address) === token)?.decimals ?? 18,
    v4Hooks: options.hooks,
    routerVenues: overriding === undefined ? undefined : (active) => ({ at: async (client, head) => ({ ...(await active.at(client, head)), ...overriding }) }),
  });
  const v2Pools: ManifestPool[] = manifest.pools.filter((pool): pool is ManifestPool => pool.type === "uniswap-v2");
  const venuePools: ManifestVenuePool[] = manifest.pools;
  const lists: MarketPools = { pools: () => v2Pools, venuePools: () => venuePools };
  const heads = new ChainHead(f.publicClient);
  return { manifest, tracker, snapshot: async () => tracker.at(f.publicClient, await heads.fresh(), lists) };
}

const v4PoolsOf = (market: PoolSnapshot) => [...market.pools.values()].filter((pool): pool is V4RoutedPool => pool.kind === "v4");

/** The best execution of `amountIn` as planRoute finds it (gas-aware search, then the split decision). */
function plan(market: PoolSnapshot, f: SettlementFixture, tokenIn: Address, tokenOut: Address, amountIn: bigint) {
  const weth = lower(f.contracts.weth);
  const route = searchRoute(market, lower(tokenIn), lower(tokenOut), amountIn);
  expect(route, "a route").to.not.equal(undefined);
  return bestExecution(market, lower(tokenIn), lower(tokenOut), amountIn, route!, GAS_PRICE, weth);
}

describe("Uniswap V4 as a routed venue (quotes)", function () {
  this.timeout(300_000);

  it("routes no V4 pool while the active routers name no PoolManager (built before the V4 action): V4 needs every router", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = await marketOf(f, { withoutV4: true });
    const market = await snapshot();
    expect(v4PoolsOf(market)).to.deep.equal([]);
    expect([...market.pools.values()].some((pool) => pool.kind === "v3")).to.equal(true);
  });

  it("reads a contract's poolManager() as the V4 PoolManager it names (the routers', V4Quoter's immutable) and a contract without the view as none", async () => {
    const f = await loadFixture(settlementFixture);
    expect(await readRouterPoolManager(f.publicClient, f.uniswapV4.v4Quoter)).to.equal(getAddress(f.uniswapV4.poolManager));
    expect(await readRouterPoolManager(f.publicClient, f.contracts.takerSwapRouter)).to.equal(getAddress(f.uniswapV4.poolManager));
    expect(await readRouterPoolManager(f.publicClient, f.contracts.gaslessSwapRouter)).to.equal(getAddress(f.uniswapV4.poolManager));
    // The registry has no such view: it reverts, which reads as none.
    expect(await readRouterPoolManager(f.publicClient, f.contracts.routerRegistry)).to.equal(undefined);
    // An account without code answers nothing: none, not an error.
    expect(await readRouterPoolManager(f.publicClient, f.stranger.account.address)).to.equal(undefined);
  });

  it("with SWAP_V4 on every router, lists the V4 pools the hook rule admits: plain pools and the native ETH pool yes (native ETH never a hub); the observing hook (afterSwap) and the delta hook no", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = await marketOf(f, {});
    const market = await snapshot();
    const routed = new Map(v4PoolsOf(market).map((pool) => [pool.address, pool]));
    const hooks = new Map((f.uniswapV4.hooks ?? []).map((hook) => [lower(hook.address), hook.name]));
    for (const pool of f.uniswapV4.pools) {
      const id = pool.id.toLowerCase() as Address;
      const exclusion = v4HookExclusion(pool);
      expect(routed.has(id), `${id} (hook ${hooks.get(lower(pool.hooks)) ?? "none"})`).to.equal(exclusion === undefined);
      if (routed.has(id)) {
        const routedPool = routed.get(id)!;
        expect(routedPool.source).to.equal(V4);
        expect(routedPool.state.id).to.equal(pool.id.toLowerCase());
        expect(legName(routedPool, 4663)).to.equal(`uniswap-v4:chain-4663:${pool.id.toLowerCase()}:${pool.fee}`);
      }
    }
    // The ETH/USDC pool holds native ETH as address(0): a route may start or end there, never pass through it.
    const native = f.uniswapV4.pools.find((pool) => pool.currency0 === zeroAddress);
    expect(native, "the devnet has a native ETH pool").to.not.equal(undefined);
    expect(routed.get(native!.id.toLowerCase() as Address)?.token0).to.equal(zeroAddress);
    expect(market.graph.hubs).to.not.include(zeroAddress);
    // An observing hook (afterSwap only) still runs code in every swap: not routed until allowlisted.
    const observer = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "swap-hook");
    expect(observer, "the devnet has an observing-hook pool").to.not.equal(undefined);
    expect(routed.has(observer!.id.toLowerCase() as Address)).to.equal(false);
    const delta = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "returns-delta");
    expect(delta, "the devnet has a delta-hook pool").to.not.equal(undefined);
    expect(routed.has(delta!.id.toLowerCase() as Address)).to.equal(false);
  });

  it("a V4 pool with a better fee wins the hop (USDC → USDT), its actions are SWAP_V4 with the pool's key, the SDK prices them to the wei, excluded_sources leaves V4 out, and exact output prices it backwards as V4Quoter does", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = await marketOf(f, {});
    const market = await snapshot();
    const [usdc, usdt] = [f.token("USDC"), f.token("USDT")];
    const amountIn = parseUnits("5000", 6);
    const execution = plan(market, f, usdc, usdt, amountIn);
    const hops = execution.legs.flatMap((leg) => leg.hops);
    expect(hops.map((hop) => hop.pool.source), JSON.stringify(hops.map((hop) => hop.pool.address))).to.deep.equal([V4]);
    const pool = hops[0]!.pool as V4RoutedPool;
    const actions = actionsOfLegs(execution.legs, false, false);
    expect(actions).to.deep.equal([{ type: "swapV4", tokenOut: usdt, fee: pool.state.key.fee, tickSpacing: pool.state.key.tickSpacing, hooks: pool.state.key.hooks }]);
    // The bytes a router executes decode back, and the SDK's own pricing (routeOutput over the pool its key names) pays what the route says.
    const decoded = decodeRouteActions(encodeRouteActions(actions));
    const byId = new Map(v4PoolsOf(market).map((candidate) => [candidate.state.id, candidate.state]));
    const v4Pool = (hop: V4Hop, tokenIn: Address) => byId.get(v4PoolId(v4HopPoolKey(tokenIn, hop)).toLowerCase() as Hex);
    expect(await routeOutput(decoded, usdc, amountIn, { v2Pair: () => undefined, v4Pool })).to.equal(execution.amountOut);

    // excluded_sources=uniswap-v4 takes the V4 pools out of the same market: the route goes elsewhere and pays less.
    const without = plan(marketWithoutSources(market, new Set([V4])), f, usdc, usdt, amountIn);
    expect(without.legs.flatMap((leg) => leg.hops).some((hop) => hop.pool.source === V4)).to.equal(false);
    expect(without.amountOut < execution.amountOut).to.equal(true);

    // Exact output prices the same V4 pool backwards: the input it needs is V4Quoter's exact-output quote, to the wei.
    const exactOutputMarket = marketWhere(market, pricesBackwards);
    const wanted = parseUnits("5000", 6);
    const backwards = searchRouteForOutput(exactOutputMarket, lower(usdc), lower(usdt), wanted)!;
    expect(backwards.pools.map((candidate) => candidate.address)).to.deep.equal([pool.address]);
    expect(backwards.amountIn).to.equal(await quoteV4(f, f.uniswapV4.v4Quoter, pool.state.key, usdc, wanted, "exactOutput"));
  });

  it("reads each router's V4 venue revision: the devnet's routers answer v4Revision() 2, one without a PoolManager 0, and a contract without the view 1 beside a PoolManager (V4Quoter names one), else 0; the venue set takes the lowest", async () => {
    const f = await loadFixture(settlementFixture);
    expect(await readRouterV4Revision(f.publicClient, f.contracts.takerSwapRouter)).to.equal(V4_REVISION_EXACT_OUTPUT);
    expect(await readRouterV4Revision(f.publicClient, f.contracts.gaslessSwapRouter)).to.equal(V4_REVISION_EXACT_OUTPUT);
    const withoutPoolManager = await hre.viem.deployContract("GaslessSwapRouter", [f.contracts.permit2, f.contracts.weth, f.contracts.routerRegistry, { factory: f.contracts.uniswapV2Factory, feeBps: 30, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH }], { client: { public: f.publicClient, wallet: f.deployer } });
    expect(await readRouterV4Revision(f.publicClient, withoutPoolManager.address)).to.equal(0);
    // V4Quoter answers poolManager() but has no v4Revision(): read as a router built before the view.
    expect(await readRouterV4Revision(f.publicClient, f.uniswapV4.v4Quoter)).to.equal(1);
    // Both views in one read, as the API's venue set reads a router: the revision follows the PoolManager read beside it.
    expect(await readRouterV4Venue(f.publicClient, f.uniswapV4.v4Quoter)).to.deep.equal({ poolManager: getAddress(f.uniswapV4.poolManager), revision: 1 });
    expect(await readRouterV4Venue(f.publicClient, withoutPoolManager.address)).to.deep.equal({ poolManager: undefined, revision: 0 });
    expect(await readRouterV4Venue(f.publicClient, f.contracts.takerSwapRouter)).to.deep.equal({ poolManager: getAddress(f.uniswapV4.poolManager), revision: V4_REVISION_EXACT_OUTPUT });
    expect(await readRouterV4Revision(f.publicClient, f.contracts.routerRegistry)).to.equal(0);
    expect(await readRouterV4Revision(f.publicClient, f.stranger.account.address)).to.equal(0);
    const { snapshot } = await marketOf(f, {});
    expect(v4PoolsOf(await snapshot()).every((pool) => pool.revision === V4_REVISION_EXACT_OUTPUT)).to.equal(true);
  });

  it("routers built before exact output over V4 (a PoolManager, no v4Revision: revision 1): V4 pools still route exact input, but no exact-output path or split prices them backwards", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = await marketOf(f, { withoutV4ExactOutput: true });
    const market = await snapshot();
    const [usdc, usdt] = [f.token("USDC"), f.token("USDT")];
    expect(v4PoolsOf(market).length).to.be.greaterThan(0);
    expect(v4PoolsOf(market).every((pool) => pool.revision === 1)).to.equal(true);
    // Exact input still takes the V4 pool that wins the hop.
    const execution = plan(market, f, usdc, usdt, parseUnits("5000", 6));
    expect(execution.legs.flatMap((leg) => leg.hops).map((hop) => hop.pool.source)).to.deep.equal([V4]);
    // Exact output finds its paths and splits elsewhere: the market it searches (planExactOutputRoute's) holds no V4 pool.
    const exactOutputMarket = marketWhere(market, pricesBackwards);
    expect([...exactOutputMarket.pools.values()].filter((pool) => pool.kind === "v4")).to.deep.equal([]);
    expect([...exactOutputMarket.pools.values()].some((pool) => pool.kind === "v3")).to.equal(true);
    for (const pool of v4PoolsOf(market)) expect(amountInThrough(pool, pool.token0, 1_000n), pool.address).to.equal(undefined);
    const backwards = searchRouteForOutput(exactOutputMarket, lower(usdc), lower(usdt), parseUnits("5000", 6));
    expect(backwards, "an exact-output path over the other venues").to.not.equal(undefined);
    expect(backwards!.pools.some((pool) => pool.kind === "v4")).to.equal(false);
  });

  it("splits a large order (800k USDC → USDT) across V4 and the other venues when that pays more net of gas, every leg's V4 hop a SWAP_V4 inside the SPLIT", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = await marketOf(f, {});
    const market = await snapshot();
    const [usdc, usdt] = [f.token("USDC"), f.token("USDT")];
    const amountIn = parseUnits("800000", 6);
    const execution = plan(market, f, usdc, usdt, amountIn);
    const sources = execution.legs.map((leg) => leg.hops.map((hop) => hop.pool.source).join(">"));
    expect(execution.legs.length, sources.join(" | ")).to.be.within(2, 3);
    expect(sources.some((source) => source.includes(V4)), sources.join(" | ")).to.equal(true);
    expect(sources.some((source) => !source.includes(V4)), sources.join(" | ")).to.equal(true);
    const [split] = actionsOfLegs(execution.legs, false, false);
    expect(split!.type).to.equal("split");
    const legs = (split as Extract<typeof split, { type: "split" }>).legs;
    const v4Hops = legs.flatMap((leg) => leg.hops).filter((hop) => hop.type === "swapV4");
    expect(v4Hops.length).to.be.greaterThan(0);
    const encoded = encodeRouteActions([split!]);
    expect(encodeRouteActions(decodeRouteActions(encoded))).to.equal(encoded);
    const withoutV4 = plan(marketWithoutSources(market, new Set([V4])), f, usdc, usdt, amountIn);
    expect(withoutV4.amountOut < execution.amountOut).to.equal(true);
  });

  it("routes the delta hook's pool once the operator allowlists its hook in the file beside the manifest, and stops when it is removed (re-read without a restart)", async () => {
    const f = await loadFixture(settlementFixture);
    const folder = mkdtempSync(join(tmpdir(), "v4-hooks-"));
    try {
      const path = v4HookAllowlistPath(join(folder, "4663.json"));
      expect(path).to.equal(join(folder, "4663.v4-hooks.json"));
      const errors: unknown[] = [];
      const hooks = new FollowedV4HookAllowlist(path, 4663, (error) => errors.push(error));
      const { snapshot } = await marketOf(f, { hooks });
      const delta = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "returns-delta")!;
      const id = delta.id.toLowerCase() as Address;
      expect((await snapshot()).pools.has(id)).to.equal(false);

      writeV4HookAllowlist(path, { chainId: 4663, hooks: [{ address: delta.hooks, note: "test: the devnet's fee hook", addedAt: new Date().toISOString() }] });
      const allowed = await snapshot();
      expect(allowed.pools.has(id)).to.equal(true);
      expect(allowed.pools.get(id)!.source).to.equal(V4);

      // A file that does not parse keeps the last good set and is reported.
      const { writeFileSync, utimesSync } = await import("node:fs");
      writeFileSync(path, "{ not json");
      utimesSync(path, new Date(), new Date(Date.now() + 5_000));
      expect((await snapshot()).pools.has(id)).to.equal(true);
      expect(errors.length).to.equal(1);

      writeV4HookAllowlist(path, { chainId: 4663, hooks: [] });
      utimesSync(path, new Date(), new Date(Date.now() + 10_000));
      expect((await snapshot()).pools.has(id)).to.equal(false);
      // Another chain's file is refused, not applied.
      writeV4HookAllowlist(path, { chainId: 1, hooks: [{ address: delta.hooks, note: "", addedAt: "2026-11-28T00:00:00Z" }] });
      utimesSync(path, new Date(), new Date(Date.now() + 15_000));
      expect((await snapshot()).pools.has(id)).to.equal(false);
      expect(String(errors.at(-1))).to.match(/of chain 1, not of chain 4663/);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

type NativeQuote = QuoteJson & { route: { hops: { source: string; pool: string; token_in: string; token_out: string }[] } };

/** The devnet's native ETH/USDC V4 pool (currency0 address(0)). */
function nativePool(f: SettlementFixture): ManifestV4Pool {
  const pool = f.uniswapV4.pools.find((candidate) => candidate.currency0 === zeroAddress && candidate.currency1 === f.token("USDC"));
  if (pool === undefined) throw new Error("the devnet has no native ETH/USDC V4 pool");
  return pool;
}

/**
 * Moves the native pool's price with a real swap through the taker router, sent by the stranger (not a
 * quote): `sellEth` sells native ETH into it (ETH gets cheaper there), else it buys ETH there with USDC
 * through the allowance holder (ETH gets dearer there).
 */
async function moveNativePool(f: SettlementFixture, sellEth: boolean, amount: bigint): Promise<void> {
  const usdc = f.token("USDC");
  const pool = nativePool(f);
  const { timestamp } = await f.publicClient.getBlock();
  const order: SwapOrder = {
    sellToken: sellEth ? NATIVE_TOKEN : usdc,
    sellAmount: amount,
    buyToken: sellEth ? usdc : NATIVE_TOKEN,
    minBuyAmount: 1n,
    recipient: f.stranger.account.address,
    deadline: timestamp + 600n,
    quoteId: `0x${"5e".repeat(32)}`,
    actions: encodeRouteActions([swapV4Hop(pool, sellEth ? usdc : NATIVE_TOKEN)]),
  };
  if (!sellEth) {
    await f.publicClient.waitForTransactionReceipt({ hash: await f.stranger.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [f.contracts.allowanceHolder, maxUint256] }) });
  }
  const hash = sellEth
    ? await f.stranger.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: amount })
    : await f.stranger.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) });
  expect((await f.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
}

/** Sends the quote's transaction from the taker (signing its permit when it has one) and returns what the recipient received of `buyToken`, and the gas used. */
async function settleQuote(f: SettlementFixture, quote: QuoteJson, buyToken: Address): Promise<{ received: bigint; gasUsed: bigint; fee: bigint }> {
  const recipient = f.recipient.account.address;
  const before = await balanceOf(f, buyToken, recipient);
  if (quote.issues.allowance !== null) {
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: quote.sell_token, abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender, maxUint256] }) });
  }
  let data = quote.tx.data;
  if (quote.permit2 !== undefined && quote.permit2 !== null) {
    data = patchSignature(data, quote.tx.signature_offset!, await f.signerOf(f.taker.account.address).signTypedData(quote.permit2 as unknown as Parameters<PrivateKeyAccount["signTypedData"]>[0]));
  }
  const hash = await f.taker.sendTransaction({ to: quote.tx.to, data, value: BigInt(quote.tx.value) });
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).to.equal("success");
  return { received: (await balanceOf(f, buyToken, recipient)) - before, gasUsed: receipt.gasUsed, fee: receipt.gasUsed * receipt.effectiveGasPrice };
}

/** The quote's gas estimate is within 15 % of what its transaction used, as for every other route shape (mixedVenueQuote.test.ts). */
function expectGasClose(quote: QuoteJson, used: bigint) {
  expect(quote.tx.estimated_gas / Number(used), `estimated_gas ${quote.tx.estimated_gas} vs gasUsed ${used}`).to.be.within(0.85, 1.15);
}

const actionTypes = (quote: QuoteJson) => decodeRouteActions(decodeQuoteOrder(quote.tx.data).order.actions).map((action) => action.type);

describe("Native ETH through a V4 pool (quotes settled on chain)", function () {
  this.timeout(300_000);
  after(closeSharedQuoteApis);

  const quoteOf = async (api: QuoteApi, params: Record<string, string | bigint>): Promise<NativeQuote> => {
    const { status, body } = await api.quote(params);
    expect(status, JSON.stringify(body)).to.equal(200);
    return body as NativeQuote;
  };
  const trusted = (f: SettlementFixture) => ({ routerRegistry: f.contracts.routerRegistry, allowanceHolder: f.contracts.allowanceHolder, permit2: f.contracts.permit2 });

  it("sells ETH for USDC through WETH pools (WRAP first) while the native pool pays less, and straight into the native pool (no WRAP, ETH paid as value) once it pays more; each settles for exactly buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const [usdc, weth] = [f.token("USDC"), lower(f.contracts.weth)];
    const pool = nativePool(f);
    const request = { sell_token: "ETH", buy_token: usdc, sell_amount: parseEther("2"), taker: f.taker.account.address, recipient: f.recipient.account.address };

    // The native pool's 0.30 % loses to the WETH/USDC pools' fees: the route wraps first.
    const wrapped = await quoteOf(api, request);
    expect(actionTypes(wrapped)[0]).to.equal("wrap");
    expect(wrapped.route.hops[0]!.token_in).to.equal(weth);
    expect(wrapped.route.hops.some((hop) => hop.pool === pool.id.toLowerCase())).to.equal(false);

    // Someone buys ETH in the native pool: it now pays more for ETH than the WETH pools, net of gas.
    await moveNativePool(f, false, parseUnits("100000", 6));
    const native = await quoteOf(api, request);
    expect(native.route.hops.map((hop) => [hop.source, hop.pool, hop.token_in, hop.token_out])).to.deep.equal([[V4, pool.id.toLowerCase(), zeroAddress, lower(usdc)]]);
    expect(native.route.hops[0]!.leg).to.equal(`uniswap-v4:chain-4663:${pool.id.toLowerCase()}:${pool.fee}`);
    expect(actionTypes(native)).to.deep.equal(["swapV4"]);
    expect(decodeQuoteOrder(native.tx.data).kind).to.equal("native");
    expect(native.tx.value).to.equal(parseEther("2").toString());
    // The SDK's check accepts the native route, and refuses it with a WRAP slipped in front (the JSON says none).
    const expectation = { taker: f.taker.account.address, recipient: f.recipient.account.address, sellToken: "ETH", buyToken: usdc, sellAmount: parseEther("2"), chainId: 4663 } as const;
    await verifyQuote(f.publicClient, trusted(f), native, expectation);
    const wrappedIn = withCall(native, (call) => ({ ...call, order: { ...call.order, actions: encodeRouteActions([{ type: "wrap" }, ...decodeRouteActions(call.order.actions)]) } }) as typeof call);
    const refused = await verifyQuote(f.publicClient, trusted(f), wrappedIn, expectation).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(QuoteMismatchError);
    expect((refused as QuoteMismatchError).field).to.equal("tx.data.order.actions");

    const { received, gasUsed } = await settleQuote(f, native, usdc);
    expect(received).to.equal(BigInt(native.buy_amount));
    expectGasClose(native, gasUsed);

    // excluded_sources=uniswap-v4 leaves the native pool out: back through WETH, WRAP first, settled to the wei.
    const without = await quoteOf(api, { ...request, excluded_sources: V4 });
    expect(actionTypes(without)[0]).to.equal("wrap");
    expect(without.route.hops.every((hop) => hop.source !== V4 && hop.token_in !== zeroAddress)).to.equal(true);
    expect((await settleQuote(f, without, usdc)).received).to.equal(BigInt(without.buy_amount));
  });

  it("buys ETH with USDC through WETH pools (UNWRAP last) while the native pool pays less, and straight out of the native pool (no UNWRAP, ETH paid by settlement) once it pays more; each settles for exactly buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const [usdc, weth] = [f.token("USDC"), lower(f.contracts.weth)];
    const pool = nativePool(f);
    const request = { sell_token: usdc, buy_token: "ETH", sell_amount: parseUnits("5000", 6), taker: f.taker.account.address, recipient: f.recipient.account.address };

    const unwrapped = await quoteOf(api, request);
    expect(actionTypes(unwrapped).at(-1)).to.equal("unwrap");
    expect(unwrapped.route.hops.at(-1)!.token_out).to.equal(weth);

    // Someone sells ETH into the native pool: it now sells ETH for less USDC than the WETH pools.
    await moveNativePool(f, true, parseEther("40"));
    const native = await quoteOf(api, request);
    expect(native.route.hops.map((hop) => [hop.source, hop.pool, hop.token_in, hop.token_out])).to.deep.equal([[V4, pool.id.toLowerCase(), lower(usdc), zeroAddress]]);
    expect(actionTypes(native)).to.deep.equal(["swapV4"]);
    expect(native.settlement).to.equal("permit2");
    const expectation = { taker: f.taker.account.address, recipient: f.recipient.account.address, sellToken: usdc, buyToken: "ETH", sellAmount: parseUnits("5000", 6), chainId: 4663 } as const;
    await verifyQuote(f.publicClient, trusted(f), native, expectation);
    const unwrapAdded = withCall(native, (call) => ({ ...call, order: { ...call.order, actions: encodeRouteActions([...decodeRouteActions(call.order.actions), { type: "unwrap" }]) } }) as typeof call);
    const refused = await verifyQuote(f.publicClient, trusted(f), unwrapAdded, expectation).then(() => undefined, (error: unknown) => error);
    expect(refused).to.be.instanceOf(QuoteMismatchError);

    const { received, gasUsed } = await settleQuote(f, native, NATIVE_TOKEN);
    expect(received).to.equal(BigInt(native.buy_amount));
    expectGasClose(native, gasUsed);

    const without = await quoteOf(api, { ...request, excluded_sources: V4 });
    expect(actionTypes(without).at(-1)).to.equal("unwrap");
    expect(without.route.hops.every((hop) => hop.source !== V4 && hop.token_out !== zeroAddress)).to.equal(true);
    expect((await settleQuote(f, without, NATIVE_TOKEN)).received).to.equal(BigInt(without.buy_amount));
  });

  it("gasless (feature 3): a quote buying ETH may end in the native pool too (no UNWRAP, the router pays the ETH), relayed and settled for exactly buy_amount; a gasless quote still cannot sell native ETH", async () => {
    const f = await loadFixture(gaslessReadyFixture);
    const stack = await startGaslessStack(f);
    try {
      const taker = f.signerOf(f.taker.account.address);
      const pool = nativePool(f);
      await moveNativePool(f, true, parseEther("40"));
      // Every venue (the stack's quotes default to Uniswap V2 alone).
      const { status, body } = await stack.gaslessQuote(taker.address, { sell_token: f.token("USDC"), buy_token: "ETH", sell_amount: parseUnits("5000", 6), recipient: f.recipient.account.address, excluded_sources: "" });
      expect(status, JSON.stringify(body)).to.equal(200);
      const quote = body as NativeQuote;
      expect(quote.route.hops.map((hop) => [hop.source, hop.pool, hop.token_out])).to.deep.equal([[V4, pool.id.toLowerCase(), zeroAddress]]);
      expect(actionTypes(quote)).to.deep.equal(["swapV4"]);
      const before = await balanceOf(f, NATIVE_TOKEN, f.recipient.account.address);
      const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(body as { permit2: Parameters<typeof stack.sign>[0]["permit2"] }, taker) });
      expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
      const relay = await stack.waitFor(submitted.body!.relay_id);
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect((await balanceOf(f, NATIVE_TOKEN, f.recipient.account.address)) - before).to.equal(BigInt(quote.buy_amount));

      // Permit2 moves ERC-20s only: selling ETH gaslessly is refused as before, native pool or not.
      const sell = await stack.gaslessQuote(taker.address, { sell_token: "ETH", buy_token: f.token("USDC"), sell_amount: parseEther("1"), excluded_sources: "" });
      expect(sell.status, JSON.stringify(sell.body)).to.equal(400);
      expect(JSON.stringify(sell.body)).to.include("permit2_owner");
    } finally {
      await stack.close();
    }
  });

  it("exact output: buys exactly buy_amount of USDC with ETH through WETH pools (WRAP first) while the native pool asks more, and straight from the native pool (no WRAP, the unspent ETH refunded) once it asks less; each for exactly the quoted sell_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const usdc = f.token("USDC");
    const pool = nativePool(f);
    const buyAmount = parseUnits("2000", 6);
    const request = { sell_token: "ETH", buy_token: usdc, buy_amount: buyAmount, taker: f.taker.account.address, recipient: f.recipient.account.address };
    const exactActions = (quote: QuoteJson) => decodeRouteActions(decodeExactOutputQuoteOrder(quote.tx.data).order.actions).map((action) => action.type);

    const wrapped = await quoteOf(api, request);
    expect(exactActions(wrapped)[0]).to.equal("wrap");
    expect(wrapped.route.hops.some((hop) => hop.pool === pool.id.toLowerCase())).to.equal(false);

    await moveNativePool(f, false, parseUnits("100000", 6));
    const native = await quoteOf(api, request);
    expect(native.route.hops.map((hop) => [hop.source, hop.pool, hop.token_in, hop.token_out])).to.deep.equal([[V4, pool.id.toLowerCase(), zeroAddress, lower(usdc)]]);
    expect(exactActions(native)).to.deep.equal(["swapV4"]);
    expect(decodeExactOutputQuoteOrder(native.tx.data).kind).to.equal("native");
    expect(native.tx.value).to.equal(native.max_sell_amount);
    expect(BigInt(native.max_sell_amount!) > BigInt(native.sell_amount)).to.equal(true);
    // The native route asks less ETH than the wrapped one did before the pool moved.
    expect(BigInt(native.sell_amount) < BigInt(wrapped.sell_amount)).to.equal(true);
    await verifyQuote(f.publicClient, trusted(f), native, { taker: f.taker.account.address, recipient: f.recipient.account.address, sellToken: "ETH", buyToken: usdc, buyAmount, chainId: 4663 });

    const ethBefore = await balanceOf(f, NATIVE_TOKEN, f.taker.account.address);
    const { received, gasUsed, fee } = await settleQuote(f, native, usdc);
    expect(received).to.equal(buyAmount);
    // The pool took exactly the quoted sell_amount; the rest of tx.value came back in the same transaction.
    expect(ethBefore - (await balanceOf(f, NATIVE_TOKEN, f.taker.account.address))).to.equal(BigInt(native.sell_amount) + fee);
    expectGasClose(native, gasUsed);
  });

  it("exact output: buys exactly buy_amount of ETH with USDC straight out of the native pool (no UNWRAP) once it asks less USDC than the WETH pools, for exactly the quoted sell_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const usdc = f.token("USDC");
    const pool = nativePool(f);
    const buyAmount = parseEther("1");
    const request = { sell_token: usdc, buy_token: "ETH", buy_amount: buyAmount, taker: f.taker.account.address, recipient: f.recipient.account.address, settlement: "allowance" };
    const exactActions = (quote: QuoteJson) => decodeRouteActions(decodeExactOutputQuoteOrder(quote.tx.data).order.actions).map((action) => action.type);

    const unwrapped = await quoteOf(api, request);
    expect(exactActions(unwrapped).at(-1)).to.equal("unwrap");

    await moveNativePool(f, true, parseEther("40"));
    const native = await quoteOf(api, request);
    expect(native.route.hops.map((hop) => [hop.source, hop.pool, hop.token_in, hop.token_out])).to.deep.equal([[V4, pool.id.toLowerCase(), lower(usdc), zeroAddress]]);
    expect(exactActions(native)).to.deep.equal(["swapV4"]);

    const sellBefore = await balanceOf(f, usdc, f.taker.account.address);
    const { received, gasUsed } = await settleQuote(f, native, NATIVE_TOKEN);
    expect(received).to.equal(buyAmount);
    expect(sellBefore - (await balanceOf(f, usdc, f.taker.account.address))).to.equal(BigInt(native.sell_amount));
    expectGasClose(native, gasUsed);
  });

  it("buys exactly buy_amount of USDT through the V4 pool that wins the hop (SWAP_V4 run backwards), for exactly the quoted sell_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const [usdc, usdt] = [f.token("USDC"), f.token("USDT")];
    const buyAmount = parseUnits("5000", 6);
    const { status, body } = await api.quote({ sell_token: usdc, buy_token: usdt, buy_amount: buyAmount, taker: f.taker.account.address, recipient: f.recipient.account.address, settlement: "allowance" });
    expect(status, JSON.stringify(body)).to.equal(200);
    const quote = body as NativeQuote;
    expect(quote.route.hops.map((hop) => hop.source)).to.deep.equal([V4]);
    expect(decodeRouteActions(decodeExactOutputQuoteOrder(quote.tx.data).order.actions).map((action) => action.type)).to.deep.equal(["swapV4"]);
    const sellBefore = await balanceOf(f, usdc, f.taker.account.address);
    const { received, gasUsed } = await settleQuote(f, quote, usdt);
    expect(received).to.equal(buyAmount);
    // Run backwards from the quote's own block: the pool asked exactly the quoted sell_amount.
    expect(sellBefore - (await balanceOf(f, usdc, f.taker.account.address))).to.equal(BigInt(quote.sell_amount));
    expectGasClose(quote, gasUsed);
  });
});
