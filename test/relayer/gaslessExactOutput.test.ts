import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther, parseEventLogs, parseUnits, type Hex } from "viem";
import { gaslessExactOutputPermitTypes, gaslessExactOutputRouterAbi, verifyQuoteOrder, withDomainType, type QuoteJson } from "../../sdk";
import { fundedTakers, startGaslessStack, type GaslessStack } from "../fixtures/gaslessStack";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";

describe("gasless exact-output swaps (buy_amount with permit2_owner), API + relayer + chain", function () {
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
  /** A gasless quote for `taker` buying exactly `buy_amount` of WETH with USDC. */
  const exactOutputQuote = (taker: `0x${string}`, params: Record<string, string | bigint | number>) =>
    stack.api.quote({ sell_token: "USDC", buy_token: "WETH", taker, permit2_owner: taker, ...params });

  it("quote → sign max_sell_amount + relayer fee (GaslessExactOutputWitness) → submit → confirmed: at least buy_amount delivered, at most max_sell_amount spent, the fee on top", async () => {
    const [taker] = await fundedTakers(f, 1);
    const buyAmount = parseEther("0.1");
    const { status, body } = await exactOutputQuote(taker!.address, { buy_amount: buyAmount, slippage_bps: 100 });
    expect(status, JSON.stringify(body)).to.equal(200);
    const quote = body!;
    expect(quote.gasless).to.equal(true);
    expect(quote.tx.to).to.equal(f.contracts.gaslessSwapRouter);
    expect(quote.permit2.types).to.deep.equal(JSON.parse(JSON.stringify(withDomainType(gaslessExactOutputPermitTypes))));
    const fee = BigInt(quote.relayer_fee.amount);
    expect(fee > 0n).to.equal(true);
    expect(BigInt(quote.permit2.message.permitted.amount)).to.equal(BigInt(quote.max_sell_amount) + fee);
    expect(quote.permit2.message.witness).to.include({ buyAmount: buyAmount.toString(), maxSellAmount: quote.max_sell_amount, relayerFee: quote.relayer_fee.amount });
    expect(quote.approval, "the exact-output entry point has no token-permit variant").to.equal(null);
    expect(verifyQuoteOrder(quote as QuoteJson, { taker: taker!.address, buyAmount, gasless: true, slippageBps: 100 }).kind).to.equal("gasless");

    const usdcBefore = await balanceOf(f, f.token("USDC"), taker!.address);
    const wethBefore = await balanceOf(f, f.token("WETH"), taker!.address);
    const payeeBefore = await balanceOf(f, f.token("USDC"), stack.feeRecipient);
    const ethBefore = await f.publicClient.getBalance({ address: taker!.address });
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign(quote, taker!) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(202);
    const relay = await stack.waitFor(submitted.body.relay_id);
    expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");

    const receipt = await f.publicClient.getTransactionReceipt({ hash: relay.tx_hash as Hex });
    const [settled] = parseEventLogs({ abi: gaslessExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
    expect(settled?.args.quoteId).to.equal(quote.permit2.message.witness.quoteId);
    const spent = usdcBefore - (await balanceOf(f, f.token("USDC"), taker!.address)) - fee;
    expect((await balanceOf(f, f.token("WETH"), taker!.address)) - wethBefore >= buyAmount).to.equal(true);
    expect(spent <= BigInt(quote.max_sell_amount), `spent ${spent}`).to.equal(true);
    expect(spent).to.equal(settled!.args.sellAmount);
    expect(await balanceOf(f, f.token("USDC"), stack.feeRecipient)).to.equal(payeeBefore + fee);
    expect(await f.publicClient.getBalance({ address: taker!.address }), "the taker paid no gas").to.equal(ethBefore);
  });

  it("a submission whose signature is over another witness (the exact-input type) is refused with 400 signature_mismatch", async () => {
    const [taker] = await fundedTakers(f, 1);
    const { body: quote } = await exactOutputQuote(taker!.address, { buy_amount: parseEther("0.01") });
    const { GaslessExactOutputWitness: witnessType, PermitWitnessTransferFrom: _permit, ...rest } = quote.permit2.types;
    // The same message signed as a GaslessSwapWitness with minBuyAmount in place of the exact-output fields.
    const forged = {
      ...quote.permit2,
      types: { ...rest, PermitWitnessTransferFrom: quote.permit2.types.PermitWitnessTransferFrom.map((field: { name: string; type: string }) => (field.name === "witness" ? { ...field, type: "GaslessSwapWitness" } : field)), GaslessSwapWitness: witnessType },
      message: quote.permit2.message,
    };
    const submitted = await stack.submit({ quote_id: quote.quote_id, signature: await stack.sign({ permit2: forged }, taker!) });
    expect(submitted.status, JSON.stringify(submitted.body)).to.equal(400);
    expect(submitted.body).to.include({ code: "signature_mismatch" });
  });

  it("a contract taker (smart wallet) cannot get a gasless exact-output quote: 400 naming buy_amount", async () => {
    const { status, body } = await exactOutputQuote(f.contracts.permit2, { buy_amount: parseEther("0.01") });
    expect(status, JSON.stringify(body)).to.equal(400);
    expect(body!.error).to.include("buy_amount").and.include("contract");
  });

  it("the relayer sends an exact-output order alone, never in a batch (swapGaslessBatch takes exact-input orders only)", async () => {
    const { isBatchable } = await import("../../relayer/batching/batchBroadcast");
    const [taker] = await fundedTakers(f, 1, parseUnits("1000", 6));
    const { body: quote } = await exactOutputQuote(taker!.address, { buy_amount: parseEther("0.01") });
    expect(isBatchable(quote.tx.data)).to.equal(false);
  });
});
