import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getAddress, maxUint256, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { NATIVE_TOKEN, patchSignature, takerSwapRouterAbi } from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { closeSharedQuoteApis, quoteReady, startQuoteApi, type QuoteApi } from "../fixtures/quoteApi";
import { balanceOf } from "../fixtures/testRoute";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { v2OnlySources } from "../fixtures/onlySources";

const started: QuoteApi[] = [];
after(async () => {
  for (const api of started.splice(0)) await api.close();
  await closeSharedQuoteApis();
});

type QuoteBody = Record<string, any>;

/** The taker's wallet: approve when issues.allowance says so, sign permit2, patch, send. */
async function execute(f: SettlementFixture, quote: QuoteBody, signer: Address = f.taker.account.address) {
  if (quote.issues.allowance !== null) {
    const spender = quote.issues.allowance.spender as Address;
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: quote.sell_token, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
    });
  }
  let data = quote.tx.data as Hex;
  if (quote.permit2 !== undefined) {
    const signature = await f.signerOf(signer).signTypedData(quote.permit2);
    data = patchSignature(data, quote.tx.signature_offset, signature);
  }
  const hash = await f.taker.sendTransaction({ to: quote.tx.to, data, value: BigInt(quote.tx.value) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

function expectGasClose(estimated: number, used: bigint) {
  const ratio = estimated / Number(used);
  if (process.env.GAS_CALIBRATION) console.log(`    gas: estimated ${estimated}, used ${used}, ratio ${ratio.toFixed(3)}`);
  expect(ratio, `estimated_gas ${estimated} vs gasUsed ${used}`).to.be.within(0.85, 1.15);
}

/**
 * The venues other than Uniswap V2: tests whose subject is the V2 market (its gas model, its paths
 * through WETH, its splits, a move of its pools) exclude them; test/api/mixedVenueQuote.test.ts covers them.
 */

describe("GET /quote", () => {
  describe("the integrator's path, executed on chain", () => {
    it("permit: snapshot → quote → approve Permit2 → sign permit2 → patch at signature_offset → send; the recipient gets buy_amount and the fee is paid", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const snapshot = await api.get("/tokens/supported-tokens?chain_id=4663", {}, null);
      const supported = new Set<string>(snapshot.body!.addresses);
      expect(supported.has(f.token("USDC").toLowerCase()) && supported.has(f.token("WETH").toLowerCase())).to.equal(true);

      const sellAmount = parseUnits("2500", 6);
      const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: sellAmount, taker: f.taker.account.address, fee_bps: 25 });
      expect(status, JSON.stringify(body)).to.equal(200);
      expect(body!.settlement).to.equal("permit2");
      expect(body!.quote_id).to.match(/^[0-9a-f-]{36}$/);
      expect(body!.tx.to).to.equal(getAddress(await f.registry.read.ownerOf([2n])));
      expect(body!.tx.value).to.equal("0");
      expect(body!.issues.allowance).to.deep.equal({ spender: f.contracts.permit2, actual: "0" });
      expect(body!.issues.balance).to.equal(null);
      expect(body!.permit2.types.EIP712Domain).to.be.an("array");
      expect(body!.permit2.domain).to.deep.equal({ name: "Permit2", chainId: 4663, verifyingContract: f.contracts.permit2 });
      expect(body!.platform_fee).to.deep.include({ bps: 25, recipient: api.owner.address, token: f.token("WETH").toLowerCase() });

      const recipientBefore = await balanceOf(f, f.token("WETH"), f.taker.account.address);
      const feeBefore = await balanceOf(f, f.token("WETH"), api.owner.address);
      const receipt = await execute(f, body!);

      expect(receipt.status).to.equal("success");
      const received = (await balanceOf(f, f.token("WETH"), f.taker.account.address)) - recipientBefore;
      expect(received).to.equal(BigInt(body!.buy_amount));
      expect(received >= BigInt(body!.min_buy_amount)).to.equal(true);
      expect((await balanceOf(f, f.token("WETH"), api.owner.address)) - feeBefore).to.equal(BigInt(body!.platform_fee.amount));
      const [settled] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      expect(settled?.args.quoteId).to.equal(body!.permit2.message.witness.quoteId);
      // The fill's event maps back to the quote's UUID through the store.
      const stored = await api.store.findQuoteByOnchainId(4663, settled!.args.quoteId);
      expect(stored?.quoteId).to.equal(body!.quote_id);
      expect(stored?.integratorId).to.equal(api.integratorId);
      expect(stored?.buyAmount).to.equal(BigInt(body!.buy_amount));
      expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);
    });

    it("allowance settlement of an ERC20 sell: approve the holder named in issues.allowance, send tx unchanged", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { body } = await api.quote({ sell_token: f.token("DAI"), buy_token: f.token("USDC"), sell_amount: parseUnits("1000", 18), taker: f.taker.account.address, settlement: "allowance", ...v2OnlySources(f) });
      expect(body!.settlement).to.equal("allowance");
      expect(body!.permit2).to.equal(undefined);
      expect(body!.tx.signature_offset).to.equal(undefined);
      expect(body!.issues.allowance.spender).to.equal(f.contracts.allowanceHolder);
      expect(body!.tx.to).to.equal(f.contracts.allowanceHolder);
      const before = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const receipt = await execute(f, body!);
      expect((await balanceOf(f, f.token("USDC"), f.taker.account.address)) - before).to.equal(BigInt(body!.buy_amount));
      expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);

      // Again, now that the pool's oracle has started and the taker already holds the buy token.
      const { body: again } = await api.quote({ sell_token: f.token("DAI"), buy_token: f.token("USDC"), sell_amount: parseUnits("1000", 18), taker: f.taker.account.address, settlement: "allowance", ...v2OnlySources(f) });
      expect(again!.issues.allowance).to.equal(null);
      expectGasClose(again!.tx.estimated_gas, (await execute(f, again!)).gasUsed);
    });

    it("native ETH sell: allowance settlement, value = sell_amount, no approval and no signature", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const sellAmount = parseUnits("2", 18);
      const { body } = await api.quote({ sell_token: "ETH", buy_token: f.token("USDC"), sell_amount: sellAmount, taker: f.taker.account.address });
      expect(body!.sell_token).to.equal(NATIVE_TOKEN.toLowerCase());
      expect(body!.settlement).to.equal("allowance");
      expect(body!.tx.value).to.equal(sellAmount.toString());
      expect(body!.issues.allowance).to.equal(null);
      const before = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const receipt = await execute(f, body!);
      expect((await balanceOf(f, f.token("USDC"), f.taker.account.address)) - before).to.equal(BigInt(body!.buy_amount));
      expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);
    });

    it("native ETH buy: the recipient receives ether", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const recipient = f.recipient.account.address;
      const { body } = await api.quote({ sell_token: f.token("USDT"), buy_token: NATIVE_TOKEN, sell_amount: parseUnits("3000", 6), taker: f.taker.account.address, recipient });
      expect(body!.buy_token).to.equal(NATIVE_TOKEN.toLowerCase());
      const before = await f.publicClient.getBalance({ address: recipient });
      const receipt = await execute(f, body!);
      expect((await f.publicClient.getBalance({ address: recipient })) - before).to.equal(BigInt(body!.buy_amount));
      expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);
    });

    // Every settlement shape the router has, each priced cold (fresh recipient) where that differs.
    const shapes: { name: string; params: (f: SettlementFixture) => Record<string, string | bigint>; recipient?: (f: SettlementFixture) => Address }[] = [
      { name: "wrap only: ETH → WETH", params: () => ({ sell_token: "ETH", buy_token: "WETH", sell_amount: parseUnits("1", 18) }) },
      { name: "wrap only, to a fresh recipient", params: () => ({ sell_token: "ETH", buy_token: "WETH", sell_amount: parseUnits("1", 18) }), recipient: (f) => f.stranger.account.address },
      { name: "unwrap only, permit: WETH → ETH", params: () => ({ sell_token: "WETH", buy_token: "ETH", sell_amount: parseUnits("1", 18) }) },
      { name: "unwrap only, allowance: WETH → ETH", params: () => ({ sell_token: "WETH", buy_token: "ETH", sell_amount: parseUnits("1", 18), settlement: "allowance" }) },
      { name: "wrap and one hop: ETH → WBTC", params: () => ({ sell_token: "ETH", buy_token: "WBTC", sell_amount: parseUnits("1", 18) }) },
      { name: "two hops: USDT → WETH → LINK", params: () => ({ sell_token: "USDT", buy_token: "LINK", sell_amount: parseUnits("500", 6) }) },
      { name: "one hop and unwrap, with a fee: LINK → ETH", params: () => ({ sell_token: "LINK", buy_token: "ETH", sell_amount: parseUnits("100", 18), fee_bps: "30" }) },
      { name: "two hops, allowance: USDC → WETH → LINK", params: () => ({ sell_token: "USDC", buy_token: "LINK", sell_amount: parseUnits("500", 6), settlement: "allowance" }) },
    ];
    for (const shape of shapes) {
      it(`estimated_gas is within 15 % of gasUsed, cold and warm: ${shape.name}`, async () => {
        const { f, api } = await loadFixture(quoteReady);
        const recipient = shape.recipient?.(f);
        // The taker's WETH, for the unwrap shapes.
        const weth = uniswapArtifacts.weth9();
        await f.publicClient.waitForTransactionReceipt({
          hash: await f.taker.writeContract({ address: f.contracts.weth, abi: weth.abi, functionName: "deposit", value: parseUnits("3", 18) }),
        });
        for (const round of ["cold", "warm"]) {
          const { status, body } = await api.quote({ ...shape.params(f), taker: f.taker.account.address, ...(recipient ? { recipient } : {}), ...v2OnlySources(f) });
          expect(status, JSON.stringify(body)).to.equal(200);
          const receipt = await execute(f, body!);
          expect(receipt.status, round).to.equal("success");
          expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);
        }
      });
    }

    it("multi-hop: LINK (paired only with WETH) to USDC goes through WETH", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { body } = await api.quote({ sell_token: "link", buy_token: "USDC", sell_amount: parseUnits("500", 18), taker: f.taker.account.address, ...v2OnlySources(f) });
      expect(body!.route.hops.map((hop: { token_out: string }) => hop.token_out)).to.deep.equal([f.token("WETH").toLowerCase(), f.token("USDC").toLowerCase()]);
      expect(body!.route.hops[1].amount_in).to.equal(body!.route.hops[0].amount_out);
      const before = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const receipt = await execute(f, body!);
      expect((await balanceOf(f, f.token("USDC"), f.taker.account.address)) - before).to.equal(BigInt(body!.buy_amount));
      expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);
    });
  });

  describe("split routes", () => {
    type Leg = { share_bps: number; sell_amount: string; buy_amount: string; hops: { pool: string; amount_in: string; amount_out: string }[] };

    /** What the direct pool alone would pay for the whole amount, at the quoted block's reserves. */
    async function directOutput(f: SettlementFixture, tokenIn: Address, tokenOut: Address, amountIn: bigint): Promise<bigint> {
      const pair = f.pool(...([tokenIn, tokenOut].map((token) => f.tokens.find((t) => t.address === token)!.symbol) as [string, string]));
      const [reserve0, reserve1] = await f.publicClient.readContract({ address: pair, abi: uniswapArtifacts.pair().abi, functionName: "getReserves" }) as readonly [bigint, bigint, number];
      const [reserveIn, reserveOut] = tokenIn.toLowerCase() < tokenOut.toLowerCase() ? [reserve0, reserve1] : [reserve1, reserve0];
      return (amountIn * 9970n * reserveOut) / (reserveIn * 10_000n + amountIn * 9970n);
    }

    it("a large order is split across parallel paths and settles in one transaction: the recipient gets buy_amount and the fee is paid", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const sellAmount = parseUnits("300000", 6);
      const single = await directOutput(f, f.token("USDC"), f.token("WETH"), sellAmount);
      const { status, body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: sellAmount, taker: f.taker.account.address, fee_bps: 25, ...v2OnlySources(f) });
      expect(status, JSON.stringify(body)).to.equal(200);
      const legs = body!.route.legs as Leg[];
      expect(legs.length).to.be.within(2, 3);
      expect(legs.reduce((sum, leg) => sum + leg.share_bps, 0)).to.equal(10_000);
      expect(legs.reduce((sum, leg) => sum + BigInt(leg.sell_amount), 0n)).to.equal(sellAmount);
      // Pool-disjoint legs, listed hop by hop in route.hops too.
      const pools = legs.flatMap((leg) => leg.hops.map((hop) => hop.pool));
      expect(new Set(pools).size).to.equal(pools.length);
      expect(body!.route.hops.map((hop: { pool: string }) => hop.pool)).to.deep.equal(pools);
      const gross = legs.reduce((sum, leg) => sum + BigInt(leg.buy_amount), 0n);
      expect(BigInt(body!.buy_amount) + BigInt(body!.platform_fee.amount)).to.equal(gross);
      expect(gross > single, `split ${gross} vs direct pool ${single}`).to.equal(true);

      const before = await balanceOf(f, f.token("WETH"), f.taker.account.address);
      const feeBefore = await balanceOf(f, f.token("WETH"), api.owner.address);
      const receipt = await execute(f, body!);
      expect((await balanceOf(f, f.token("WETH"), f.taker.account.address)) - before).to.equal(BigInt(body!.buy_amount));
      expect((await balanceOf(f, f.token("WETH"), api.owner.address)) - feeBefore).to.equal(BigInt(body!.platform_fee.amount));
      const settled = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      expect(settled).to.have.length(1);
      expect(settled[0]!.args.buyAmount).to.equal(BigInt(body!.buy_amount));
      expectGasClose(body!.tx.estimated_gas, receipt.gasUsed);
    });

    it("splits native sells and buys too: ETH in wraps before the split, ETH out unwraps after it", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { body: sell } = await api.quote({ sell_token: "ETH", buy_token: f.token("USDC"), sell_amount: parseUnits("100", 18), taker: f.taker.account.address, ...v2OnlySources(f) });
      expect((sell!.route.legs as Leg[]).length).to.be.within(2, 3);
      const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const sold = await execute(f, sell!);
      expect((await balanceOf(f, f.token("USDC"), f.taker.account.address)) - usdcBefore).to.equal(BigInt(sell!.buy_amount));
      expectGasClose(sell!.tx.estimated_gas, sold.gasUsed);

      const recipient = f.recipient.account.address;
      const { body: buy } = await api.quote({ sell_token: f.token("USDC"), buy_token: "ETH", sell_amount: parseUnits("200000", 6), taker: f.taker.account.address, recipient, ...v2OnlySources(f) });
      expect((buy!.route.legs as Leg[]).length).to.be.within(2, 3);
      const ethBefore = await f.publicClient.getBalance({ address: recipient });
      const bought = await execute(f, buy!);
      expect((await f.publicClient.getBalance({ address: recipient })) - ethBefore).to.equal(BigInt(buy!.buy_amount));
      expectGasClose(buy!.tx.estimated_gas, bought.gasUsed);
    });

    it("a small order stays on one path (one leg with the whole amount)", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const sellAmount = parseUnits("50", 6);
      const { body } = await api.quote({ sell_token: f.token("USDC"), buy_token: f.token("WETH"), sell_amount: sellAmount, taker: f.taker.account.address });
      const gas = (body!.route.hops as { gas: number }[]).reduce((sum, hop) => sum + hop.gas, 0);
      expect(body!.route.legs).to.deep.equal([{ share_bps: 10_000, sell_amount: sellAmount.toString(), buy_amount: body!.buy_amount, gas, hops: body!.route.hops }]);
    });
  });

  describe("tampering and staleness", () => {
    it("altered calldata or an altered witness reverts on chain", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { body } = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: parseUnits("100", 6), taker: f.taker.account.address });
      await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] });
      const signature = await f.signerOf(f.taker.account.address).signTypedData(body!.permit2);
      const patched = patchSignature(body!.tx.data, body!.tx.signature_offset, signature);
      // Lower the order's minBuyAmount word (the 4th word of the order struct) by one.
      const minWordStart = 2 + (4 + 32 * 3 + 32 * 3) * 2;
      const minimum = BigInt(`0x${patched.slice(minWordStart, minWordStart + 64)}`);
      expect(minimum).to.equal(BigInt(body!.min_buy_amount));
      const altered = `${patched.slice(0, minWordStart)}${(minimum - 1n).toString(16).padStart(64, "0")}${patched.slice(minWordStart + 64)}` as Hex;
      let reverted = false;
      await f.publicClient.call({ account: f.taker.account.address, to: body!.tx.to, data: altered }).catch(() => (reverted = true));
      expect(reverted, "altered calldata must revert").to.equal(true);

      const witnessAltered = { ...body!.permit2, message: { ...body!.permit2.message, witness: { ...body!.permit2.message.witness, recipient: f.stranger.account.address } } };
      const wrongSignature = await f.signerOf(f.taker.account.address).signTypedData(witnessAltered);
      reverted = false;
      await f.publicClient.call({ account: f.taker.account.address, to: body!.tx.to, data: patchSignature(body!.tx.data, body!.tx.signature_offset, wrongSignature) }).catch(() => (reverted = true));
      expect(reverted, "a signature over an altered witness must revert").to.equal(true);
      await f.publicClient.call({ account: f.taker.account.address, to: body!.tx.to, data: patched });
    });

    it("a quote made stale by a pool move fails in eth_call simulation", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { body } = await api.quote({ sell_token: "ETH", buy_token: "USDC", sell_amount: parseUnits("1", 18), taker: f.taker.account.address, slippage_bps: 10, ...v2OnlySources(f) });
      await f.publicClient.call({ account: f.taker.account.address, to: body!.tx.to, data: body!.tx.data, value: BigInt(body!.tx.value) });
      // Someone else sells a lot of ETH into the same pool first.
      const { body: mover } = await api.quote({ sell_token: "ETH", buy_token: "USDC", sell_amount: parseUnits("50", 18), taker: f.stranger.account.address, ...v2OnlySources(f) });
      await f.publicClient.waitForTransactionReceipt({ hash: await f.stranger.sendTransaction({ to: mover!.tx.to, data: mover!.tx.data, value: BigInt(mover!.tx.value) }) });
      let reverted = false;
      await f.publicClient.call({ account: f.taker.account.address, to: body!.tx.to, data: body!.tx.data, value: BigInt(body!.tx.value) }).catch(() => (reverted = true));
      expect(reverted, "the stale quote must fail simulation").to.equal(true);
    });
  });

  describe("the registry is followed", () => {
    it("after a migration new quotes target the new router without a restart; a paused feature gets 503 feature_paused", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const params = { sell_token: "USDC", buy_token: "DAI", sell_amount: parseUnits("10", 6), taker: f.taker.account.address };
      expect((await api.quote(params)).body!.tx.to).to.equal(f.routerAddress);
      const successor = { address: await f.newTakerRouter() };
      await f.registry.write.stage([2n, successor.address]);
      await f.registry.write.activate([2n]);
      const migrated = await api.quote(params);
      expect(migrated.body!.tx.to).to.equal(getAddress(successor.address));
      expect(migrated.body!.permit2.message.spender).to.equal(getAddress(successor.address));
      await f.registry.write.pause([2n]);
      const paused = await api.quote(params);
      expect(paused.status).to.equal(503);
      expect(paused.body).to.deep.include({ code: "feature_paused" });
    });
  });

  describe("admission and buckets", () => {
    it("an unsupported token gets 400 unsupported_token naming the parameter, consuming quote_probe but not quote:read", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const unknown = "0x00000000000000000000000000000000000d0d0d";
      const rejected = await api.quote({ sell_token: "USDC", buy_token: unknown, sell_amount: 1000, taker: f.taker.account.address });
      expect(rejected.status).to.equal(400);
      expect(rejected.body!.code).to.equal("unsupported_token");
      expect(rejected.body!.error).to.contain("buy_token").and.contain(unknown);
      expect(rejected.headers.get("x-ratelimit-quote-probe-remaining")).to.be.a("string");
      expect(rejected.headers.get("x-ratelimit-quote-read-remaining")).to.equal(null);
      const sellSide = await api.quote({ sell_token: "PEPE", buy_token: "USDC", sell_amount: 1000, taker: f.taker.account.address });
      expect(sellSide.body!.error).to.contain("sell_token").and.contain("PEPE");

      // Both unsupported: the rejection names sell_token, and both tokens are recorded as demand.
      const other = "0x00000000000000000000000000000000000d0d0e";
      const both = await api.quote({ sell_token: other, buy_token: unknown, sell_amount: 1000, taker: f.taker.account.address });
      expect(both.body!.error).to.contain("sell_token").and.contain(other);
      await api.served.jobs.flushDemand();
      const demand = await api.store.listTokenDemand({ since: new Date(0) });
      expect(demand.map((row) => row.token)).to.include.members([unknown, other]);
    });

    it("counts the buckets exactly: probes use quote_probe only, quotes use both, and each empty bucket answers 429 with Retry-After and its name", async () => {
      const f = await loadFixture(settlementFixture);
      const api = await startQuoteApi(f, { defaultQuoteRateLimitPerMinute: 2, quoteProbeMultiplier: 3 });
      started.push(api);
      const taker = f.taker.account.address;
      const supported = { sell_token: "USDC", buy_token: "DAI", sell_amount: 1_000_000, taker };
      const unsupported = { ...supported, buy_token: "0x00000000000000000000000000000000000e0e0e" };

      const first = await api.quote(supported);
      expect(first.status).to.equal(200);
      expect(first.headers.get("x-ratelimit-quote-probe-remaining")).to.equal("5");
      expect(first.headers.get("x-ratelimit-quote-read-remaining")).to.equal("1");
      const probe = await api.quote(unsupported);
      expect(probe.headers.get("x-ratelimit-quote-probe-remaining")).to.equal("4");
      const second = await api.quote(supported);
      expect(second.headers.get("x-ratelimit-quote-read-remaining")).to.equal("0");

      const third = await api.quote(supported);
      expect(third.status).to.equal(429);
      expect(third.body).to.deep.include({ code: "rate_limited", bucket: "quote:read" });
      expect(Number(third.headers.get("retry-after"))).to.be.within(1, 60);

      // Rejections still spend probes, until that bucket is empty too (six per minute here).
      expect((await api.quote(unsupported)).status).to.equal(400);
      expect((await api.quote(unsupported)).status).to.equal(400);
      const exhausted = await api.quote(unsupported);
      expect(exhausted.status).to.equal(429);
      expect(exhausted.body).to.deep.include({ bucket: "quote_probe" });
      expect(exhausted.headers.get("retry-after")).to.be.a("string");
    });

    it("authenticates before anything else, and rejects a revoked key with 401", async () => {
      const f = await loadFixture(settlementFixture);
      // Its own API and integrator: revoking the shared fixture's key would break the other tests.
      const api = await startQuoteApi(f);
      started.push(api);
      const missing = await api.get("/quote?sell_token=nonsense", {}, null);
      expect(missing.status).to.equal(401);
      const wrong = await api.quote({ sell_token: "USDC" }, "tsk_" + "0".repeat(64));
      expect(wrong.status).to.equal(401);
      await api.revokeKey();
      const revoked = await api.quote({ sell_token: "USDC", buy_token: "DAI", sell_amount: 1, taker: f.taker.account.address });
      expect(revoked.status).to.equal(401);
      expect(revoked.body!.code).to.equal("api_key_revoked");
    });
  });

  describe("bad input never gets a 500", () => {
    const valid = (f: SettlementFixture) => ({ sell_token: "USDC", buy_token: "WETH", sell_amount: "1000000", taker: f.taker.account.address });
    const cases: { name: string; params: (f: SettlementFixture) => Record<string, string>; field: string; code?: string; prefix?: string }[] = [
      { name: "missing sell_token", params: (f) => ({ ...valid(f), sell_token: undefined as unknown as string }), field: "sell_token" },
      { name: "missing buy_token", params: (f) => ({ ...valid(f), buy_token: undefined as unknown as string }), field: "buy_token" },
      { name: "missing sell_amount", params: (f) => ({ ...valid(f), sell_amount: undefined as unknown as string }), field: "sell_amount" },
      { name: "missing taker", params: (f) => ({ ...valid(f), taker: undefined as unknown as string }), field: "taker" },
      { name: "zero sell_amount", params: (f) => ({ ...valid(f), sell_amount: "0" }), field: "sell_amount" },
      { name: "negative sell_amount", params: (f) => ({ ...valid(f), sell_amount: "-5" }), field: "sell_amount" },
      { name: "fractional sell_amount", params: (f) => ({ ...valid(f), sell_amount: "1.5" }), field: "sell_amount" },
      { name: "hex sell_amount", params: (f) => ({ ...valid(f), sell_amount: "0x10" }), field: "sell_amount" },
      { name: "sell_amount above 2^256-1", params: (f) => ({ ...valid(f), sell_amount: (2n ** 256n).toString() }), field: "sell_amount" },
      { name: "malformed taker", params: (f) => ({ ...valid(f), taker: "0x1234" }), field: "taker" },
      { name: "malformed recipient", params: (f) => ({ ...valid(f), recipient: "vitalik.eth" }), field: "recipient" },
      { name: "slippage_bps above 10000", params: (f) => ({ ...valid(f), slippage_bps: "10001" }), field: "slippage_bps" },
      { name: "negative slippage_bps", params: (f) => ({ ...valid(f), slippage_bps: "-1" }), field: "slippage_bps" },
      { name: "fractional slippage_bps", params: (f) => ({ ...valid(f), slippage_bps: "0.5" }), field: "slippage_bps" },
      { name: "unknown settlement", params: (f) => ({ ...valid(f), settlement: "magic" }), field: "settlement" },
      { name: "fee_bps above the key's cap", params: (f) => ({ ...valid(f), fee_bps: "101" }), field: "fee_bps" },
      { name: "malformed fee_bps", params: (f) => ({ ...valid(f), fee_bps: "lots" }), field: "fee_bps" },
      { name: "unknown chain_id", params: (f) => ({ ...valid(f), chain_id: "1" }), field: "chain_id", code: "unsupported_chain" },
      { name: "malformed chain_id", params: (f) => ({ ...valid(f), chain_id: "mainnet" }), field: "chain_id" },
      { name: "unknown parameter", params: (f) => ({ ...valid(f), slipage_bps: "5" }), field: "slipage_bps" },
      { name: "same sell and buy token", params: (f) => ({ ...valid(f), buy_token: "usdc" }), field: "sell_token and buy_token" },
      { name: "permit2 settlement for a native sell", params: (f) => ({ ...valid(f), sell_token: "ETH", settlement: "permit2" }), field: "settlement" },
      { name: "an amount too small to buy anything", params: (f) => ({ ...valid(f), sell_token: "DAI", buy_token: "USDC", sell_amount: "1" }), field: "sell_amount", code: "no_route" },
      { name: "an amount no pool can take (reserves are uint112)", params: (f) => ({ ...valid(f), sell_amount: (2n ** 200n).toString() }), field: "sell_amount", code: "no_route" },
      { name: "the zero address as recipient", params: (f) => ({ ...valid(f), recipient: "0x0000000000000000000000000000000000000000" }), field: "recipient" },
      { name: "the router as recipient", params: (f) => ({ ...valid(f), recipient: f.routerAddress }), field: "recipient" },
      { name: "the zero address as taker", params: (f) => ({ ...valid(f), taker: "0x0000000000000000000000000000000000000000" }), field: "taker" },
      { name: "the router as taker, without a recipient (router check)", params: (f) => ({ ...valid(f), taker: f.routerAddress }), field: "taker", prefix: "taker " },
      { name: "the allowance holder as recipient of a permit quote (router check)", params: (f) => ({ ...valid(f), recipient: f.contracts.allowanceHolder }), field: "recipient" },
      { name: "the allowance holder as recipient of a native sell (router check)", params: (f) => ({ ...valid(f), sell_token: "ETH", buy_token: "USDC", sell_amount: "1000000000000000000", recipient: f.contracts.allowanceHolder }), field: "recipient" },
      { name: "the allowance holder as recipient of an allowance quote (router check)", params: (f) => ({ ...valid(f), settlement: "allowance", recipient: f.contracts.allowanceHolder }), field: "recipient" },
    ];
    for (const testCase of cases) {
      it(`${testCase.name} → 400 naming ${testCase.field}`, async () => {
        const { f, api } = await loadFixture(quoteReady);
        const params = Object.fromEntries(Object.entries(testCase.params(f)).filter(([, value]) => value !== undefined));
        const { status, body, headers } = await api.quote(params);
        expect(status, JSON.stringify(body)).to.equal(400);
        expect(body!.error).to.contain(testCase.field);
        if (testCase.prefix) expect(body!.error.startsWith(testCase.prefix), body!.error).to.equal(true);
        if (testCase.code) expect(body!.code).to.equal(testCase.code);
        // Only what needs chain state (routing, the router) is refused after quote:read.
        const afterRead = testCase.code === "no_route" || testCase.name.includes("(router check)") || testCase.name === "the router as recipient";
        expect(headers.get("x-ratelimit-quote-read-remaining") !== null, "quote:read consumed").to.equal(afterRead);
      });
    }

    it("a repeated parameter is refused, not silently picked", async () => {
      const { f, api } = await loadFixture(quoteReady);
      const { status, body } = await api.get(`/quote?sell_token=USDC&sell_token=DAI&buy_token=WETH&sell_amount=1&taker=${f.taker.account.address}`);
      expect(status).to.equal(400);
      expect(body!.error).to.contain("sell_token");
    });
  });

  it("reports an insufficient balance in issues.balance", async () => {
    const { f, api } = await loadFixture(quoteReady);
    const { body } = await api.quote({ sell_token: "WBTC", buy_token: "USDC", sell_amount: parseUnits("1000", 8), taker: f.taker.account.address });
    expect(body!.issues.balance).to.deep.equal({ token: f.token("WBTC").toLowerCase(), actual: parseUnits("20", 8).toString(), expected: parseUnits("1000", 8).toString() });
  });
});
