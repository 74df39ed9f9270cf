import { expect } from "chai";
import Database from "better-sqlite3";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getAddress, maxUint256, parseEther, parseEventLogs, parseUnits, type Address, type Hex, type TransactionReceipt } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { exactOutputPermitTypes, patchSignature, takerExactOutputRouterAbi, verifyQuoteOrder, withDomainType, type QuoteJson } from "../../sdk";
import { closeSharedQuoteApis, quoteReady, startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";
import { taxedMarketFixture } from "../fixtures/taxedMarket";
import type { SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

type QuoteBody = Record<string, any>;

const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
  await closeSharedQuoteApis();
});

const BPS = 10_000n;
const freshTaker = () => privateKeyToAccount(generatePrivateKey()).address;
const path = (endpoint: "/quote" | "/price", params: Record<string, string | bigint | number>) =>
  `${endpoint}?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)])).toString()}`;

/** The taker's wallet: approve when issues.allowance says so, sign permit2, patch, send; the receipt and its gas cost. */
async function execute(f: SettlementFixture, quote: QuoteBody): Promise<{ receipt: TransactionReceipt; gasCost: bigint }> {
  if (quote.issues.allowance !== null) {
    const amount = quote.settlement === "allowance" ? BigInt(quote.max_sell_amount) : maxUint256;
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: quote.sell_token, abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender as Address, amount] }),
    });
  }
  let data = quote.tx.data as Hex;
  if (quote.permit2 !== undefined) data = patchSignature(data, quote.tx.signature_offset, await f.signerOf(f.taker.account.address).signTypedData(quote.permit2));
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: quote.tx.to, data, value: BigInt(quote.tx.value) }) });
  expect(receipt.status).to.equal("success");
  return { receipt, gasCost: receipt.gasUsed * receipt.effectiveGasPrice };
}

/** The router's SwapSettled of the receipt: the input it took and the output it paid. */
function settled(receipt: TransactionReceipt) {
  const [event] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
  expect(event, "SwapSettled").to.not.equal(undefined);
  return event!.args;
}

/** The quote's checks as the SDK client runs them before signing, for the fixture's taker. */
function clientCheck(quote: QuoteBody, expected: Record<string, unknown> = {}) {
  return verifyQuoteOrder(quote as QuoteJson, { taker: quote.taker as Address, ...expected });
}

/** The gas estimate within 15 % of what the swap used (the same tolerance as the exact-input quotes). */
function expectGasClose(quote: QuoteBody, receipt: TransactionReceipt): void {
  const estimated = quote.tx.estimated_gas as number;
  const used = Number(receipt.gasUsed);
  expect(Math.abs(estimated - used) / used, `estimated ${estimated}, used ${used}`).to.be.below(0.15);
}

describe("exact-output quotes (buy_amount) through GET /quote and GET /price", () => {
  it("permit: buys at least buy_amount for at most max_sell_amount (sell_amount plus slippage); the taker signs max_sell_amount with the exact-output witness", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const buyAmount = parseEther("0.2");
    const { status, body } = await api.quote({ sell_token: "USDC", buy_token: "WETH", buy_amount: buyAmount, taker: f.taker.account.address, slippage_bps: 50 });
    expect(status, JSON.stringify(body)).to.equal(200);
    const quote = body!;
    expect(quote.settlement).to.equal("permit2");
    expect(quote.buy_amount).to.equal(buyAmount.toString());
    expect(quote.min_buy_amount).to.equal(buyAmount.toString());
    const sellAmount = BigInt(quote.sell_amount);
    expect(BigInt(quote.max_sell_amount)).to.equal((sellAmount * 10_050n + BPS - 1n) / BPS);
    // The route's hops, priced forwards from sell_amount, pay at least buy_amount.
    expect(BigInt(quote.route.hops.at(-1).amount_out) >= buyAmount).to.equal(true);
    expect(quote.permit2.types).to.deep.equal(JSON.parse(JSON.stringify(withDomainType(exactOutputPermitTypes))));
    expect(quote.permit2.message.permitted.amount).to.equal(quote.max_sell_amount);
    expect(quote.permit2.message.witness).to.include({ buyAmount: quote.buy_amount, maxSellAmount: quote.max_sell_amount });
    expect(quote.permit2.message.witness).to.not.have.property("minBuyAmount");
    expect(clientCheck(quote, { buyAmount, slippageBps: 50 }).kind).to.equal("permit");

    const [usdcBefore, wethBefore] = [await balanceOf(f, f.token("USDC"), f.taker.account.address), await balanceOf(f, f.token("WETH"), f.taker.account.address)];
    const { receipt } = await execute(f, quote);
    const spent = usdcBefore - (await balanceOf(f, f.token("USDC"), f.taker.account.address));
    const received = (await balanceOf(f, f.token("WETH"), f.taker.account.address)) - wethBefore;
    expect(received >= buyAmount, `received ${received}`).to.equal(true);
    expect(spent <= BigInt(quote.max_sell_amount), `spent ${spent}`).to.equal(true);
    // Nothing moved the pools between the quote's block and the swap: the router took exactly sell_amount.
    expect(spent).to.equal(sellAmount);
    expect(settled(receipt).sellAmount).to.equal(sellAmount);
    expectGasClose(quote, receipt);
  });

  it("allowance: the holder lets the router draw only what the route needs, at most max_sell_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const buyAmount = parseUnits("150", 18);
    // A V2 route, which the router prices before it draws anything; a route it runs backwards (a V3 hop or a
    // split) draws the whole maximum and refunds the rest (test/contracts/v3ExactOutput.test.ts).
    const { status, body } = await api.quote({ sell_token: "USDC", buy_token: "DAI", buy_amount: buyAmount, taker: f.taker.account.address, settlement: "allowance", excluded_sources: "uniswap-v3,forkswap-v3,dev-propamm" });
    expect(status, JSON.stringify(body)).to.equal(200);
    const quote = body!;
    expect(quote.settlement).to.equal("allowance");
    expect(getAddress(quote.tx.to)).to.equal(getAddress(f.contracts.allowanceHolder));
    expect(quote).to.not.have.property("permit2");
    expect(clientCheck(quote, { buyAmount }).kind).to.equal("allowance");
    const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
    const daiBefore = await balanceOf(f, f.token("DAI"), f.taker.account.address);
    const { receipt } = await execute(f, quote);
    const spent = usdcBefore - (await balanceOf(f, f.token("USDC"), f.taker.account.address));
    expect((await balanceOf(f, f.token("DAI"), f.taker.account.address)) - daiBefore >= buyAmount).to.equal(true);
    expect(spent).to.equal(BigInt(quote.sell_amount));
    expect(spent <= BigInt(quote.max_sell_amount)).to.equal(true);
    // The approval was max_sell_amount; the rest of it is still there.
    const left = await f.publicClient.readContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "allowance", args: [f.taker.account.address, f.contracts.allowanceHolder] });
    expect(left).to.equal(BigInt(quote.max_sell_amount) - spent);
    expectGasClose(quote, receipt);
  });

  it("native ETH: tx.value is max_sell_amount and the unspent ETH comes back in the same transaction, exactly", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const buyAmount = parseUnits("300", 6);
    const { status, body } = await api.quote({ sell_token: "ETH", buy_token: "USDC", buy_amount: buyAmount, taker: f.taker.account.address, slippage_bps: 200 });
    expect(status, JSON.stringify(body)).to.equal(200);
    const quote = body!;
    expect(quote.tx.value).to.equal(quote.max_sell_amount);
    expect(clientCheck(quote, { buyAmount, slippageBps: 200 }).kind).to.equal("native");
    const ethBefore = await f.publicClient.getBalance({ address: f.taker.account.address });
    const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
    const { receipt, gasCost } = await execute(f, quote);
    const ethSpent = ethBefore - (await f.publicClient.getBalance({ address: f.taker.account.address })) - gasCost;
    expect((await balanceOf(f, f.token("USDC"), f.taker.account.address)) - usdcBefore >= buyAmount).to.equal(true);
    expect(ethSpent).to.equal(BigInt(quote.sell_amount));
    const [refund] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapInputRefunded" });
    expect(refund!.args.amount).to.equal(BigInt(quote.max_sell_amount) - ethSpent);
    expect(getAddress(refund!.args.taker)).to.equal(getAddress(f.taker.account.address));
    expectGasClose(quote, receipt);
  });

  it("with an integrator fee: the route is grossed up so the recipient still gets buy_amount, and the fee recipient its fee", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const buyAmount = parseEther("0.05");
    const { status, body } = await api.quote({ sell_token: "USDC", buy_token: "WETH", buy_amount: buyAmount, taker: f.taker.account.address, fee_bps: 40 });
    expect(status, JSON.stringify(body)).to.equal(200);
    const quote = body!;
    const gross = BigInt(quote.route.hops.at(-1).amount_out);
    expect(BigInt(quote.platform_fee.amount)).to.equal((gross * 40n) / BPS);
    expect(gross - BigInt(quote.platform_fee.amount) >= buyAmount).to.equal(true);
    const feeBefore = await balanceOf(f, f.token("WETH"), api.owner.address);
    const wethBefore = await balanceOf(f, f.token("WETH"), f.taker.account.address);
    await execute(f, quote);
    expect((await balanceOf(f, f.token("WETH"), f.taker.account.address)) - wethBefore >= buyAmount).to.equal(true);
    expect((await balanceOf(f, f.token("WETH"), api.owner.address)) - feeBefore).to.equal(BigInt(quote.platform_fee.amount));
  });

  it("a large buy is split across paths (shares of the output) when that needs less input, and the split settles with at least buy_amount", async () => {
    const { f, api } = await loadFixture(quoteReady);
    let quote: QuoteBody | undefined;
    for (const weth of ["20", "50", "120"]) {
      const { status, body } = await api.quote({ sell_token: "USDC", buy_token: "WETH", buy_amount: parseEther(weth), taker: f.taker.account.address, slippage_bps: 30 });
      expect(status, JSON.stringify(body)).to.equal(200);
      if (body!.route.legs.length > 1) {
        quote = body!;
        break;
      }
    }
    expect(quote, "some size splits").to.not.equal(undefined);
    const buyAmount = BigInt(quote!.buy_amount);
    const shares = quote!.route.legs.map((leg: QuoteBody) => leg.share_bps as number);
    expect(shares.reduce((sum: number, share: number) => sum + share, 0)).to.equal(10_000);
    // Each leg delivers at least its share of the output; the legs' inputs add up to sell_amount.
    expect(quote!.route.legs.reduce((sum: bigint, leg: QuoteBody) => sum + BigInt(leg.sell_amount), 0n)).to.equal(BigInt(quote!.sell_amount));
    expect(clientCheck(quote!, { buyAmount }).kind).to.equal("permit");
    const [usdcBefore, wethBefore] = [await balanceOf(f, f.token("USDC"), f.taker.account.address), await balanceOf(f, f.token("WETH"), f.taker.account.address)];
    const { receipt } = await execute(f, quote!);
    expect((await balanceOf(f, f.token("WETH"), f.taker.account.address)) - wethBefore >= buyAmount).to.equal(true);
    expect(usdcBefore - (await balanceOf(f, f.token("USDC"), f.taker.account.address))).to.equal(BigInt(quote!.sell_amount));
    expectGasClose(quote!, receipt);
  });

  it("amount_unit=token applies to buy_amount, converted with the buy token's decimals; more decimals than it has is a 400", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const taker = freshTaker();
    const inTokens = await api.get(path("/price", { sell_token: "WETH", buy_token: "USDC", buy_amount: "12.5", amount_unit: "token", taker }));
    const inBase = await api.get(path("/price", { sell_token: "WETH", buy_token: "USDC", buy_amount: 12_500_000, taker }));
    expect(inTokens.status, JSON.stringify(inTokens.body)).to.equal(200);
    expect(inTokens.body!.buy_amount).to.equal("12500000");
    expect(inTokens.body!.sell_amount).to.equal(inBase.body!.sell_amount);
    const tooFine = await api.get(path("/price", { sell_token: "WETH", buy_token: f.token("USDC"), buy_amount: "1.0000001", amount_unit: "token", taker }));
    expect(tooFine.status).to.equal(400);
    expect(tooFine.body!.error).to.include("buy_amount").and.include("USDC has 6");
  });

  it("400 naming both when sell_amount and buy_amount are both sent or neither is; buy_amount must be a positive integer in base units", async () => {
    const { api } = await loadFixture(quoteReady);
    const taker = freshTaker();
    const base = { sell_token: "USDC", buy_token: "WETH", taker };
    for (const endpoint of ["/quote", "/price"] as const) {
      const both = await api.get(path(endpoint, { ...base, sell_amount: 1000, buy_amount: 1000 }));
      expect(both.status, endpoint).to.equal(400);
      expect(both.body).to.include({ code: "invalid_request" });
      expect(both.body!.error).to.include("sell_amount").and.include("buy_amount");
      const neither = await api.get(path(endpoint, base));
      expect(neither.status, endpoint).to.equal(400);
      expect(neither.body!.error).to.include("sell_amount").and.include("buy_amount");
    }
    for (const [value, words] of [["0", "greater than zero"], ["1.5", "amount_unit=token"], ["-3", "buy_amount"]] as const) {
      const refused = await api.quote({ ...base, buy_amount: value });
      expect(refused.status, value).to.equal(400);
      expect(refused.body!.error, value).to.include(words);
    }
    // More than the pools hold: no route, a 400 rather than a quote that cannot fill.
    const tooMuch = await api.quote({ ...base, buy_amount: parseEther("1000000000") });
    expect(tooMuch.status).to.equal(400);
    expect(tooMuch.body).to.include({ code: "no_route" });
  });

  it("GET /price with buy_amount: the quote's amounts without tx or permit2, reserving no nonce and recording no quote", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const taker = freshTaker();
    const params = { sell_token: f.token("USDC"), buy_token: f.token("WETH"), buy_amount: parseEther("0.01"), taker };
    const records = async () => {
      await api.store.findQuote("00000000-0000-4000-8000-000000000000");
      const db = new Database(api.dbPath, { readonly: true });
      try {
        return (db.prepare("SELECT count(*) AS n FROM quotes").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = await records();
    for (let index = 0; index < 3; index++) {
      const price = await api.get(path("/price", params));
      expect(price.status, JSON.stringify(price.body)).to.equal(200);
      expect(price.body).to.include({ buy_amount: params.buy_amount.toString(), min_buy_amount: params.buy_amount.toString() });
      expect(price.body).to.have.property("max_sell_amount");
      expect(price.body).to.not.have.any.keys("quote_id", "tx", "permit2");
    }
    expect(await records()).to.equal(before);
    const price = await api.get(path("/price", params));
    const quote = await api.quote(params);
    expect(quote.body!.permit2.nonce, "the first quote of a fresh taker takes nonce 0: no price reserved one").to.equal("0");
    const { quote_id: _id, tx: _tx, permit2: _permit2, ...priced } = quote.body!;
    expect(price.body).to.deep.equal(priced);
    expect(await records()).to.equal(before + 1);
  });

  it("a taxed sell token is refused for buy_amount with 400 token_taxed naming sell_token, before routing: the backward pass would ask the pool for more than a taxed transfer delivers, so the swap could only revert (review finding d)", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const api = await startQuoteApi(f as never, { defaultQuoteRateLimitPerMinute: 1_000_000 });
    started.push(api);
    const taker = freshTaker();
    for (const buy_token of ["ETH", "WETH"]) {
      const refused = await api.quote({ sell_token: "TAXD", buy_token, buy_amount: parseEther("0.01"), taker });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body).to.include({ code: "token_taxed", parameter: "sell_token", token: f.taxed.token.address.toLowerCase() });
      expect(refused.headers.get("x-ratelimit-quote-read-remaining"), "refused before the quote:read bucket").to.equal(null);
      const price = await api.get(path("/price", { sell_token: "TAXD", buy_token, buy_amount: parseEther("0.01"), taker }));
      expect([price.status, price.body?.code, price.body?.parameter]).to.deep.equal([400, "token_taxed", "sell_token"]);
    }
  });

  it("a taxed buy token is refused for buy_amount with 400 token_taxed naming buy_token, before routing; with sell_amount it is still quoted net of tax", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const api = await startQuoteApi(f as never, { defaultQuoteRateLimitPerMinute: 1_000_000 });
    started.push(api);
    const taker = freshTaker();
    const refused = await api.quote({ sell_token: "ETH", buy_token: "TAXD", buy_amount: parseUnits("10", 18), taker });
    expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
    expect(refused.body).to.include({ code: "token_taxed", parameter: "buy_token", token: f.taxed.token.address.toLowerCase() });
    expect(refused.body!.error).to.include("buy_amount").and.include("sell_amount");
    expect(refused.headers.get("x-ratelimit-quote-read-remaining"), "refused before the quote:read bucket").to.equal(null);
    const price = await api.get(path("/price", { sell_token: "ETH", buy_token: "TAXD", buy_amount: parseUnits("10", 18), taker }));
    expect(price.status).to.equal(400);
    expect(price.body).to.include({ code: "token_taxed" });
    const exactInput = await api.quote({ sell_token: "ETH", buy_token: "TAXD", sell_amount: parseEther("0.1"), taker });
    expect(exactInput.status, JSON.stringify(exactInput.body)).to.equal(200);
  });
});
