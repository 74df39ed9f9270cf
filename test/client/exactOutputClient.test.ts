import { expect } from "chai";
import { erc20Abi, parseEther, parseEventLogs, type Address } from "viem";
import { QuoteMismatchError, takerExactOutputRouterAbi, type QuoteJson } from "../../sdk";
import { fundedTaker } from "../fixtures/fundedTaker";
import { sharedDevnet, type SharedDevnet } from "../fixtures/sharedDevnet";

async function balance(devnet: SharedDevnet, token: Address, owner: Address): Promise<bigint> {
  return devnet.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
}

describe("trading client (sdk): exact-output quotes against npm start's devnet", function () {
  this.timeout(120_000);
  let devnet: SharedDevnet;
  before(async function () {
    this.timeout(120_000);
    devnet = await sharedDevnet();
  });

  it("getQuote({ buyAmount }) then executeQuote, in each taker-submitted mode: at least buy_amount delivered, at most max_sell_amount spent, native refunded exactly", async () => {
    const { client } = await devnet.onboardedClient();
    const funded = await fundedTaker(devnet, { USDC: 10_000_000_000n });
    const wallet = devnet.wallet(funded.privateKey);
    const taker = wallet.account.address;
    const [usdc, weth, dai] = [devnet.token("USDC"), devnet.token("WETH"), devnet.token("DAI")];
    try {
      for (const settlement of ["permit2", "allowance"] as const) {
        const buyAmount = settlement === "permit2" ? parseEther("0.05") : parseEther("20");
        const buyToken = settlement === "permit2" ? weth : dai;
        const quote = await client.getQuote({ sellToken: usdc, buyToken, buyAmount, taker, settlement, slippageBps: 100 });
        expect(quote.settlement).to.equal(settlement);
        expect(quote.buy_amount).to.equal(buyAmount.toString());
        const [sellBefore, buyBefore] = [await balance(devnet, usdc, taker), await balance(devnet, buyToken, taker)];
        const { receipt } = await client.executeQuote(quote, wallet);
        expect(receipt.status).to.equal("success");
        const spent = sellBefore - (await balance(devnet, usdc, taker));
        expect((await balance(devnet, buyToken, taker)) - buyBefore >= buyAmount, settlement).to.equal(true);
        expect(spent <= BigInt(quote.max_sell_amount!), `${settlement}: spent ${spent}`).to.equal(true);
      }
      const buyAmount = 250_000_000n;
      const native = await client.getQuote({ sellToken: "ETH", buyToken: usdc, buyAmount, taker, slippageBps: 300 });
      expect(native.tx.value).to.equal(native.max_sell_amount);
      const ethBefore = await devnet.publicClient.getBalance({ address: taker });
      const usdcBefore = await balance(devnet, usdc, taker);
      const { receipt } = await client.executeQuote(native, wallet);
      const gas = receipt.gasUsed * receipt.effectiveGasPrice;
      const spentEth = ethBefore - (await devnet.publicClient.getBalance({ address: taker })) - gas;
      expect((await balance(devnet, usdc, taker)) - usdcBefore >= buyAmount).to.equal(true);
      const [refund] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapInputRefunded" });
      expect(refund!.args.amount, "the refund is the maximum less what was spent").to.equal(BigInt(native.max_sell_amount!) - spentEth);
      expect(spentEth <= BigInt(native.max_sell_amount!)).to.equal(true);
    } finally {
      client.close();
    }
  });

  it("swapGasless on a gasless exact-output quote: the client checks and signs it, the relayer settles it; at least buy_amount arrives, at most max_sell_amount plus the fee leaves", async () => {
    const { client } = await devnet.onboardedClient();
    const funded = await fundedTaker(devnet, { USDC: 5_000_000_000n });
    const wallet = devnet.wallet(funded.privateKey);
    const taker = wallet.account.address;
    const [usdc, weth] = [devnet.token("USDC"), devnet.token("WETH")];
    try {
      const buyAmount = parseEther("0.03");
      const quote = await client.getQuote({ sellToken: usdc, buyToken: weth, buyAmount, taker, gasless: true });
      expect(quote.gasless).to.equal(true);
      const [usdcBefore, wethBefore] = [await balance(devnet, usdc, taker), await balance(devnet, weth, taker)];
      const relay = await client.swapGasless(quote, wallet, { intervalMs: 200, timeoutMs: 60_000 });
      expect(relay.status, JSON.stringify(relay)).to.equal("confirmed");
      expect((await balance(devnet, weth, taker)) - wethBefore >= buyAmount).to.equal(true);
      const debited = usdcBefore - (await balance(devnet, usdc, taker));
      expect(debited <= BigInt(quote.max_sell_amount!) + BigInt(quote.relayer_fee!.amount), `debited ${debited}`).to.equal(true);
    } finally {
      client.close();
    }
  });

  it("the quote check refuses an exact-output quote whose order was altered (a larger maximum, a smaller output) and one answering a sell_amount request", async () => {
    const { client } = await devnet.onboardedClient();
    const taker = (await fundedTaker(devnet, {})).address;
    try {
      const quote = await client.getQuote({ sellToken: devnet.token("USDC"), buyToken: devnet.token("WETH"), buyAmount: parseEther("0.01"), taker });
      await client.verifyQuote(quote, { taker, buyAmount: parseEther("0.01") }).catch((error: unknown) => {
        // A fresh taker holds no USDC: only the balance issue may refuse it.
        expect((error as Error).name).to.equal("InsufficientBalanceError");
      });
      const raised: QuoteJson = { ...quote, max_sell_amount: (BigInt(quote.max_sell_amount!) * 2n).toString(), issues: { ...quote.issues, balance: null } };
      const refusedMax = await client.verifyQuote(raised, { taker }).catch((error: unknown) => error);
      expect(refusedMax).to.be.instanceOf(QuoteMismatchError);
      expect((refusedMax as QuoteMismatchError).field).to.equal("tx.data.order.maxSellAmount");
      const smaller: QuoteJson = { ...quote, buy_amount: "1", min_buy_amount: "1", issues: { ...quote.issues, balance: null } };
      const refusedOut = await client.verifyQuote(smaller, { taker, buyAmount: parseEther("0.01") }).catch((error: unknown) => error);
      expect((refusedOut as QuoteMismatchError).field).to.equal("buy_amount");
      const asExactInput = await client.verifyQuote({ ...quote, issues: { ...quote.issues, balance: null } }, { taker, sellAmount: quote.sell_amount }).catch((error: unknown) => error);
      expect((asExactInput as QuoteMismatchError).field).to.equal("max_sell_amount");
    } finally {
      client.close();
    }
  });
});
