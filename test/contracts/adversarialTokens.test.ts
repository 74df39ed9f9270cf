import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getAddress, maxUint256, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { encodeRouteActions, encodeSwapNative, encodeSwapWithAllowance, getAmountOut, NATIVE_TOKEN, takerSwapRouterAbi, uniswapV2PairAbi, type RouteAction, type SwapOrder } from "../../sdk";
import { uniswapArtifacts } from "../../scripts/deploy/uniswapArtifacts";
import { writeAndWait } from "../../scripts/deploy/writeAndWait";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

/**
 * Tokens that break naive routers, traded through real Uniswap V2 pairs of the devnet factory:
 * fee-on-transfer, no return value, revert on zero transfers, rebasing. For each, either the swap
 * settles and SwapSettled.buyAmount is exactly what the recipient gained (and the router keeps
 * nothing), or it reverts as a whole.
 */

const QUOTE_ID: Hex = `0x${"ad".repeat(32)}`;

async function withOddToken(f: SettlementFixture) {
  const client = { public: f.publicClient, wallet: f.deployer };
  const token = await hre.viem.deployContract("AdversarialToken", [], { client });
  const factory = uniswapArtifacts.factory();
  await writeAndWait(f, f.deployer, { address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "createPair", args: [token.address, f.contracts.weth] });
  const pair = getAddress(
    (await f.publicClient.readContract({ address: f.contracts.uniswapV2Factory, abi: factory.abi, functionName: "getPair", args: [token.address, f.contracts.weth] })) as Address,
  );
  const weth = uniswapArtifacts.weth9();
  await writeAndWait(f, f.deployer, { address: f.contracts.weth, abi: weth.abi, functionName: "deposit", value: parseUnits("100", 18) });
  await writeAndWait(f, f.deployer, { address: f.contracts.weth, abi: weth.abi, functionName: "transfer", args: [pair, parseUnits("100", 18)] });
  await f.publicClient.waitForTransactionReceipt({ hash: await token.write.mint([pair, parseUnits("300000", 18)]) });
  await writeAndWait(f, f.deployer, { address: pair, abi: uniswapArtifacts.pair().abi, functionName: "mint", args: [f.deployer.account.address] });
  await f.publicClient.waitForTransactionReceipt({ hash: await token.write.mint([f.taker.account.address, parseUnits("10000", 18)]) });
  await f.publicClient.waitForTransactionReceipt({
    hash: await f.taker.writeContract({ address: token.address, abi: erc20Abi, functionName: "approve", args: [f.contracts.allowanceHolder, maxUint256] }),
  });
  return { ...f, odd: token, oddAddress: getAddress(token.address), oddPair: pair };
}

async function fixture() {
  return withOddToken(await settlementFixture());
}

type Fixture = Awaited<ReturnType<typeof fixture>>;

async function quote(f: Fixture, tokenIn: Address, amountIn: bigint) {
  const [reserve0, reserve1] = await f.publicClient.readContract({ address: f.oddPair, abi: uniswapV2PairAbi, functionName: "getReserves" });
  const zeroForOne = tokenIn.toLowerCase() < (tokenIn === f.oddAddress ? f.contracts.weth : f.oddAddress).toLowerCase();
  return getAmountOut(amountIn, zeroForOne ? reserve0 : reserve1, zeroForOne ? reserve1 : reserve0, 30);
}

async function buyOdd(f: Fixture, minBuyAmount: bigint, extra: RouteAction[] = []) {
  const sellAmount = parseUnits("1", 18);
  const actions = encodeRouteActions([{ type: "wrap" }, { type: "swapV2", pair: f.oddPair, tokenOut: f.oddAddress, feeBps: 30 }, ...extra]);
  const order: SwapOrder = {
    sellToken: NATIVE_TOKEN, sellAmount, buyToken: f.oddAddress, minBuyAmount, recipient: f.recipient.account.address,
    deadline: (await f.publicClient.getBlock()).timestamp + 600n, quoteId: QUOTE_ID, actions,
  };
  return f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: sellAmount });
}

async function expectExactSettlement(f: Fixture, send: () => Promise<Hex>) {
  const before = await balanceOf(f, f.oddAddress, f.recipient.account.address);
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await send() });
  expect(receipt.status).to.equal("success");
  const [settled] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
  expect((await balanceOf(f, f.oddAddress, f.recipient.account.address)) - before).to.equal(settled!.args.buyAmount);
  expect(await balanceOf(f, f.oddAddress, f.routerAddress)).to.equal(0n);
  expect(await balanceOf(f, f.contracts.weth, f.routerAddress)).to.equal(0n);
  return settled!.args.buyAmount;
}

describe("adversarial tokens", () => {
  it("fee-on-transfer buy token: SwapSettled reports what the recipient really received, and the minimum is checked against it", async () => {
    const f = await loadFixture(fixture);
    await f.odd.write.configure([100n, false, false]);
    const formula = await quote(f, f.contracts.weth, parseUnits("1", 18));
    await expectRevert(buyOdd(f, formula), "SwapInsufficientOutput", [formula - formula / 100n, formula]);
    const received = await expectExactSettlement(f, () => buyOdd(f, formula - formula / 100n));
    expect(received).to.equal(formula - formula / 100n);
  });

  it("fee-on-transfer sell token: the pair receives less than the order sells, so the whole swap reverts", async () => {
    const f = await loadFixture(fixture);
    await f.odd.write.configure([100n, false, false]);
    const sellAmount = parseUnits("100", 18);
    const order: SwapOrder = {
      sellToken: f.oddAddress, sellAmount, buyToken: f.contracts.weth, minBuyAmount: 1n, recipient: f.recipient.account.address,
      deadline: (await f.publicClient.getBlock()).timestamp + 600n, quoteId: QUOTE_ID,
      actions: encodeRouteActions([{ type: "swapV2", pair: f.oddPair, tokenOut: f.contracts.weth, feeBps: 30 }]),
    };
    const before = await balanceOf(f, f.oddAddress, f.taker.account.address);
    let failed = false;
    await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) }).catch(() => (failed = true));
    expect(failed).to.equal(true);
    expect(await balanceOf(f, f.oddAddress, f.taker.account.address)).to.equal(before);
  });

  it("a token whose transfers return nothing is sold through the holder and bought into the recipient", async () => {
    const f = await loadFixture(fixture);
    await f.odd.write.configure([0n, true, false]);
    await expectExactSettlement(f, async () => buyOdd(f, await quote(f, f.contracts.weth, parseUnits("1", 18))));
    const sellAmount = parseUnits("50", 18);
    const order: SwapOrder = {
      sellToken: f.oddAddress, sellAmount, buyToken: f.contracts.weth, minBuyAmount: await quote(f, f.oddAddress, sellAmount), recipient: f.recipient.account.address,
      deadline: (await f.publicClient.getBlock()).timestamp + 600n, quoteId: QUOTE_ID,
      actions: encodeRouteActions([{ type: "swapV2", pair: f.oddPair, tokenOut: f.contracts.weth, feeBps: 30 }]),
    };
    const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, f.routerAddress) }) });
    expect(receipt.status).to.equal("success");
  });

  it("a token that reverts on zero transfers: a zero platform fee is skipped, not transferred", async () => {
    const f = await loadFixture(fixture);
    await f.odd.write.configure([0n, false, true]);
    const formula = await quote(f, f.contracts.weth, parseUnits("1", 18));
    const received = await expectExactSettlement(f, () => buyOdd(f, formula, [{ type: "fee", bps: 0, recipient: f.feeRecipient.account.address }]));
    expect(received).to.equal(formula);
  });

  it("a rebasing token (share rounding loses a wei, like stETH) settles exactly what the recipient gained, checked against the minimum", async () => {
    const f = await loadFixture(fixture);
    await f.odd.write.rebase([3n * 10n ** 18n]);
    const formula = await quote(f, f.contracts.weth, parseUnits("1", 18));
    const received = await expectExactSettlement(f, () => buyOdd(f, formula - 2n));
    expect(received >= formula - 2n && received <= formula).to.equal(true);
  });
});
