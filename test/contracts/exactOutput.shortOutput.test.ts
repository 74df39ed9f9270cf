import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { parseEther, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { encodeRouteActions, encodeSwapExactOutputNative, NATIVE_TOKEN, takerExactOutputRouterAbi, uniswapV2PairAbi, type ExactOutputOrder, type RouteAction } from "../../sdk";
import { balanceOf } from "../fixtures/testRoute";
import { taxedMarketFixture, type TaxedMarketFixture } from "../fixtures/taxedMarket";
import { expectRevert } from "../helpers/expectRevert";

/**
 * A route run backwards whose swaps pay the recipient directly (nothing after them, and they yield the
 * buy token) measures what the recipient received, as an exact-input route does: the pools sent exactly
 * `buyAmount`, but a token that takes a tax on the way (the devnet's TAXD, 3 % on a buy from its pool)
 * leaves the recipient short, and the whole order is refused rather than settled below what was signed.
 */

const QUOTE_ID: Hex = `0x${"5e".repeat(32)}`;

async function now(f: TaxedMarketFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** ETH → WETH, then a SPLIT of two legs on the WETH/TAXD pair (a SPLIT is run backwards), the legs paying the recipient. */
async function buyTaxedOrder(f: TaxedMarketFixture, buyAmount: bigint): Promise<ExactOutputOrder> {
  const pair = f.taxed.pool.address;
  const taxd = f.taxed.token.address;
  const hop: RouteAction = { type: "swapV2", pair, tokenOut: taxd, feeBps: 30 };
  const actions: RouteAction[] = [{ type: "wrap" }, { type: "split", legs: [{ shareBps: 5000, hops: [hop] }, { shareBps: 5000, hops: [hop] }] }];
  return { sellToken: NATIVE_TOKEN, maxSellAmount: parseEther("1"), buyToken: taxd, buyAmount, recipient: f.recipient.account.address, deadline: (await now(f)) + 600n, quoteId: QUOTE_ID, actions: encodeRouteActions(actions) };
}

async function reserves(f: TaxedMarketFixture, pair: Address): Promise<readonly [bigint, bigint]> {
  const [reserve0, reserve1] = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" });
  return [reserve0, reserve1];
}

describe("Exact output run backwards, paying the recipient directly: the recipient's balance change is checked against buyAmount", () => {
  it("refuses the order (SwapInsufficientOutput naming what arrived and what was signed) when the buy token's tax leaves the recipient short, and nothing moves", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const buyAmount = parseUnits("100", 18);
    const order = await buyTaxedOrder(f, buyAmount);
    const taxd = f.taxed.token.address;
    const recipientBefore = await balanceOf(f, taxd, order.recipient);
    const reservesBefore = await reserves(f, f.taxed.pool.address);
    // Each leg's pair sends 50 TAXD; the 3 % buy tax keeps 1.5 of each from the recipient.
    const arrived = buyAmount - 2n * ((buyAmount / 2n) * 300n) / 10_000n;
    expect(arrived).to.equal(parseUnits("97", 18));
    await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapExactOutputNative(order), value: order.maxSellAmount }), "SwapInsufficientOutput", [arrived, buyAmount]);
    expect(await balanceOf(f, taxd, order.recipient)).to.equal(recipientBefore);
    expect(await reserves(f, f.taxed.pool.address)).to.deep.equal(reservesBefore);
  });

  it("settles the same order once the token stops taxing: the recipient gets exactly buyAmount, the unused ETH goes back", async () => {
    const f = await loadFixture(taxedMarketFixture);
    const taxed = await f.publicClient.readContract({ address: f.taxed.token.address, abi: [{ type: "function", name: "buyTaxBps", stateMutability: "view", inputs: [], outputs: [{ type: "uint256" }] }] as const, functionName: "buyTaxBps" });
    expect(taxed).to.equal(300n);
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.deployer.writeContract({ address: f.taxed.token.address, abi: [{ type: "function", name: "setTaxes", stateMutability: "nonpayable", inputs: [{ type: "uint256" }, { type: "uint256" }, { type: "uint256" }], outputs: [] }] as const, functionName: "setTaxes", args: [0n, 0n, 0n] }),
    });
    const buyAmount = parseUnits("100", 18);
    const order = await buyTaxedOrder(f, buyAmount);
    const taxd = f.taxed.token.address;
    const recipientBefore = await balanceOf(f, taxd, order.recipient);
    const takerBefore = await f.publicClient.getBalance({ address: f.taker.account.address });
    const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapExactOutputNative(order), value: order.maxSellAmount }) });
    expect(receipt.status).to.equal("success");
    expect((await balanceOf(f, taxd, order.recipient)) - recipientBefore).to.equal(buyAmount);
    const [settled] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
    expect(settled!.args.buyAmount).to.equal(buyAmount);
    expect(settled!.args.sellAmount > 0n && settled!.args.sellAmount < order.maxSellAmount).to.equal(true);
    // Only the ETH the legs' pairs asked for (wrapped as each was paid) left the taker, besides gas.
    const gas = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(takerBefore - (await f.publicClient.getBalance({ address: f.taker.account.address })) - gas).to.equal(settled!.args.sellAmount);
    expect(await f.publicClient.getBalance({ address: f.routerAddress })).to.equal(0n);
  });
});
