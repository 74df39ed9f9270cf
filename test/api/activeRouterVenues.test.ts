import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { createPublicClient, custom, getContract, type Address, type PublicClient } from "viem";
import { Feature, type ManifestPool, type ManifestVenuePool } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { uniswapV3VenueAbi } from "../../sdk/abis/uniswapV3VenueAbi";
import { marketTrackerOfManifest } from "../../api/quote/market/chainMarket";
import type { MarketPools } from "../../api/quote/market/marketTracker";
import { ActiveRouterVenues, type RouterVenueSet } from "../../api/quote/venues/activeRouterVenues";
import { isV2Pool } from "../../api/quote/venues/pricedPool";
import { deployGaslessSwapRouter, deployTakerSwapRouter, migrateFeature } from "../../scripts/deploy/deploySettlement";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest } from "../fixtures/tradingApi";
import { createApiMetrics } from "../../api/metrics/apiMetrics";
import { RouterVenuesOutage } from "../../api/quote/venues/routerVenuesOutage";
import pino from "pino";

const lower = (address: Address) => address.toLowerCase() as Address;

/**
 * A client over the in-process chain that records the JSON-RPC methods it sends, and that answers an
 * `eth_call` to any address in `limited`, or any request `refuse.when` picks, as a rate-limited node
 * would (JSON-RPC error -32005).
 */
function recordingClient(f: SettlementFixture) {
  const methods: string[] = [];
  const limited = new Set<string>();
  const refuse: { when?: (method: string, params: unknown) => boolean } = {};
  const client = createPublicClient({
    chain: f.publicClient.chain,
    transport: custom({
      request: ({ method, params }: { method: string; params?: unknown }) => {
        methods.push(method);
        const to = method === "eth_call" ? ((params as [{ to?: string }])[0]?.to ?? "").toLowerCase() : "";
        if (limited.has(to) || refuse.when?.(method, params) === true) return Promise.reject(Object.assign(new Error("rate limit exceeded"), { code: -32005 }));
        return hre.network.provider.request({ method, params: params as unknown[] | undefined });
      },
    }),
  }) as unknown as PublicClient;
  return { client, methods, limited, refuse };
}

/** The venues as the API follows them for the fixture's chain (chainMarket.ts wires the same). */
async function followed(f: SettlementFixture) {
  const manifest = await fixtureManifest(f);
  const venues = new ActiveRouterVenues({
    registry: manifest.contracts.routerRegistry,
    features: [Feature.TakerSubmittedSwap, Feature.GaslessSwap],
    v3Venues: manifest.venues.flatMap((venue) => (venue.type === "uniswap-v3" ? [venue] : [])),
    propAmmNames: new Map((manifest.propAmms ?? []).map((propAmm) => [propAmm.address, propAmm.name])),
  });
  const { client, methods, limited } = recordingClient(f);
  const heads = new ChainHead(f.publicClient);
  /** The set at a fresh head, and the RPC methods reading it took. */
  const at = async (): Promise<{ set: RouterVenueSet; methods: string[] }> => {
    const head = await heads.fresh();
    methods.length = 0;
    const set = await venues.at(client, head);
    return { set, methods: [...methods] };
  };
  return { manifest, at, limited };
}

function allowlistOf(f: SettlementFixture) {
  const address = f.contracts.propAmmAllowlist;
  if (address === undefined) throw new Error("expected the devnet's propAMM allowlist");
  return getContract({ address, abi: propAmmAllowlistAbi, client: { public: f.publicClient, wallet: f.deployer } });
}

async function send(f: SettlementFixture, hash: Promise<`0x${string}`>) {
  await f.publicClient.waitForTransactionReceipt({ hash: await hash });
}

/** Each named V3 venue's index in `router`'s own table, read with the router's ABI. */
async function tableOf(f: SettlementFixture, router: Address, venues: readonly { name: string; factory: Address }[]): Promise<Map<string, number>> {
  const count = await f.publicClient.readContract({ address: router, abi: uniswapV3VenueAbi, functionName: "v3VenueCount" });
  const factories = await Promise.all(Array.from({ length: Number(count) }, (_, index) => f.publicClient.readContract({ address: router, abi: uniswapV3VenueAbi, functionName: "v3Venue", args: [BigInt(index)] })));
  const indices = new Map<string, number>();
  for (const venue of venues) {
    const index = factories.findIndex(([factory]) => lower(factory) === lower(venue.factory));
    if (index >= 0) indices.set(venue.name, index);
  }
  return indices;
}

describe("The routers' venues (ActiveRouterVenues): taken from the registry's active routers, followed from events", function () {
  this.timeout(300_000);

  it("reads the active routers' V3 table and allowlist at the first head, then costs one eth_getLogs a head and keeps the same set while nothing changes", async () => {
    const f = await loadFixture(settlementFixture);
    const { manifest, at } = await followed(f);
    const first = await at();
    expect(first.set.routers).to.deep.equal([lower(f.contracts.takerSwapRouter), lower(f.contracts.gaslessSwapRouter)]);
    const v3Venues = manifest.venues.flatMap((venue) => (venue.type === "uniswap-v3" ? [venue] : []));
    expect(v3Venues.length, "the devnet has two V3 venues").to.equal(2);
    expect([...first.set.v3Index].sort()).to.deep.equal([...(await tableOf(f, f.contracts.takerSwapRouter, v3Venues))].sort());
    const pairs = (await allowlistOf(f).read.pairs()).map(lower).sort();
    expect(pairs.length, "the devnet allowlists its propAMM").to.be.greaterThan(0);
    expect([...first.set.pairs].sort()).to.deep.equal(pairs);
    expect(first.set.propAmms.map((venue) => venue.pair).sort()).to.deep.equal(pairs);
    expect(first.set.propAmms.map((venue) => venue.source)).to.deep.equal(first.set.propAmms.map((venue) => manifest.propAmms!.find((propAmm) => lower(propAmm.address) === venue.pair)!.name));
    expect(first.methods).to.include("eth_call");

    for (let block = 0; block < 3; block++) {
      await f.publicClient.request({ method: "evm_mine" } as never);
      const next = await at();
      expect(next.methods, "a head with no registry or allowlist event").to.deep.equal(["eth_getLogs"]);
      expect(next.set, "the same set object").to.equal(first.set);
    }
  });

  it("a router read the node refuses (a rate limit) is never taken as 'no V3 table, no allowlist': that head's read fails, nothing is kept, and the next head reads the venues", async () => {
    const f = await loadFixture(settlementFixture);
    const { at, limited } = await followed(f);
    limited.add(lower(f.contracts.takerSwapRouter));
    const refused = await at().then(
      () => "read",
      (error: Error) => error.message,
    );
    expect(refused).to.match(/rate limit exceeded/i);
    limited.clear();
    await f.publicClient.request({ method: "evm_mine" } as never);
    const { set } = await at();
    expect(set.v3Index.size, "both V3 venues route").to.equal(2);
    expect(set.pairs.size, "the allowlisted pairs are known").to.be.greaterThan(0);
  });

  it("follows the allowlist by its events: an added pair joins the pairs and propAMMs, a removed one leaves, with no read of the allowlist", async () => {
    const f = await loadFixture(settlementFixture);
    const { at } = await followed(f);
    const before = await at();
    const [link, dai, usdt] = [f.token("LINK"), f.token("DAI"), f.token("USDT")].map(lower) as [Address, Address, Address];
    expect(before.set.pairs.has(link)).to.equal(false);

    await send(f, allowlistOf(f).write.add([link, dai, usdt], { account: f.deployer.account }));
    const added = await at();
    expect(added.methods).to.deep.equal(["eth_getLogs"]);
    expect(added.set.pairs.has(link)).to.equal(true);
    expect(added.set.propAmms.find((venue) => venue.pair === link)).to.deep.equal({ pair: link, token0: dai, token1: usdt, source: "propamm" });

    await send(f, allowlistOf(f).write.remove([link], { account: f.deployer.account }));
    const removed = await at();
    expect(removed.methods).to.deep.equal(["eth_getLogs"]);
    expect(removed.set.pairs.has(link)).to.equal(false);
    expect(removed.set.propAmms.map((venue) => venue.pair)).to.deep.equal(before.set.propAmms.map((venue) => venue.pair));
  });

  it("re-reads when the registry activates a router: a V3 venue routes at the routers' own index, only while every active router agrees on it", async () => {
    const f = await loadFixture(settlementFixture);
    const { manifest, at } = await followed(f);
    const v3Venues = manifest.venues.flatMap((venue) => (venue.type === "uniswap-v3" ? [venue] : []));
    const before = await at();
    expect([...before.set.v3Index.values()].sort()).to.deep.equal([0, 1]);

    // New routers whose V3 table lists the chain file's venues in the other order.
    const reversed = [...v3Venues].reverse().map(({ factory, poolInitCodeHash }) => ({ factory, poolInitCodeHash }));
    const dependencies = { permit2: f.contracts.permit2, weth: f.contracts.weth, registry: f.contracts.routerRegistry, uniswapV2Factory: f.contracts.uniswapV2Factory, v3Venues: reversed, propAmmAllowlist: f.contracts.propAmmAllowlist };
    const taker = await deployTakerSwapRouter(hre, f, f.deployer, { ...dependencies, allowanceHolder: f.contracts.allowanceHolder });
    await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, Feature.TakerSubmittedSwap, taker);
    const split = await at();
    expect(split.methods, "the activation is read again").to.include("eth_call");
    expect(split.set.routers).to.deep.equal([lower(taker), lower(f.contracts.gaslessSwapRouter)]);
    expect(split.set.v3Index.size, "the two routers disagree on every venue's index").to.equal(0);
    expect(split.set.propAmms.length, "both still call the same allowlist").to.equal(before.set.propAmms.length);

    const gasless = await deployGaslessSwapRouter(hre, f, f.deployer, dependencies);
    await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, Feature.GaslessSwap, gasless);
    const agreed = await at();
    expect([...agreed.set.v3Index].sort()).to.deep.equal([...(await tableOf(f, taker, v3Venues))].sort());
    for (const [name, index] of before.set.v3Index) expect(agreed.set.v3Index.get(name), name).to.equal(1 - index);

    // A router version without V3 venues or propAMMs: nothing but V2 routes, yet the other router's pairs stay refused.
    const old = await deployTakerSwapRouter(hre, f, f.deployer, { ...dependencies, allowanceHolder: f.contracts.allowanceHolder }, "TakerSwapRouterV2");
    await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, Feature.TakerSubmittedSwap, old);
    const v2Only = await at();
    expect(v2Only.set.v3Index.size).to.equal(0);
    expect(v2Only.set.propAmms).to.deep.equal([]);
    expect([...v2Only.set.pairs].sort()).to.deep.equal([...before.set.pairs].sort());
  });
});

describe("The route graph leaves out every pool that touches an allowlisted propAMM pair", function () {
  this.timeout(300_000);

  it("drops the V2 pools of a token once it is allowlisted as a pair (so no route passes through it, even as an intermediate hop), and routes them again once it is removed", async () => {
    const f = await loadFixture(settlementFixture);
    const manifest = await fixtureManifest(f);
    const tracker = marketTrackerOfManifest(f.publicClient, manifest, { isSupported: () => true, observeReads: () => undefined, decimalsOf: () => 18 });
    const v2Pools: ManifestPool[] = manifest.pools.filter((pool): pool is ManifestPool => pool.type === "uniswap-v2");
    const venuePools: ManifestVenuePool[] = manifest.pools;
    const lists: MarketPools = { pools: () => v2Pools, venuePools: () => venuePools };
    const heads = new ChainHead(f.publicClient);
    const snapshot = async () => tracker.at(f.publicClient, await heads.fresh(), lists);
    const link = lower(f.token("LINK"));
    const touching = (market: Awaited<ReturnType<typeof snapshot>>) => [...market.pools.values()].filter((pool) => pool.token0 === link || pool.token1 === link);
    const neighbours = (market: Awaited<ReturnType<typeof snapshot>>) => [...new Set([...market.pools.values()].flatMap((pool) => [pool.token0, pool.token1]))].filter((token) => market.graph.between(link, token).length > 0);

    const before = await snapshot();
    const linkV2 = touching(before).filter(isV2Pool);
    expect(linkV2.length, "the devnet has V2 pools of LINK").to.be.greaterThan(0);
    expect(neighbours(before).length).to.be.greaterThan(0);

    await send(f, allowlistOf(f).write.add([link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }));
    const listed = await snapshot();
    expect(touching(listed), "no pool of any venue touches the pair").to.deep.equal([]);
    expect(neighbours(listed), "the graph joins the pair to nothing").to.deep.equal([]);
    expect(listed.graph.hubs).to.not.include(link);
    for (const pool of linkV2) expect(listed.pools.has(pool.address), pool.address).to.equal(false);
    // Every other pool still routes.
    for (const [address, pool] of before.pools) if (pool.token0 !== link && pool.token1 !== link) expect(listed.pools.has(address), address).to.equal(true);
    expect(await tracker.propAmmPairsAt(f.publicClient, await heads.fresh())).to.include(link);

    await send(f, allowlistOf(f).write.remove([link], { account: f.deployer.account }));
    const removed = await snapshot();
    expect(touching(removed).map((pool) => pool.address).sort()).to.deep.equal(touching(before).map((pool) => pool.address).sort());
  });

  it("a failed read of the routers' venues after a good one serves V2-only quotes (no V3, no propAMM; the known pairs still refused as tokens) with a warning, a counter and a gauge, and every venue again once they read", async () => {
    const f = await loadFixture(settlementFixture);
    const manifest = await fixtureManifest(f);
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const metrics = createApiMetrics();
    const outage = new RouterVenuesOutage(manifest.chainId, logger, metrics.routerVenues);
    const { client, refuse } = recordingClient(f);
    const tracker = marketTrackerOfManifest(client, manifest, { isSupported: () => true, observeReads: () => undefined, decimalsOf: () => 18, routerVenuesObserver: outage });
    const lists: MarketPools = { pools: () => manifest.pools.filter((pool): pool is ManifestPool => pool.type === "uniswap-v2"), venuePools: () => manifest.pools };
    const heads = new ChainHead(f.publicClient);
    // A new block each time: the set is kept per head.
    const snapshot = async () => {
      await f.publicClient.request({ method: "evm_mine" } as never);
      return tracker.at(client, await heads.fresh(), lists);
    };
    const link = lower(f.token("LINK"));
    const kinds = (market: Awaited<ReturnType<typeof snapshot>>) => ({
      v3: [...market.pools.values()].some((pool) => !isV2Pool(pool)),
      v2: [...market.pools.values()].some(isV2Pool),
      link: [...market.pools.values()].some((pool) => pool.token0 === link || pool.token1 === link),
    });
    const metric = async (name: string) => (await metrics.registry.getSingleMetric(name)!.get()).values.map(({ labels, value }) => ({ labels, value }));

    await send(f, allowlistOf(f).write.add([link, f.token("DAI"), f.token("USDT")], { account: f.deployer.account }));
    expect(kinds(await snapshot())).to.deep.equal({ v3: true, v2: true, link: false });

    // The node refuses the venue follower's logs (the registry's and the allowlists' events) only: the pools' own reads go on.
    const registry = lower(manifest.contracts.routerRegistry);
    refuse.when = (method, params) => method === "eth_getLogs" && JSON.stringify(params).toLowerCase().includes(registry);
    const degraded = await snapshot();
    expect(kinds(degraded), "V2 only; LINK, a pair at the last good read, still refused").to.deep.equal({ v3: false, v2: true, link: false });
    expect(await tracker.propAmmPairsAt(client, await heads.fresh())).to.include(link);
    expect(outage.since).to.be.instanceOf(Date);
    expect(await metric("api_router_venues_degraded")).to.deep.equal([{ labels: { chain_id: String(manifest.chainId) }, value: 1 }]);
    expect(await metric("api_router_venue_read_failures_total")).to.deep.equal([{ labels: { chain_id: String(manifest.chainId), fallback: "v2_only" }, value: 2 }]);
    expect(lines.filter((line) => line.level === 40).map((line) => line.msg)).to.deep.equal(["the active routers' venues cannot be read: quotes route V2 only (no V3, no propAMM) until they can"]);

    refuse.when = undefined;
    expect(kinds(await snapshot())).to.deep.equal({ v3: true, v2: true, link: false });
    expect(outage.since).to.equal(undefined);
    expect(await metric("api_router_venues_degraded")).to.deep.equal([{ labels: { chain_id: String(manifest.chainId) }, value: 0 }]);
    expect(lines.filter((line) => line.level === 30).map((line) => line.msg)).to.include("the active routers' venues read again: quotes route every venue");
  });
});
