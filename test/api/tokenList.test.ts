import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, type Address } from "viem";
import { uniswapV2Venue, type DeploymentManifest, type ManifestPool } from "../../sdk";
import type { TokenOverride } from "../../api/store/store";
import { ChainSupportedTokens } from "../../api/tokens/chainSupportedTokens";
import { encodedTokenList, type TokenListBody } from "../../api/tokens/tokenList";
import { closeSharedQuoteApis, quoteReady, startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";

const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
  await closeSharedQuoteApis();
});

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, "0")}`);
const lower = (n: number) => address(n).toLowerCase() as Address;
const pool = (n: number, a: number, b: number): ManifestPool => {
  const [token0, token1] = lower(a) < lower(b) ? [address(a), address(b)] : [address(b), address(a)];
  return { address: address(n), token0, token1, type: "uniswap-v2", source: "uniswap-v2", feeBps: 30 };
};
const manifest: DeploymentManifest = {
  chainId: 4663,
  deployBlock: 0,
  deployBlockHash: `0x${"00".repeat(32)}`,
  contracts: {
    routerRegistry: address(900),
    permit2: address(901),
    weth: address(1),
    uniswapV2Factory: address(902),
    allowanceHolder: address(903),
    takerSwapRouter: address(904),
    gaslessSwapRouter: address(905),
  },
  venues: [uniswapV2Venue(address(902), 0)],
  tokens: [
    { symbol: "WETH", name: "Wrapped Ether", address: address(1), decimals: 18 },
    { symbol: "USDC", name: "USD Coin", address: address(2), decimals: 6 },
  ],
  pools: [pool(501, 1, 2)],
};
function added(n: number, status: "promoted" | "enabled", symbol: string): TokenOverride {
  const at = new Date(0);
  return { chainId: 4663, token: lower(n), status, source: status === "promoted" ? "demand" : "operator", symbol, decimals: 8, pool: pool(600 + n, n, 1), reason: undefined, chainRun: manifest.deployBlockHash, createdAt: at, updatedAt: at };
}
const bodyOf = (encoded: { json: Buffer }) => JSON.parse(encoded.json.toString("utf8")) as TokenListBody;

describe("GET /tokens: the token list", () => {
  it("lists every supported token with symbol, name, decimals, source and type; the snapshot keeps exactly its spec fields", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const list = await api.get("/tokens?chain_id=4663", {}, null);
    expect(list.status).to.equal(200);
    expect(list.headers.get("cache-control")).to.equal("public, max-age=15, stale-while-revalidate=60");
    const snapshot = await api.get("/tokens/supported-tokens?chain_id=4663", {}, null);
    expect(Object.keys(snapshot.body!).sort()).to.deep.equal(["addresses", "chain_id", "count", "schema_version", "snapshot_id"]);
    expect(list.body!.chain_id).to.equal(4663);
    expect(list.body!.count).to.equal(snapshot.body!.count);
    expect(list.body!.tokens.map((token: { address: string }) => token.address)).to.deep.equal(snapshot.body!.addresses);
    const bySymbol = new Map<string, Record<string, unknown>>(list.body!.tokens.map((token: { symbol: string }) => [token.symbol, token]));
    expect(bySymbol.get("USDC")).to.deep.equal({ address: f.token("USDC").toLowerCase(), symbol: "USDC", name: f.tokens.find((t) => t.symbol === "USDC")!.name, decimals: 6, source: "manifest", type: "stable" });
    expect(bySymbol.get("WETH")).to.include({ decimals: 18, source: "manifest", type: "standard" });
    expect(bySymbol.get("ETH")).to.deep.equal({ address: "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", symbol: "ETH", name: "Ether", decimals: 18, source: "manifest", type: "standard" });
  });

  it("answers If-None-Match with 304 and the same ETag, and a stale ETag with 200; refuses a bad chain_id with 400 naming it", async () => {
    const { api } = await loadFixture(quoteReady);
    const first = await api.get("/tokens", {}, null);
    const etag = first.headers.get("etag")!;
    expect(etag).to.match(/^W\/"0x[0-9a-f]{64}"$/);
    const again = await api.get("/tokens?chain_id=4663", { "if-none-match": etag }, null);
    expect(again.status).to.equal(304);
    expect(again.headers.get("etag")).to.equal(etag);
    expect(again.text).to.equal("");
    const stale = await api.get("/tokens", { "if-none-match": 'W/"0x00"' }, null);
    expect(stale.status).to.equal(200);
    for (const path of ["/tokens?chain_id=abc", "/tokens?chain_id=1&chain_id=2"]) {
      const bad = await api.get(path, {}, null);
      expect(bad.status, path).to.equal(400);
      expect(bad.body!.error).to.match(/^chain_id /);
    }
    expect((await api.get("/tokens?chain_id=999", {}, null)).body).to.include({ code: "unsupported_chain" });
  });

  it("has its own per-IP bucket at SNAPSHOT_RATE_LIMIT_PER_MINUTE: 429 tokens past it, 304s included", async () => {
    const { f } = await loadFixture(quoteReady);
    const api = await startQuoteApi(f, { snapshotRateLimitPerMinute: 2 });
    started.push(api);
    expect((await api.get("/tokens", {}, null)).status).to.equal(200);
    expect((await api.get("/tokens/supported-tokens", {}, null)).status, "the snapshot's bucket is separate").to.equal(200);
    const etag = (await api.get("/tokens", {}, null)).headers.get("etag")!;
    const limited = await api.get("/tokens", { "if-none-match": etag }, null);
    expect([limited.status, limited.body!.code, limited.body!.bucket]).to.deep.equal([429, "rate_limited", "tokens"]);
  });

  it("sources: operator-enabled and promoted tokens; a promoted look-alike USDC is not typed stable; the ETag changes exactly when the set does", () => {
    const tokens = new ChainSupportedTokens(4663, manifest);
    const before = encodedTokenList(4663, tokens.entries());
    expect(encodedTokenList(4663, tokens.entries())).to.equal(before);
    tokens.applyOverrides([added(7, "promoted", "USDC"), added(8, "enabled", "OPS")]);
    const after = encodedTokenList(4663, tokens.entries());
    expect(after.etag).to.not.equal(before.etag);
    const listed = new Map(bodyOf(after).tokens.map((token) => [token.address, token]));
    expect(listed.get(lower(7))).to.deep.equal({ address: lower(7), symbol: "USDC", name: "USDC", decimals: 8, source: "promoted", type: "standard" });
    expect(listed.get(lower(8))).to.include({ source: "operator", name: "OPS" });
    expect(listed.get(lower(2))).to.include({ source: "manifest", type: "stable", name: "USD Coin" });
    // The same decisions again: nothing rebuilt, the same encoding.
    tokens.applyOverrides([added(7, "promoted", "USDC"), added(8, "enabled", "OPS")]);
    expect(encodedTokenList(4663, tokens.entries())).to.equal(after);
  });
});
