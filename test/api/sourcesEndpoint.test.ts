import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { expect } from "chai";
import type { Address } from "viem";
import { sourcesJsonSchema, type SourcesJson } from "../../sdk";
import type { TokenOverride } from "../../api/store/store";
import { ChainSupportedTokens } from "../../api/tokens/chainSupportedTokens";
import { encodedSourceList, sourceListBody } from "../../api/venues/sourceList";
import { DEV_V3_POOLS } from "../../scripts/deploy/devnetV3Market";
import { DEV_V4_POOLS } from "../../scripts/deploy/devnetV4Market";
import { settlementFixture } from "../fixtures/settlementFixture";
import { fixtureManifest, startTradingApi, type TradingApi } from "../fixtures/tradingApi";

describe("GET /sources: the chain's liquidity venues", () => {
  const started: TradingApi[] = [];
  afterEach(async () => {
    for (const api of started.splice(0)) await api.close();
  });
  async function sourcesApi(overrides: Parameters<typeof startTradingApi>[1] = {}) {
    const f = await loadFixture(settlementFixture);
    const api = await startTradingApi(f, overrides);
    started.push(api);
    return { f, api };
  }

  it("lists 0x's source names and every venue with its type, pool count and fee tiers, as the manifest deployed them", async () => {
    const { api } = await sourcesApi();
    const response = await api.request("GET", "/sources?chain_id=4663");
    expect(response.status).to.equal(200);
    const body = sourcesJsonSchema.parse(response.body) as SourcesJson;
    expect(Object.keys(response.body)).to.deep.equal(["chain_id", "sources", "venues"]);
    expect(body.chain_id).to.equal(4663);
    expect(body.sources).to.deep.equal(["uniswap-v2", "uniswap-v3", "forkswap-v3", "dev-propamm", "uniswap-v4"]);
    const v3Count = (venue: string) => DEV_V3_POOLS.filter((pool) => pool.venue === venue).length;
    expect(body.venues).to.deep.equal([
      { name: "uniswap-v2", type: "uniswap-v2", pools: 8, fee_tiers: [{ fee: 3000 }] },
      {
        name: "uniswap-v3",
        type: "uniswap-v3",
        pools: v3Count("uniswap-v3"),
        fee_tiers: [
          { fee: 500, tick_spacing: 10 },
          { fee: 3000, tick_spacing: 60 },
          { fee: 10000, tick_spacing: 200 },
        ],
      },
      {
        name: "forkswap-v3",
        type: "uniswap-v3",
        pools: v3Count("forkswap-v3"),
        fee_tiers: [
          { fee: 500, tick_spacing: 10 },
          { fee: 3000, tick_spacing: 60 },
          { fee: 10000, tick_spacing: 200 },
          { fee: 2500, tick_spacing: 50 },
          { fee: 100, tick_spacing: 1 },
        ],
      },
      { name: "dev-propamm", type: "propamm", pools: 1, fee_tiers: [] },
      {
        name: "uniswap-v4",
        type: "uniswap-v4",
        // Its pools of two supported currencies, the native-ETH pool too (native ETH is always supported); every (fee, tick spacing) its pools use.
        pools: DEV_V4_POOLS.length,
        fee_tiers: [...new Map(DEV_V4_POOLS.map((pool) => [`${pool.fee}:${pool.tickSpacing}`, { fee: pool.fee, tick_spacing: pool.tickSpacing }])).values()].sort((a, b) => a.fee - b.fee || a.tick_spacing - b.tick_spacing),
      },
    ]);
    expect(response.headers.get("cache-control")).to.equal("public, max-age=15, stale-while-revalidate=60");
  });

  it("serves the default chain without chain_id, answers If-None-Match with 304, and refuses a bad chain_id with 400 naming it", async () => {
    const { api } = await sourcesApi();
    const first = await api.request("GET", "/sources");
    expect(first.status).to.equal(200);
    expect(first.text).to.equal((await api.request("GET", "/sources?chain_id=4663")).text);
    const etag = first.headers.get("etag")!;
    expect(etag).to.match(/^W\/"0x[0-9a-f]{64}"$/);
    const again = await api.request("GET", "/sources?chain_id=4663", { headers: { "if-none-match": etag } });
    expect([again.status, again.text, again.headers.get("etag")]).to.deep.equal([304, "", etag]);
    for (const bad of ["abc", "0", "-1", "1.5", "0x1237", "99999999999999999999", ""]) {
      const response = await api.request("GET", `/sources?chain_id=${bad}`);
      expect(response.status, bad).to.equal(400);
      expect(response.body, bad).to.include({ code: "invalid_request" });
      expect(response.body.error, bad).to.match(/^chain_id /);
    }
    for (const path of ["/sources?chain_id=4663&chain_id=4663", "/sources?chain_id[a]=1"]) {
      const response = await api.request("GET", path);
      expect([response.status, response.body.code], path).to.deep.equal([400, "invalid_request"]);
      expect(response.body.error, path).to.match(/^chain_id/);
    }
    const unknown = await api.request("GET", "/sources?chain_id=999");
    expect([unknown.status, unknown.body.code]).to.deep.equal([400, "unsupported_chain"]);
    expect(unknown.body.error).to.match(/^chain_id 999 /);
  });

  it("has its own per-IP bucket at SNAPSHOT_RATE_LIMIT_PER_MINUTE: 429 sources past it, 304s included", async () => {
    const { api } = await sourcesApi({ snapshotRateLimitPerMinute: 2 });
    expect((await api.request("GET", "/sources")).status).to.equal(200);
    expect((await api.request("GET", "/tokens")).status, "the token list's bucket is separate").to.equal(200);
    const etag = (await api.request("GET", "/sources")).headers.get("etag")!;
    const limited = await api.request("GET", "/sources", { headers: { "if-none-match": etag } });
    expect([limited.status, limited.body.code, limited.body.bucket]).to.deep.equal([429, "rate_limited", "sources"]);
  });

  it("counts only the pools routing uses: a disabled token's pools leave every venue's count, and the ETag changes with them", async () => {
    const f = await loadFixture(settlementFixture);
    const manifest = await fixtureManifest(f);
    const tokens = new ChainSupportedTokens(4663, manifest);
    const before = encodedSourceList(4663, manifest.venues, tokens.venuePools());
    expect(encodedSourceList(4663, manifest.venues, tokens.venuePools())).to.equal(before);
    const link = f.token("LINK");
    const at = new Date(0);
    const disabled: TokenOverride = {
      chainId: 4663,
      token: link.toLowerCase() as Address,
      status: "disabled",
      source: "operator",
      symbol: undefined,
      decimals: undefined,
      pool: undefined,
      reason: "test",
      chainRun: manifest.deployBlockHash,
      createdAt: at,
      updatedAt: at,
    };
    expect(tokens.applyOverrides([disabled])).to.equal(true);
    const counts = (body: SourcesJson) => Object.fromEntries(body.venues.map((venue) => [venue.name, venue.pools]));
    const touchesLink = (pool: { token0: Address; token1: Address }) => pool.token0 === link || pool.token1 === link;
    const expected = Object.fromEntries(manifest.venues.map((venue) => [venue.name, manifest.pools.filter((pool) => pool.source === venue.name && !touchesLink(pool)).length]));
    expect(counts(sourceListBody(4663, manifest.venues, tokens.venuePools()))).to.deep.equal(expected);
    expect(expected["uniswap-v3"]).to.be.lessThan(manifest.pools.filter((pool) => pool.source === "uniswap-v3").length);
    expect(tokens.pools().every((pool) => pool.type === "uniswap-v2"), "pools() stays the V2 pools").to.equal(true);
    expect(encodedSourceList(4663, manifest.venues, tokens.venuePools()).etag).to.not.equal(before.etag);
  });
});
