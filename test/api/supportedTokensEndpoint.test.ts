import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { request as httpRequest } from "node:http";
import { gunzipSync } from "node:zlib";
import { snapshotEncodingsComputed } from "../../api/tokens/encodedSnapshot";
import { settlementFixture } from "../fixtures/settlementFixture";
import { startTradingApi, type TradingApi } from "../fixtures/tradingApi";

const NATIVE = `0x${"e".repeat(40)}`;
const PATH = "/tokens/supported-tokens?chain_id=4663";

/** A GET through node:http, so the raw (still compressed) bytes are visible; fetch would decompress them. */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "GET", headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe("GET /tokens/supported-tokens", () => {
  let api: TradingApi;
  let manifestAddresses: string[];
  beforeEach(async () => {
    const f = await loadFixture(settlementFixture);
    api = await startTradingApi(f);
    manifestAddresses = f.tokens.map((token) => token.address.toLowerCase());
  });
  afterEach(() => api.close());

  it("returns the snapshot: schema_version 1, the chain, lowercase sorted addresses with the native placeholder, and count = addresses.length", async () => {
    const response = await api.request("GET", PATH);
    expect(response.status).to.equal(200);
    const body = response.body as { schema_version: number; chain_id: number; snapshot_id: string; count: number; addresses: string[] };
    expect(Object.keys(body)).to.deep.equal(["schema_version", "chain_id", "snapshot_id", "count", "addresses"]);
    expect(body.schema_version).to.equal(1);
    expect(body.chain_id).to.equal(4663);
    expect(body.snapshot_id).to.match(/^0x[0-9a-f]{64}$/);
    expect(body.count).to.equal(body.addresses.length);
    expect(body.addresses).to.deep.equal([...body.addresses].sort());
    for (const address of body.addresses) expect(address).to.match(/^0x[0-9a-f]{40}$/);
    expect(body.addresses).to.include(NATIVE);
    expect(body.addresses).to.have.members([NATIVE, ...manifestAddresses]);
    expect(response.headers.get("content-type")).to.equal("application/json; charset=utf-8");
  });

  it("serves the default chain when chain_id is omitted", async () => {
    const withChain = await api.request("GET", PATH);
    const without = await api.request("GET", "/tokens/supported-tokens");
    expect(without.status).to.equal(200);
    expect(without.text).to.equal(withChain.text);
  });

  it("sends a weak ETag derived from snapshot_id, stable across requests, with the cache headers of the spec", async () => {
    const first = await api.request("GET", PATH);
    const second = await api.request("GET", PATH);
    const etag = first.headers.get("etag");
    expect(etag).to.equal(`W/"${first.body.snapshot_id}"`);
    expect(second.headers.get("etag")).to.equal(etag);
    expect(first.headers.get("cache-control")).to.equal("public, max-age=15, stale-while-revalidate=60");
    expect(first.headers.get("vary")).to.equal("Accept-Encoding");
  });

  it("answers a matching If-None-Match with 304, the same ETag, the cache headers and no body", async () => {
    const etag = (await api.request("GET", PATH)).headers.get("etag")!;
    for (const header of [etag, etag.replace(/^W\//, ""), `"other", ${etag}`, "*"]) {
      const response = await rawGet(`${api.url}${PATH}`, { "If-None-Match": header, "Accept-Encoding": "gzip" });
      expect(response.status, header).to.equal(304);
      expect(response.headers.etag).to.equal(etag);
      expect(response.headers["cache-control"]).to.equal("public, max-age=15, stale-while-revalidate=60");
      expect(response.body.length).to.equal(0);
    }
    const stale = await api.request("GET", PATH, { headers: { "If-None-Match": 'W/"0xdeadbeef"' } });
    expect(stale.status).to.equal(200);
    expect(stale.body.count).to.be.greaterThan(0);
  });

  it("sends gzip when the client accepts it, and the compressed bytes decode to the same body", async () => {
    const plain = await rawGet(`${api.url}${PATH}`);
    expect(plain.headers["content-encoding"]).to.equal(undefined);
    const gzipped = await rawGet(`${api.url}${PATH}`, { "Accept-Encoding": "gzip, deflate, br" });
    expect(gzipped.status).to.equal(200);
    expect(gzipped.headers["content-encoding"]).to.equal("gzip");
    expect(Number(gzipped.headers["content-length"])).to.equal(gzipped.body.length);
    expect(gunzipSync(gzipped.body).equals(plain.body)).to.equal(true);
    expect(gzipped.body.length).to.be.lessThan(plain.body.length);
    const refused = await rawGet(`${api.url}${PATH}`, { "Accept-Encoding": "gzip;q=0" });
    expect(refused.headers["content-encoding"]).to.equal(undefined);
  });

  it("encodes and compresses each snapshot version once, not per request", async () => {
    await rawGet(`${api.url}${PATH}`, { "Accept-Encoding": "gzip" });
    const before = snapshotEncodingsComputed();
    const bodies = await Promise.all(Array.from({ length: 5 }, () => rawGet(`${api.url}${PATH}`, { "Accept-Encoding": "gzip" })));
    expect(snapshotEncodingsComputed()).to.equal(before);
    for (const response of bodies) expect(response.body.equals(bodies[0]!.body)).to.equal(true);
  });

  it("refuses an unknown chain_id with 400 unsupported_chain, and a malformed one with 400 invalid_request, both naming chain_id", async () => {
    const unknown = await api.request("GET", "/tokens/supported-tokens?chain_id=1");
    expect(unknown.status).to.equal(400);
    expect(unknown.body.code).to.equal("unsupported_chain");
    expect(unknown.body.error).to.match(/chain_id 1 /).and.to.match(/4663/);
    for (const bad of ["abc", "0", "-1", "1.5", "0x1237", "99999999999999999999", "", "4663&chain_id=4663"]) {
      const response = await api.request("GET", `/tokens/supported-tokens?chain_id=${bad}`);
      expect(response.status, bad).to.equal(400);
      expect(response.body.code, bad).to.equal("invalid_request");
      expect(response.body.error, bad).to.match(/^chain_id /);
    }
  });

  it("refuses nested and repeated parameters with 400 naming them, as every endpoint does, but ignores other plain ones", async () => {
    for (const [query, named] of [["chain_id[a]=1", "chain_id[a]"], ["chain_id=4663&chain_id=4663", "chain_id"], ["t[x]=1", "t[x]"], ["t=1&t=2", "t"]]) {
      const response = await api.request("GET", `/tokens/supported-tokens?${query}`);
      expect(response.status, query).to.equal(400);
      expect(response.body.code, query).to.equal("invalid_request");
      expect(response.body.error, query).to.match(new RegExp(`^${named!.replace(/[[\]]/g, "\\$&")} `));
    }
    expect((await api.request("GET", "/tokens/supported-tokens?t=123")).status, "a cache buster").to.equal(200);
  });

  it("needs no API key", async () => {
    const response = await api.request("GET", PATH, { headers: { Authorization: "Bearer not-a-key" } });
    expect(response.status).to.equal(200);
  });
});

describe("GET /tokens/supported-tokens rate limit", () => {
  it("answers 429 rate_limited with the snapshot bucket and Retry-After once the per-IP allowance is spent, 304s included", async () => {
    const f = await loadFixture(settlementFixture);
    const api = await startTradingApi(f, { snapshotRateLimitPerMinute: 3 });
    try {
      const etag = (await api.request("GET", PATH)).headers.get("etag")!;
      expect((await api.request("GET", PATH, { headers: { "If-None-Match": etag } })).status).to.equal(304);
      expect((await api.request("GET", PATH)).status).to.equal(200);
      const limited = await api.request("GET", PATH);
      expect(limited.status).to.equal(429);
      expect(limited.body).to.include({ code: "rate_limited", bucket: "snapshot" });
      expect(limited.body.error).to.match(/snapshot/);
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).to.be.within(1, 60);
      expect(Number.isInteger(retryAfter)).to.equal(true);
    } finally {
      await api.close();
    }
  });
});
