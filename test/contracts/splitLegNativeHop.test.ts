import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther, type Hex } from "viem";
import { encodeRouteActions, encodeSwapNative, NATIVE_TOKEN, type RouteAction } from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

/**
 * The route interpreter refuses a swap "into" the native placeholder before it reaches a venue, but the
 * hops inside a SPLIT leg go to their venue module directly (VenueHops' `_hop`): there it is each venue's
 * own check that refuses an intermediate hop paying out the native asset, which no pool holds.
 */

const QUOTE_ID: Hex = `0x${"4e".repeat(32)}`;

async function sendNative(f: SettlementFixture, actions: RouteAction[]) {
  // Far ahead: under the whole suite an earlier file may have moved the chain's clock past the fixture's block.
  const deadline = (await f.publicClient.getBlock()).timestamp + 365n * 86_400n;
  const order = { sellToken: NATIVE_TOKEN, sellAmount: parseEther("1"), buyToken: f.token("USDC"), minBuyAmount: 0n, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions: encodeRouteActions(actions) };
  return f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: order.sellAmount });
}

describe("A split leg's intermediate hop paying out the native asset is refused by its venue module (SwapUnexpectedToken)", () => {
  for (const venue of ["V2", "V3"] as const) {
    it(`refuses a ${venue} hop WETH → native inside the second leg, after the first leg traded, and nothing moves`, async () => {
      const f = await loadFixture(settlementFixture);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const wethUsdc = f.pool("WETH", "USDC");
      const toUsdc: RouteAction = { type: "swapV2", pair: wethUsdc, tokenOut: usdc, feeBps: 30 };
      const intoNative: RouteAction = venue === "V2" ? { type: "swapV2", pair: wethUsdc, tokenOut: NATIVE_TOKEN, feeBps: 30 } : { type: "swapV3", tokenOut: NATIVE_TOKEN, fee: 3000, venue: 0 };
      const actions: RouteAction[] = [{ type: "wrap" }, { type: "split", legs: [{ shareBps: 5000, hops: [toUsdc] }, { shareBps: 5000, hops: [intoNative, toUsdc] }] }];
      const [pairWeth, recipientUsdc] = [await balanceOf(f, weth, wethUsdc), await balanceOf(f, usdc, f.recipient.account.address)];
      await expectRevert(sendNative(f, actions), "SwapUnexpectedToken", [weth, NATIVE_TOKEN]);
      expect(await balanceOf(f, weth, wethUsdc)).to.equal(pairWeth);
      expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(recipientUsdc);
    });
  }
});
