import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseEventLogs, parseUnits, type Hex } from "viem";
import { gaslessSwapRouterAbi } from "../../sdk";
import { NATIVE_PAYOUT_WORST_CASE_GAS, relayGasLimit } from "../../sdk/relay/relayGasLimit";
import { TOKEN_PERMIT_MODEL_GAS } from "../../sdk/relay/gaslessExtraGas";
import { fundedTakers, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { startQuoteApi } from "../fixtures/quoteApi";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

describe("gasless relaying, end to end (API + relayer + chain)", function () {
  this.timeout(60_000);
  let f: SettlementFixture;
  let stack: GaslessStack;
  beforeEach(async () => {
    f = await loadFixture(settlementFixture);
    stack = await startGaslessStack(f);
  });
  afterEach(async () => {
    await stack.close();
  });

  it("quote with permit2_owner → approve Permit2 as issues.allowance says → sign → submit → confirmed; the taker pays no gas and the fee reaches the signed payee", async () => {
    const taker = f.signerOf(f.taker.account.address);
    const quote = (await stack.gaslessQuote(taker.address)).body;
    expect(quote.gasless).to.equal(true);
    expect(quote.settlement).to.equal("permit2");
    expect(quote.tx.to).to.equal(f.contracts.gaslessSwapRouter);
    expect(quote.permit2.primaryType).to.equal("PermitWitnessTransferFrom");
    expect(quote.permit2.message.witness.relayerFeeRecipient).to.equal(stack.feeRecipient);
    expect(quote.relayer_fee).to.include({ token: quote.sell_token, recipient: stack.feeRecipient });
    const fee = BigInt(quote.relayer_fee.amount);
    expect(fee > 0n).to.equal(true);
    expect(quote.permit2.message.permitted.amount).to.equal((BigInt(quote.sell_amount) + fee).toString());
    expect(quote.issues.allowance?.spender).to.equal(f.contracts.permit2);

    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [quote.issues.allowance.spender, maxUint256] }),
    });
    const ethBefore = await f.publicClient.getBalance({ address: taker.address });
    const usdcBefore = await balanceOf(f, f.token("USDC"), taker.address);
    const wethBefore = await balanceOf(f, f.token("WETH"), taker.address);
    const payeeBefore = await balanceOf(f, f.token("USDC"), stack.feeRecipient);

    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    expect(submitted.body).to.include({ quote_id: quote.quote_id, status: "accepted", chain_id: 4663, tx_hash: null, error: null, reason: null });
    const relay = await stack.waitFor(submitted.body.relay_id);
    expect(relay.status).to.equal("confirmed");
    expect(relay.transactions).to.have.length(1);
    expect(relay.transactions[0]).to.include({ hash: relay.tx_hash, kind: "swap", mined: true });

    const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
    const [settled] = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
    expect(settled?.args.quoteId).to.equal(quote.permit2.message.witness.quoteId);
    expect(await f.publicClient.getBalance({ address: taker.address })).to.equal(ethBefore);
    expect(await balanceOf(f, f.token("USDC"), taker.address)).to.equal(usdcBefore - BigInt(quote.sell_amount) - fee);
    expect(await balanceOf(f, f.token("WETH"), taker.address)).to.equal(wethBefore + BigInt(quote.buy_amount));
    expect(await balanceOf(f, f.token("USDC"), stack.feeRecipient)).to.equal(payeeBefore + fee);
    // The fee covers what the relayer paid for gas, with the margin.
    expect(fee * 10n ** 12n * 3000n > receipt.gasUsed * receipt.effectiveGasPrice).to.equal(true);
    // The gas model the fee was priced from holds within 15 % of what the relayer used.
    const ratio = Number(receipt.gasUsed) / quote.tx.estimated_gas;
    expect(ratio, `gasUsed ${receipt.gasUsed} vs estimated ${quote.tx.estimated_gas}`).to.be.within(0.85, 1.15);
  });

  it("a large gasless order is relayed as a split route: one transaction, buy_amount received, the fee paid", async () => {
    const taker = f.signerOf(f.taker.account.address);
    const quote = (await stack.gaslessQuote(taker.address, { sell_amount: parseUnits("250000", 6) })).body;
    expect(quote.route.legs.length, JSON.stringify(quote.route)).to.be.within(2, 3);
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }),
    });
    const wethBefore = await balanceOf(f, f.token("WETH"), taker.address);
    const payeeBefore = await balanceOf(f, f.token("USDC"), stack.feeRecipient);

    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relay = await stack.waitFor(submitted.body.relay_id);
    expect(relay.status).to.equal("confirmed");

    const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
    expect(parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" })).to.have.length(1);
    expect(await balanceOf(f, f.token("WETH"), taker.address)).to.equal(wethBefore + BigInt(quote.buy_amount));
    expect(await balanceOf(f, f.token("USDC"), stack.feeRecipient)).to.equal(payeeBefore + BigInt(quote.relayer_fee.amount));
    const ratio = Number(receipt.gasUsed) / quote.tx.estimated_gas;
    expect(ratio, `gasUsed ${receipt.gasUsed} vs estimated ${quote.tx.estimated_gas}`).to.be.within(0.85, 1.15);
  });

  describe("gasless quotes", () => {
    it("refuses a permit2_owner other than the taker, a native sell, and settlement=allowance, naming permit2_owner", async () => {
      const taker = f.taker.account.address;
      const other = await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker, permit2_owner: f.stranger.account.address });
      expect([other.status, other.body.code]).to.deep.equal([400, "invalid_request"]);
      expect(other.body.error).to.match(/permit2_owner/);
      const native = await stack.gaslessQuote(taker, { sell_token: "ETH", buy_token: "USDC", sell_amount: 10n ** 18n });
      expect([native.status, native.body.error]).to.satisfy(([status, error]: [number, string]) => status === 400 && /permit2_owner/.test(error));
      const allowance = await stack.gaslessQuote(taker, { settlement: "allowance" });
      expect([allowance.status, allowance.body.error]).to.satisfy(([status, error]: [number, string]) => status === 400 && /permit2_owner/.test(error));
    });

    it("settlement=auto gives allowance to contract takers and native sells; permit2 refuses a contract instead of falling back, and gasless quotes it for an ERC-1271 signature", async () => {
      const contractTaker = f.contracts.routerRegistry;
      const auto = await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker: contractTaker, recipient: f.taker.account.address });
      expect([auto.status, auto.body.settlement]).to.deep.equal([200, "allowance"]);
      const wallet = await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker: f.taker.account.address });
      expect(wallet.body.settlement).to.equal("permit2");
      const forced = await stack.api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker: contractTaker, settlement: "permit2", recipient: f.taker.account.address });
      expect([forced.status, forced.body.code]).to.deep.equal([400, "invalid_request"]);
      expect(forced.body.error).to.match(/settlement permit2/);
      const gasless = await stack.gaslessQuote(contractTaker, { recipient: f.taker.account.address });
      expect([gasless.status, gasless.body.settlement, gasless.body.permit2.signature_kind], JSON.stringify(gasless.body)).to.deep.equal([200, "permit2", "eip1271"]);
    });

    it("issues.balance and issues.allowance count the relayer fee on top of the sell amount", async () => {
      const [taker] = await fundedTakers(f, 1, parseUnits("1000", 6));
      const exact = (await stack.gaslessQuote(taker!.address, { sell_amount: parseUnits("1000", 6) })).body;
      const debit = BigInt(exact.sell_amount) + BigInt(exact.relayer_fee.amount);
      expect(exact.issues.balance).to.deep.equal({ token: exact.sell_token, actual: parseUnits("1000", 6).toString(), expected: debit.toString() });
      const fits = (await stack.gaslessQuote(taker!.address, { sell_amount: parseUnits("900", 6) })).body;
      expect(fits.issues.balance).to.equal(null);
      expect(fits.issues.allowance).to.equal(null);
    });

    it("prices the fee on the gas limit the relayer signs: 1.5 × the model, plus the worst case of each native payout (the recipient's and an integrator fee's in ETH)", async () => {
      const taker = f.taker.account.address;
      // The fee's draft calldata assumes the widest fee (32 non-zero bytes): at most 1.5 × 384 gas more than the signed limit.
      for (const [params, payouts] of [[{}, 0], [{ buy_token: "ETH" }, 1], [{ buy_token: "ETH", fee_bps: 40 }, 2]] as const) {
        const quote = (await stack.gaslessQuote(taker, params)).body;
        // This taker has not approved Permit2: the quote offers the token permit, whose gas the relayer's limit adds.
        const permitGas = quote.approval === null ? 0 : TOKEN_PERMIT_MODEL_GAS;
        expect(quote.approval?.type).to.equal("permit");
        expect(quote.relayer_fee.gas - Number(relayGasLimit(quote.tx.estimated_gas, 0)) - permitGas, JSON.stringify(params)).to.be.within(
          payouts * Number(NATIVE_PAYOUT_WORST_CASE_GAS),
          payouts * Number(NATIVE_PAYOUT_WORST_CASE_GAS) + 576,
        );
        const fee = BigInt(quote.relayer_fee.amount);
        expect(fee > 0n).to.equal(true);
      }
    });

    it("an operator sponsoring gas quotes a zero fee", async () => {
      await stack.close();
      stack = await startGaslessStack(f, { gasless: { sponsorGas: true } });
      const quote = (await stack.gaslessQuote(f.taker.account.address)).body;
      expect(quote.relayer_fee.amount).to.equal("0");
      expect(quote.permit2.message.witness.relayerFee).to.equal("0");
    });

    it("without a relayer configured, gasless quotes and submissions are a 503 that says so, and other quotes work", async () => {
      const api = await startQuoteApi(f);
      try {
        const taker = f.taker.account.address;
        expect((await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker })).status).to.equal(200);
        const gasless = await api.quote({ sell_token: "USDC", buy_token: "WETH", sell_amount: 1_000_000, taker, permit2_owner: taker });
        expect([gasless.status, gasless.body.code]).to.deep.equal([503, "gasless_unavailable"]);
        const submit = await api.request("POST", "/gasless/submit", {
          json: { quote_id: "7c0e2d6e-1b7e-4c1e-9a52-1f0e6f4b9a11", signature: `0x${"11".repeat(65)}` },
          headers: { authorization: `Bearer ${api.apiKey.secret}` },
        });
        expect([submit.status, submit.body.code]).to.deep.equal([503, "gasless_unavailable"]);
      } finally {
        await api.close();
      }
    });
  });
});

