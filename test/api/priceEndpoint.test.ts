import { expect } from "chai";
import Database from "better-sqlite3";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { formatEther, formatUnits, parseUnits } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { loadApiConfig } from "../../api/config";
import { createTradingClient } from "../../sdk";
import { createApiKey, viewProfile } from "../fixtures/onboardingApi";
import { closeSharedQuoteApis, quoteReady, startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";

const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
  await closeSharedQuoteApis();
});

/** A taker no test has quoted for: its Permit2 nonces start at 0 in this API's allocator. */
const freshTaker = () => privateKeyToAccount(generatePrivateKey()).address;

const path = (endpoint: "/quote" | "/price", params: Record<string, string | bigint | number>) =>
  `${endpoint}?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)])).toString()}`;

/** Quote records in the API's SQLite file, after the write buffer is flushed (a read flushes it). */
async function recordedQuotes(api: QuoteApi): Promise<number> {
  await api.store.findQuote("00000000-0000-4000-8000-000000000000");
  const db = new Database(api.dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM quotes").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe("GET /price: an indicative quote", () => {
  it("answers with the route, amounts, fees and gas of /quote at the same block, without quote_id, tx or permit2", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const params = { sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("2500", 6), taker: freshTaker(), fee_bps: 25 };
    const price = await api.get(path("/price", params));
    const quote = await api.quote(params);
    expect(price.status, JSON.stringify(price.body)).to.equal(200);
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    const { quote_id: quoteId, tx, permit2, ...priced } = quote.body!;
    expect(quoteId).to.be.a("string");
    expect(permit2, "an EOA selling an ERC20 settles by permit").to.not.equal(undefined);
    for (const firmOnly of ["quote_id", "tx", "permit2"]) expect(price.body, firmOnly).to.not.have.property(firmOnly);
    // The price is the quote without its firm parts, field for field (the nonce it priced with is the one the quote took).
    expect(price.body).to.deep.equal(priced);
    expect(price.body!.network_fee.gas).to.equal(String(tx.estimated_gas));
  });

  it("reserves no Permit2 nonce and records no quote (the store's quote table and the allocator are untouched)", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const params = { sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("10", 6), taker: freshTaker() };
    const first = await api.quote(params);
    expect(first.body!.permit2.nonce).to.equal("0");
    const before = await recordedQuotes(api);
    for (let index = 0; index < 5; index++) expect((await api.get(path("/price", params))).status).to.equal(200);
    expect(await recordedQuotes(api), "no quote records for prices").to.equal(before);
    // Had a price reserved the next free nonce, the next quote would have skipped past five of them.
    const second = await api.quote(params);
    expect(second.body!.permit2.nonce).to.equal("1");
    expect(await recordedQuotes(api)).to.equal(before + 1);
  });

  it("has its own per-key bucket: past price_rate_limit_per_minute a 429 naming price:read, while /quote still quotes", async () => {
    const { f } = await loadFixture(quoteReady);
    const api = await startQuoteApi(f, { defaultQuoteRateLimitPerMinute: 2, priceRateLimitMultiplier: 3 });
    started.push(api);
    const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6), taker: freshTaker() };
    for (let index = 0; index < 6; index++) {
      const price = await api.get(path("/price", params));
      expect(price.status, JSON.stringify(price.body)).to.equal(200);
      expect(price.headers.get("x-ratelimit-price-read-remaining")).to.equal(String(5 - index));
      expect(price.headers.get("x-ratelimit-quote-read-remaining"), "a price takes nothing from quote:read").to.equal(null);
    }
    const limited = await api.get(path("/price", params));
    expect(limited.status).to.equal(429);
    expect(limited.body).to.deep.include({ code: "rate_limited", bucket: "price:read" });
    expect(Number(limited.headers.get("retry-after"))).to.be.within(1, 60);
    const quote = await api.quote(params);
    expect(quote.status, JSON.stringify(quote.body)).to.equal(200);
    expect(quote.headers.get("x-ratelimit-quote-read-remaining")).to.equal("1");
    // The limit is shown with the key: in /integrators/me and when a key is created.
    const profile = await viewProfile(api, api.owner);
    expect(profile.body.integrators[0].api_keys[0]).to.include({ quote_rate_limit_per_minute: 2, price_rate_limit_per_minute: 6 });
    const created = await createApiKey(api, api.owner, api.integratorId, "second key");
    expect(created.body).to.include({ quote_rate_limit_per_minute: 2, price_rate_limit_per_minute: 6 });
  });

  it("the SDK client's getPrice asks GET /price and parses the body (no tx, no permit2)", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const client = createTradingClient({ apiUrl: api.url, apiKey: api.apiKey.secret, maxAttempts: 1 });
    try {
      const parameters = { sellToken: f.token("USDC"), buyToken: f.token("WETH"), sellAmount: parseUnits("50", 6), taker: freshTaker(), feeBps: 10 };
      const price = await client.getPrice(parameters);
      const quote = await client.getQuote(parameters);
      expect(price).to.not.have.any.keys("quote_id", "tx", "permit2");
      expect(price.buy_amount).to.equal(quote.buy_amount);
      expect(price.platform_fee.fees).to.have.length(1);
      expect(price.network_fee?.gas).to.equal(String(quote.tx.estimated_gas));
    } finally {
      client.close();
    }
  });

  it("the SDK client sends excludedSources as excluded_sources: excluding every venue leaves no route, an empty list changes nothing", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const client = createTradingClient({ apiUrl: api.url, apiKey: api.apiKey.secret, maxAttempts: 1 });
    try {
      const parameters = { sellToken: f.token("USDC"), buyToken: f.token("WETH"), sellAmount: parseUnits("50", 6), taker: freshTaker() };
      const price = await client.getPrice({ ...parameters, excludedSources: [] });
      expect(price.route.hops.length).to.be.greaterThan(0);
      let refused: unknown;
      await client.getPrice({ ...parameters, excludedSources: ["uniswap-v2", "uniswap-v3", "forkswap-v3", "dev-propamm", "uniswap-v4"] }).catch((error: unknown) => (refused = error));
      expect(String(refused)).to.include("no_route");
    } finally {
      client.close();
    }
  });

  it("PRICE_RATE_LIMIT_MULTIPLIER defaults to 5 (five times the quote limit)", () => {
    expect(loadApiConfig({}).priceRateLimitMultiplier).to.equal(5);
    expect(loadApiConfig({ PRICE_RATE_LIMIT_MULTIPLIER: "2" }).priceRateLimitMultiplier).to.equal(2);
    expect(() => loadApiConfig({ PRICE_RATE_LIMIT_MULTIPLIER: "0" })).to.throw(/PRICE_RATE_LIMIT_MULTIPLIER/);
  });

  it("refuses what /quote refuses with the same 400s, and both take from the one quote_probe bucket", async () => {
    const { api } = await loadFixture(quoteReady);
    const taker = freshTaker();
    const refused: Record<string, string | number | bigint>[] = [
      { sell_token: "0x00000000000000000000000000000000000b0b0b", buy_token: "WETH", sell_amount: 1000, taker },
      { sell_token: "USDC", buy_token: "USDC", sell_amount: 1000, taker },
      { sell_token: "USDC", buy_token: "WETH", sell_amount: "-1", taker },
      { sell_token: "USDC", buy_token: "WETH", sell_amount: 1000, taker, slippage_bps: 10_001 },
      { sell_token: "USDC", buy_token: "WETH", sell_amount: 1000, taker, fee_bps: 10, swap_fee_bps: 20 },
      { sell_token: "USDC", buy_token: "WETH", sell_amount: 1000, taker, unknown_parameter: 1 },
      { sell_token: "LINK", buy_token: "USDC", sell_amount: parseUnits("5", 18).toString(), taker, max_hops: 1 },
      { sell_token: "ETH", buy_token: "USDC", sell_amount: 1000, taker, settlement: "permit2" },
    ];
    let probeLeft: number | undefined;
    for (const params of refused) {
      const quote = await api.quote(params);
      const price = await api.get(path("/price", params));
      expect(quote.status, JSON.stringify(params)).to.equal(400);
      expect(price.status, JSON.stringify(params)).to.equal(400);
      expect(price.body, JSON.stringify(params)).to.deep.equal(quote.body);
      const quoteProbe = Number(quote.headers.get("x-ratelimit-quote-probe-remaining"));
      const priceProbe = Number(price.headers.get("x-ratelimit-quote-probe-remaining"));
      expect(priceProbe, "the price took the next point of the same probe bucket").to.equal(quoteProbe - 1);
      if (probeLeft !== undefined) expect(quoteProbe).to.equal(probeLeft - 1);
      probeLeft = priceProbe;
    }
    expect((await api.get(path("/price", { sell_token: "USDC", buy_token: "WETH", sell_amount: 1000, taker }), {}, null)).status).to.equal(401);
  });
});

describe("the live service's fee and issue fields (GET /quote and GET /price)", () => {
  it("network_fee: the gas of tx at the block's base fee plus the node's tip, in ETH, with no L1 term on the devnet", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("100", 6), taker: freshTaker() };
    const { status, body } = await api.quote(params);
    expect(status, JSON.stringify(body)).to.equal(200);
    const block = await f.publicClient.getBlock({ blockNumber: BigInt(body!.block_number) });
    const nodeTip = BigInt(await f.publicClient.request({ method: "eth_maxPriorityFeePerGas" }));
    const gasPrice = block.baseFeePerGas! + nodeTip;
    const amount = BigInt(body!.tx.estimated_gas) * gasPrice;
    expect(body!.network_fee).to.deep.equal({
      token: "0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE",
      symbol: "ETH",
      decimals: 18,
      gas: String(body!.tx.estimated_gas),
      gas_price: gasPrice.toString(),
      gas_price_gwei: formatUnits(gasPrice, 9),
      l1_fee: "0",
      amount: amount.toString(),
      amount_eth: formatEther(amount),
    });
  });

  it("L1_FEE_MODEL=arbitrum on the devnet, which has no ArbGasInfo: the L1 term is zero", async () => {
    const { f } = await loadFixture(quoteReady);
    const api = await startQuoteApi(f, { l1FeeModel: "arbitrum" });
    started.push(api);
    const { status, body } = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("100", 6), taker: freshTaker() });
    expect(status, JSON.stringify(body)).to.equal(200);
    expect(body!.network_fee.l1_fee).to.equal("0");
    expect(BigInt(body!.network_fee.amount)).to.equal(BigInt(body!.network_fee.gas) * BigInt(body!.network_fee.gas_price));
  });

  it("platform_fee.total_bps and fees[]: one destination-side entry for the integrator's fee, none without one; the old fields stay", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("1000", 6), taker: freshTaker() };
    const withFee = await api.get(path("/price", { ...params, fee_bps: 40 }));
    expect(withFee.status, JSON.stringify(withFee.body)).to.equal(200);
    const fee = withFee.body!.platform_fee;
    const weth = f.token("WETH").toLowerCase();
    expect(fee).to.deep.include({ token: weth, bps: 40, recipient: api.owner.address, total_bps: 40 });
    expect(fee.fees).to.deep.equal([
      { side: "destination", token: weth, symbol: "WETH", decimals: 18, bps: 40, amount: fee.amount, amount_decimal: formatUnits(BigInt(fee.amount), 18), recipient: api.owner.address },
    ]);
    expect(BigInt(fee.amount) > 0n).to.equal(true);
    const without = await api.get(path("/price", params));
    expect(without.body!.platform_fee).to.deep.include({ bps: 0, total_bps: 0, amount: "0", fees: [] });
  });

  it("issues.simulationIncomplete is false when every pool was read, and issues.invalidSourcesPassed is an empty list", async () => {
    const { api } = await loadFixture(quoteReady);
    const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6), taker: freshTaker() };
    for (const endpoint of ["/quote", "/price"] as const) {
      const { body } = await api.get(path(endpoint, params));
      expect(body!.issues, endpoint).to.deep.include({ simulationIncomplete: false, invalidSourcesPassed: [] });
      expect(body!.issues.balance, "the fresh taker holds no USDC").to.not.equal(null);
    }
  });

  it("each route hop names its venue (source), its pool as `<venue>:chain-<id>:<pool>:<fee>` and its gas; route_stats counts the pools priced per venue", async () => {
    const { api } = await loadFixture(quoteReady);
    const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("2500", 6), taker: freshTaker() };
    for (const endpoint of ["/quote", "/price"] as const) {
      const { status, body } = await api.get(path(endpoint, params));
      expect(status, JSON.stringify(body)).to.equal(200);
      const hops = [...body!.route.hops, ...body!.route.legs.flatMap((leg: { hops: unknown[] }) => leg.hops)] as { pool: string; source: string; leg: string; gas: number }[];
      expect(hops.length > 0).to.equal(true);
      for (const hop of hops) {
        expect(["uniswap-v2", "uniswap-v3", "forkswap-v3", "dev-propamm", "uniswap-v4"], endpoint).to.include(hop.source);
        // A V4 hop's pool is its 32-byte pool id.
        expect(hop.leg, endpoint).to.match(new RegExp(`^${hop.source}:chain-${body!.chain_id}:${hop.pool}:[0-9]+$`));
        if (hop.source === "uniswap-v2") expect(hop.leg, endpoint).to.equal(`uniswap-v2:chain-${body!.chain_id}:${hop.pool}:3000`);
        expect(hop.gas, endpoint).to.be.a("number").and.be.greaterThan(0);
      }
      for (const leg of body!.route.legs as { gas: number; hops: { gas: number }[] }[]) expect(leg.gas).to.equal(leg.hops.reduce((sum, hop) => sum + hop.gas, 0));
      const counted = body!.route_stats.candidates_by_source as Record<string, number>;
      expect(["uniswap-v2", "uniswap-v3", "forkswap-v3", "dev-propamm", "uniswap-v4"], endpoint).to.include.members(Object.keys(counted));
      for (const hop of hops) expect(counted[hop.source]! > 0, endpoint).to.equal(true);
    }
  });

  it("excluded_sources: an unknown venue name is a 400 naming excluded_sources and the name; excluding every venue leaves no route", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const params = { sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: parseUnits("10", 6), taker: freshTaker() };
    for (const endpoint of ["/quote", "/price"] as const) {
      const unknown = await api.get(path(endpoint, { ...params, excluded_sources: "uniswap-v2,sushi-v9" }));
      expect(unknown.status, endpoint).to.equal(400);
      expect(unknown.body!.code, endpoint).to.equal("invalid_request");
      expect(unknown.body!.error, endpoint).to.include("excluded_sources").and.include("sushi-v9").and.include("uniswap-v2");
      const malformed = await api.get(path(endpoint, { ...params, excluded_sources: "uniswap v2" }));
      expect(malformed.status, endpoint).to.equal(400);
      expect(malformed.body!.error, endpoint).to.include("excluded_sources");
      const all = await api.get(path(endpoint, { ...params, excluded_sources: "Uniswap-V2,uniswap-v3,FORKSWAP-V3,dev-propamm,Uniswap-V4" }));
      expect(all.status, endpoint).to.equal(400);
      expect(all.body!.code, endpoint).to.equal("no_route");
      const none = await api.get(path(endpoint, { ...params, excluded_sources: "" }));
      expect(none.status, JSON.stringify(none.body)).to.equal(200);
      expect(none.body!.issues.invalidSourcesPassed).to.deep.equal([]);
    }
  });
});
