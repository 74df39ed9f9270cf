import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseUnits, type Address, type Hex } from "viem";
import { encodeSwapExactOutputWithAllowance, encodeSwapWithAllowance, type ExactOutputOrder, type SwapOrder } from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { exactOutputOrderFor, exactOutputTestRoute } from "../fixtures/exactOutputRoute";
import { balanceOf, orderFor, testRoute, testSplit } from "../fixtures/testRoute";

/**
 * A V2 pair orders its tokens by address: a hop whose input sorts below its output pays `amount1Out`,
 * one whose input sorts above pays `amount0Out`. Every hop-pricing and hop-executing path of
 * RouteExecutor and ExactOutputExecutor has both branches; these tests trade the same pairs in both
 * directions, so each branch runs in every run, whatever addresses the devnet's tokens got.
 */

const QUOTE_ID: Hex = `0x${"d1".repeat(32)}`;
const SYMBOLS = ["USDC", "USDT"] as const;

async function bothWays() {
  const f = await settlementFixture();
  for (const symbol of SYMBOLS) {
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token(symbol), abi: erc20Abi, functionName: "approve", args: [f.contracts.allowanceHolder, maxUint256] }),
    });
  }
  return f;
}

const sortsAbove = (a: Address, b: Address) => a.toLowerCase() > b.toLowerCase();

async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** Sends `data` through the allowance holder and returns what the taker spent and the recipient received. */
async function settle(f: SettlementFixture, order: Pick<SwapOrder, "sellToken" | "buyToken" | "recipient">, data: Hex) {
  const taker = f.taker.account.address;
  const [sellBefore, buyBefore] = [await balanceOf(f, order.sellToken, taker), await balanceOf(f, order.buyToken, order.recipient)];
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data }) });
  expect(receipt.status).to.equal("success");
  return { spent: sellBefore - (await balanceOf(f, order.sellToken, taker)), received: (await balanceOf(f, order.buyToken, order.recipient)) - buyBefore };
}

describe("RouteExecutor: hops whose input token sorts above their output token (amount0Out) and below it (amount1Out)", () => {
  it("the devnet has the pair in one order: exactly one of USDC→USDT and USDT→USDC is reverse-ordered", async () => {
    const f = await loadFixture(bothWays);
    const [usdc, usdt] = [f.token("USDC"), f.token("USDT")];
    expect([sortsAbove(usdc, usdt), sortsAbove(usdt, usdc)].filter(Boolean)).to.have.length(1);
  });

  for (const [from, to] of [SYMBOLS, [...SYMBOLS].reverse()] as const) {
    it(`exact input, one SWAP_V2 ${from}→${to}: pays exactly the V2 formula's output in either token order`, async () => {
      const f = await loadFixture(bothWays);
      const sellAmount = parseUnits("2500", 6);
      const route = await testRoute(f, [from, to], sellAmount);
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const { spent, received } = await settle(f, order, encodeSwapWithAllowance(order, f.routerAddress));
      expect(spent).to.equal(sellAmount);
      expect(received).to.equal(route.buyAmount);
    });

    it(`exact input, a SPLIT ${from}→${to} (direct leg and a leg through WETH): each leg's hops pay the formula's output in either token order`, async () => {
      const f = await loadFixture(bothWays);
      const sellAmount = parseUnits("40000", 6);
      const split = await testSplit(f, [[from, to], [from, "WETH", to]], [6000, 4000], sellAmount);
      const order = orderFor(split, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const { spent, received } = await settle(f, order, encodeSwapWithAllowance(order, f.routerAddress));
      expect(spent).to.equal(sellAmount);
      expect(received).to.equal(split.buyAmount);
    });

    it(`exact output, ${from}→${to} one hop and split: the backward pricing takes exactly getAmountIn of the right reserves in either token order`, async () => {
      const f = await loadFixture(bothWays);
      const buyAmount = parseUnits("1234.5", 6);
      for (const paths of [[[from, to]], [[from, to], [from, "WETH", to]]] as const) {
        const route = await exactOutputTestRoute(f, paths, buyAmount, paths.length > 1 ? { sharesBps: [5000, 5000] } : {});
        const order: ExactOutputOrder = exactOutputOrderFor(route, buyAmount, route.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
        const { spent, received } = await settle(f, order, encodeSwapExactOutputWithAllowance(order, f.routerAddress));
        expect(spent).to.equal(route.amountIn);
        expect(received >= buyAmount, "at least buyAmount").to.equal(true);
      }
    });
  }
});
