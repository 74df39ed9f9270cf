import { expect } from "chai";
import Database from "better-sqlite3";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { formatUnits, parseUnits } from "viem";
import { tokenAmountToBaseUnits } from "../../api/quote/admission/tokenAmount";
import { ApiError } from "../../sdk/server/apiError";
import { parseQuoteQuery } from "../../api/quote/admission/quoteQuery";
import { createTradingClient } from "../../sdk";
import { closeSharedQuoteApis, quoteReady, startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";

const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
  await closeSharedQuoteApis();
});

const TAKER = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const base = { sell_token: "USDC", buy_token: "WETH", sell_amount: "1000000", taker: TAKER };

/** The parameter's names (ours first) and a valid value generator for each. */
const aliasGroups = [
  { names: ["slippage_bps", "slippageBps"], value: fc.integer({ min: 0, max: 10_000 }).map(String) },
  { names: ["fee_bps", "swap_fee_bps", "swapFeeBps"], value: fc.integer({ min: 0, max: 10_000 }).map(String) },
  { names: ["settlement", "settlementPreference"], value: fc.constantFrom("auto", "permit2", "allowance") },
] as const;

function refusal(query: Record<string, string>): ApiError {
  try {
    parseQuoteQuery(query);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(query)}`);
}

describe("GET /quote: the live service's parameters", () => {
  describe("aliases resolve in parsing", () => {
    it("any alias gives the same parsed request as our name; the same value under two names is accepted", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...aliasGroups).chain((group) => fc.tuple(fc.constant(group.names[0]), fc.constantFrom(...group.names.slice(1)), group.value)),
          ([canonical, alias, value]) => {
            const ours = parseQuoteQuery({ ...base, [canonical]: value });
            const viaAlias = parseQuoteQuery({ ...base, [alias]: value });
            const both = parseQuoteQuery({ ...base, [canonical]: value, [alias]: value });
            for (const parsed of [viaAlias, both]) {
              expect({ slippageBps: parsed.slippageBps, feeBps: parsed.feeBps, settlement: parsed.settlement }).to.deep.equal({
                slippageBps: ours.slippageBps,
                feeBps: ours.feeBps,
                settlement: ours.settlement,
              });
            }
          },
        ),
      );
    });

    it("one parameter under two names with different values is a 400 naming both", () => {
      fc.assert(
        fc.property(
          fc.constantFrom(...aliasGroups).chain((group) =>
            fc.tuple(fc.subarray([...group.names], { minLength: 2, maxLength: 2 }), fc.uniqueArray(group.value, { minLength: 2, maxLength: 2 })),
          ),
          ([[first, second], [a, b]]) => {
            const error = refusal({ ...base, [first!]: a!, [second!]: b! });
            expect(error.status).to.equal(400);
            expect(error.message).to.contain(first).and.contain(second);
          },
        ),
      );
      const owners = refusal({ ...base, permit2Owner: TAKER, permitOwner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" });
      expect(owners.message).to.contain("permit2Owner").and.contain("permitOwner");
    });

    it("a bad value under an alias is a 400 naming the alias as sent; permit2Owner is checked like permit2_owner", () => {
      expect(refusal({ ...base, slippageBps: "10001" }).message).to.match(/^slippageBps /);
      expect(refusal({ ...base, max_hops: "0" }).message).to.match(/^max_hops /);
      expect(refusal({ ...base, swap_fee_recipient: "0x12" }).message).to.match(/^swap_fee_recipient /);
      expect(refusal({ ...base, permit2Owner: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" }).message).to.match(/^permit2Owner .* must equal taker/);
      expect(refusal({ ...base, unknownThing: "1" }).message).to.contain("unknownThing");
      expect(refusal({ ...base, permitOwner: TAKER, settlementPreference: "allowance" }).message).to.match(/^permitOwner asks for a gasless quote/);
      for (const name of ["permit2_owner", "permit2Owner", "permitOwner"]) expect(parseQuoteQuery({ ...base, [name]: TAKER.toLowerCase() }).gasless, name).to.equal(true);
      expect(parseQuoteQuery(base).gasless).to.equal(false);
    });
  });

  describe("over HTTP against the devnet", () => {
    it("slippageBps, swapFeeBps and settlementPreference act as slippage_bps, fee_bps and settlement; swap_fee_recipient and swap_fee_token change nothing", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { status, body } = await api.quote({
        sell_token: f.token("USDC"),
        buy_token: f.token("WETH"),
        sell_amount: parseUnits("100", 6),
        taker: f.taker.account.address,
        slippageBps: 250,
        swapFeeBps: 30,
        settlementPreference: "allowance",
        swap_fee_recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        swap_fee_token: "USDC",
      });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body!.settlement).to.equal("allowance");
      expect(body!.platform_fee).to.deep.include({ bps: 30, recipient: api.owner.address, token: f.token("WETH").toLowerCase() });
      expect(BigInt(body!.min_buy_amount)).to.equal((BigInt(body!.buy_amount) * 9_750n) / 10_000n);
    });

    it("conflicting aliases over HTTP: 400 naming both, before admission (no demand for an unknown token)", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { status, body } = await api.quote({ sell_token: "0x1111111111111111111111111111111111111111", buy_token: "WETH", sell_amount: 1000, taker: f.taker.account.address, fee_bps: 10, swap_fee_bps: 20 });
      expect(status).to.equal(400);
      expect(body).to.include({ code: "invalid_request" });
      expect(body!.error).to.contain("fee_bps").and.contain("swap_fee_bps");
    });

    it("max_hops bounds the pools per path: LINK → USDC needs two, so max_hops=1 is no_route and max_hops=2 routes through WETH", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const params = { sell_token: "LINK", buy_token: "USDC", sell_amount: parseUnits("500", 18), taker: f.taker.account.address };
      const one = await api.quote({ ...params, max_hops: 1 });
      expect(one.status).to.equal(400);
      expect(one.body).to.include({ code: "no_route" });
      expect(one.body!.error).to.contain("max_hops 1");
      const two = await api.quote({ ...params, max_hops: 2 });
      expect(two.status, JSON.stringify(two.body)).to.equal(200);
      for (const leg of two.body!.route.legs) expect(leg.hops.length).to.be.at.most(2);
      const unbounded = await api.quote({ ...params, max_hops: 16 });
      expect(unbounded.status).to.equal(200);
      // Route statistics count the token paths tried: the direct one (no LINK/USDC pool: failed), one
      // per hub with two hops, and one per hub with three.
      const [twoStats, allStats] = [two.body!.route_stats, unbounded.body!.route_stats];
      expect(twoStats.successful_routes).to.be.at.least(1);
      expect(twoStats.failed_routes).to.be.at.least(1);
      expect(allStats.candidate_paths).to.equal(2 * twoStats.candidate_paths - 1);
      for (const stats of [twoStats, allStats]) expect(stats.candidate_paths).to.equal(stats.successful_routes + stats.failed_routes);
      const wrap = await api.quote({ sell_token: "ETH", buy_token: "WETH", sell_amount: 1000, taker: f.taker.account.address });
      expect(wrap.body!.route_stats, "a bare wrap searches nothing").to.deep.equal({ candidate_paths: 0, successful_routes: 0, failed_routes: 0, candidates_by_source: {} });
      expect(wrap.body!.candidate_paths, "top-level copy of a bare wrap's statistics").to.equal(0);
    });

    it("the SDK client sends maxHops as max_hops", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const client = createTradingClient({ apiUrl: api.url, apiKey: api.apiKey.secret, maxAttempts: 1 });
      try {
        const parameters = { sellToken: f.token("LINK"), buyToken: f.token("USDC"), sellAmount: parseUnits("500", 18), taker: f.taker.account.address };
        const error = await client.getQuote({ ...parameters, maxHops: 1 }).then(() => undefined, (caught: unknown) => caught as Error);
        expect(error?.message).to.contain("max_hops 1");
        expect((await client.getQuote({ ...parameters, maxHops: 2 })).route.hops).to.have.length(2);
      } finally {
        client.close();
      }
    });
  });

  describe("the swap:integrator scope and the combined fee cap", () => {
    it("a fee parameter from a key without swap:integrator is a 403 naming the parameter; without fee parameters the key quotes", async () => {
      const { f } = await loadFixture(quoteReady);
      const api = await startQuoteApi(f);
      started.push(api);
      const db = new Database(api.dbPath);
      db.prepare("UPDATE api_keys SET scopes = ? WHERE id = ?").run(JSON.stringify(["quote:read", "swap:create"]), api.apiKey.keyId);
      db.close();
      const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6), taker: f.taker.account.address };
      for (const [name, value] of [["fee_bps", "0"], ["swapFeeBps", "5"], ["swap_fee_bps", "5"], ["swap_fee_token", "WETH"], ["swap_fee_recipient", f.taker.account.address]] as const) {
        const { status, body } = await api.quote({ ...params, [name]: value });
        expect(status, name).to.equal(403);
        expect(body).to.include({ code: "missing_scope" });
        expect(body!.error).to.match(new RegExp(`^${name} `)).and.contain("swap:integrator");
      }
      expect((await api.quote(params)).status).to.equal(200);
    });

    it("fee_bps plus the platform fee past MAX_COMBINED_FEE_BPS is a 400, even within the key's own cap", async () => {
      const { f } = await loadFixture(quoteReady);
      const api = await startQuoteApi(f, { maxCombinedFeeBps: 20 });
      started.push(api);
      const params = { sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("10", 6), taker: f.taker.account.address };
      const over = await api.quote({ ...params, swapFeeBps: 21 });
      expect(over.status).to.equal(400);
      expect(over.body).to.include({ code: "fee_bps_out_of_range" });
      expect(over.body!.error).to.match(/^swapFeeBps 21 .*combined fee cap of 20 bps/);
      const at = await api.quote({ ...params, fee_bps: 20 });
      expect(at.status, JSON.stringify(at.body)).to.equal(200);
      expect(at.body!.platform_fee.bps).to.equal(20);
    });

    it("MAX_COMBINED_FEE_BPS defaults to 100", async () => {
      const { loadApiConfig } = await import("../../api/config");
      expect(loadApiConfig({}).maxCombinedFeeBps).to.equal(100);
      expect(loadApiConfig({ MAX_COMBINED_FEE_BPS: "50" }).maxCombinedFeeBps).to.equal(50);
      expect(() => loadApiConfig({ MAX_COMBINED_FEE_BPS: "10001" })).to.throw(/MAX_COMBINED_FEE_BPS/);
    });
  });

  describe("sell_amount in tokens (amount_unit=token)", () => {
    it("converts exactly: parse(format(x, decimals)) = x for any base-unit x and decimals, trailing zeros included (property)", () => {
      fc.assert(
        fc.property(fc.bigInt({ min: 1n, max: (1n << 256n) - 1n }), fc.integer({ min: 0, max: 36 }), fc.nat({ max: 3 }), (x, decimals, zeros) => {
          const text = formatUnits(x, decimals);
          expect(tokenAmountToBaseUnits(text, decimals, "T", "sell_amount")).to.equal(x);
          const padded = text.includes(".") ? text + "0".repeat(zeros) : zeros > 0 ? `${text}.${"0".repeat(zeros)}` : text;
          expect(tokenAmountToBaseUnits(padded, decimals, "T", "sell_amount")).to.equal(x);
        }),
      );
    });

    it("more fraction digits than the token has is a 400 naming sell_amount, never a rounded amount (property)", () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 1, max: 9 }), (decimals, last) => {
          const text = `1.${"0".repeat(decimals)}${last}`;
          expect(() => tokenAmountToBaseUnits(text, decimals, "T", "sell_amount")).to.throw(ApiError, new RegExp(`^sell_amount ${text.replace(".", "\\.")} has ${decimals + 1} decimals, but T has ${decimals}$`));
        }),
      );
    });

    it("over HTTP: 2.5 USDC and 0.01 ETH are quoted in base units; 1.1234567 USDC is a 400; a decimal without amount_unit=token is a 400; admission still runs first", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const taker = f.taker.account.address;
      const usdc = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: "2.5", amount_unit: "token", taker });
      expect(usdc.status, JSON.stringify(usdc.body)).to.equal(200);
      expect(usdc.body!.sell_amount).to.equal("2500000");
      const base = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: "2500000", amount_unit: "base", taker });
      expect(base.body!.sell_amount).to.equal("2500000");
      const eth = await api.quote({ sell_token: "ETH", buy_token: "USDC", sell_amount: "0.01", amount_unit: "token", taker });
      expect(eth.status, JSON.stringify(eth.body)).to.equal(200);
      expect(eth.body!.tx.value).to.equal(parseUnits("0.01", 18).toString());

      const tooPrecise = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: "1.1234567", amount_unit: "token", taker });
      expect(tooPrecise.status).to.equal(400);
      expect(tooPrecise.body).to.deep.equal({ error: "sell_amount 1.1234567 has 7 decimals, but USDC has 6", code: "invalid_request" });
      const zero = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: "0.000", amount_unit: "token", taker });
      expect(zero.body).to.deep.include({ error: "sell_amount must be greater than zero" });
      const decimalInBase = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: "1.5", taker });
      expect(decimalInBase.status).to.equal(400);
      expect(decimalInBase.body!.error).to.match(/^sell_amount .*amount_unit=token/);
      const badUnit = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: "1", amount_unit: "wei", taker });
      expect(badUnit.body!.error).to.match(/^amount_unit /);
      const unsupported = await api.quote({ sell_token: "0x1111111111111111111111111111111111111111", buy_token: "WETH", sell_amount: "1.1234567", amount_unit: "token", taker });
      expect(unsupported.body).to.include({ code: "unsupported_token" });
    });
  });

  describe("the live service's response fields", () => {
    it("adds taker, slippage_bps, integrator_fee and permit2.nonce/deadline, keeps every field; the SDK's verifyQuote passes and refuses a top-level nonce that disagrees", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const client = createTradingClient({ apiUrl: api.url, apiKey: api.apiKey.secret, maxAttempts: 1, publicClient: f.publicClient, contracts: { routerRegistry: f.contracts.routerRegistry } });
      try {
        const taker = f.taker.account.address;
        const raw = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("20", 6), taker, slippage_bps: 75, fee_bps: 15 });
        expect(raw.status, JSON.stringify(raw.body)).to.equal(200);
        const body = raw.body!;
        for (const kept of ["quote_id", "chain_id", "block_number", "sell_token", "buy_token", "sell_amount", "buy_amount", "min_buy_amount", "route", "platform_fee", "settlement", "gasless", "relayer_fee", "expires_at", "tx", "permit2", "issues"]) {
          expect(body, kept).to.have.property(kept);
        }
        expect(body.taker).to.equal(taker);
        expect(body.slippage_bps).to.equal(75);
        expect(body.integrator_fee).to.deep.equal({ bps: 15, recipient: api.owner.address, id: body.integrator_fee.id });
        expect(body.integrator_fee.id).to.match(/^quote-/);
        expect(body.permit2.nonce).to.equal(body.permit2.message.nonce);
        expect(body.permit2.deadline).to.equal(body.permit2.message.deadline);
        const stats = body.route_stats;
        expect(stats.successful_routes).to.be.at.least(1);
        expect(stats.candidate_paths).to.equal(stats.successful_routes + stats.failed_routes);
        // The live service's integrators read the same statistics at the top level.
        const { candidates_by_source: bySource, ...counts } = stats;
        expect({ candidate_paths: body.candidate_paths, successful_routes: body.successful_routes, failed_routes: body.failed_routes }).to.deep.equal(counts);
        // Per venue: every venue of the devnet with a pool of the pair was priced.
        expect(Object.keys(bySource)).to.include.members(["uniswap-v2", "uniswap-v3"]);

        const quote = await client.getQuote({ sellToken: f.token("USDC"), buyToken: f.token("WETH"), sellAmount: parseUnits("20", 6), taker, feeBps: 15 });
        expect(quote.permit2?.nonce).to.equal(quote.permit2?.message.nonce);
        await client.verifyQuote(quote);
        const tampered = { ...quote, permit2: { ...quote.permit2!, nonce: (BigInt(quote.permit2!.message.nonce) + 1n).toString() } };
        const refused = await client.verifyQuote(tampered, { taker, feeBps: 15 }).then(() => undefined, (caught: unknown) => caught as Error);
        expect(refused?.message).to.contain("permit2.nonce");
      } finally {
        client.close();
      }
    });
  });
});
