import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress, parseUnits, zeroAddress, type Address, type Hex } from "viem";
import { decodeRouteActions, encodeRouteActions, readRouterPoolManager, routeOutput, v4HookExclusion, v4HopPoolKey, v4PoolId, type DeploymentManifest, type ManifestPool, type ManifestVenuePool, type V4Hop } from "../../sdk";
import { v4HookAllowlistPath, writeV4HookAllowlist } from "../../sdk/chain/v4HookAllowlist";
import { ChainHead } from "../../sdk/chain/chainHead";
import { marketTrackerOfManifest } from "../../api/quote/market/chainMarket";
import type { MarketPools } from "../../api/quote/market/marketTracker";
import { marketWhere, marketWithoutSources } from "../../api/quote/market/marketView";
import type { PoolSnapshot } from "../../api/quote/market/poolState";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";
import { actionsOfLegs } from "../../api/quote/routing/routePlan";
import { bestExecution } from "../../api/quote/routing/splitDecision";
import { FollowedV4HookAllowlist } from "../../api/quote/venues/uniswapV4/followedHookAllowlist";
import type { V4RoutedPool } from "../../api/quote/venues/uniswapV4/v4Adapter";
import { adapterOf, legName } from "../../api/quote/venues/venueAdapters";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";

const V4 = "uniswap-v4";
const GAS_PRICE = 1_000_000_000n;
const lower = (address: Address) => address.toLowerCase() as Address;

/**
 * The devnet's market (V2, V3, propAMM and the V4 market deployDevnet put in the PoolManager) as the
 * API builds it (chainMarket.ts), over the fixture's manifest with its `uniswapV4` part; the fixture's
 * routers execute SWAP_V4 (`poolManager()` names the manifest's PoolManager). `withoutV4` reads them as
 * routers built before the V4 action read (no PoolManager in their venue set).
 */
async function marketOf(f: SettlementFixture, options: { withoutV4?: boolean; hooks?: FollowedV4HookAllowlist }) {
  const manifest: DeploymentManifest = { ...(await fixtureManifest(f)), uniswapV4: f.uniswapV4 };
  const tracker = marketTrackerOfManifest(f.publicClient, manifest, {
    isSupported: () => true,
    observeReads: () => undefined,
    decimalsOf: (token) => manifest.tokens.find((candidate) => lower(candidate.address) === token)?.decimals ?? 18,
    v4Hooks: options.hooks,
    routerVenues: options.withoutV4 ? (active) => ({ at: async (client, head) => ({ ...(await active.at(client, head)), v4PoolManager: undefined }) }) : undefined,
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

  it("with SWAP_V4 on every router, lists the V4 pools the hook rule admits: plain pools yes; the observing hook (afterSwap), the delta hook and native ETH pools no", async () => {
    const f = await loadFixture(settlementFixture);
    const { snapshot } = await marketOf(f, {});
    const market = await snapshot();
    const routed = new Map(v4PoolsOf(market).map((pool) => [pool.address, pool]));
    const hooks = new Map((f.uniswapV4.hooks ?? []).map((hook) => [lower(hook.address), hook.name]));
    for (const pool of f.uniswapV4.pools) {
      const id = pool.id.toLowerCase() as Address;
      const exclusion = v4HookExclusion(pool);
      const native = pool.currency0 === zeroAddress;
      expect(routed.has(id), `${id} (hook ${hooks.get(lower(pool.hooks)) ?? "none"}, native ${native})`).to.equal(exclusion === undefined && !native);
      if (routed.has(id)) {
        const routedPool = routed.get(id)!;
        expect(routedPool.source).to.equal(V4);
        expect(routedPool.state.id).to.equal(pool.id.toLowerCase());
        expect(legName(routedPool, 4663)).to.equal(`uniswap-v4:chain-4663:${pool.id.toLowerCase()}:${pool.fee}`);
      }
    }
    // An observing hook (afterSwap only) still runs code in every swap: not routed until allowlisted.
    const observer = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "swap-hook");
    expect(observer, "the devnet has an observing-hook pool").to.not.equal(undefined);
    expect(routed.has(observer!.id.toLowerCase() as Address)).to.equal(false);
    const delta = f.uniswapV4.pools.find((pool) => v4HookExclusion(pool) === "returns-delta");
    expect(delta, "the devnet has a delta-hook pool").to.not.equal(undefined);
    expect(routed.has(delta!.id.toLowerCase() as Address)).to.equal(false);
  });

  it("a V4 pool with a better fee wins the hop (USDC → USDT), its actions are SWAP_V4 with the pool's key, the SDK prices them to the wei; excluded_sources and exact-output quotes leave V4 out", async () => {
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

    // Exact-output quotes plan over the pools whose adapter prices backwards (exactOutputPlan.ts): no V4 pool until the routers' backward pass takes SWAP_V4.
    const exactOutputMarket = marketWhere(market, (candidate) => adapterOf(candidate).exactOutput);
    expect(v4PoolsOf(exactOutputMarket)).to.deep.equal([]);
    expect([...exactOutputMarket.pools.values()].some((candidate) => candidate.kind === "v3")).to.equal(true);
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
