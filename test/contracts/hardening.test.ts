import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getAddress, maxUint256, parseEventLogs, parseUnits, toFunctionSelector, zeroAddress, type Address, type Hex } from "viem";
import { encodeRouteActions, encodeSwapGaslessBatch, encodeSwapNative, gaslessBatchSwapRouterAbi, encodeSwapWithAllowance, gaslessSwapRouterAbi, NATIVE_TOKEN, takerSwapRouterAbi, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS } from "../../sdk/relay/batchGasLimit";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { signedGaslessCalldata, signedGaslessOrder } from "../fixtures/signedGasless";
import { nonceUsed } from "../fixtures/gaslessBatch";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";
import { expectRevert, revertOf } from "../helpers/expectRevert";

/**
 * One block per finding of the contract review (issue 11). Each test is the reviewer's proof of
 * concept, run against the fixed contracts: it fails on the code before the fix.
 */

const QUOTE_ID: Hex = `0x${"11".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 11n << 64n;
/** The gasless router's signed relayer-fee payee in these tests. */
const FEE_PAYEE: Address = "0x00000000000000000000000000000000000fee11";

async function ready() {
  const f = await settlementFixture();
  for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
    });
  }
  return f;
}

async function now(f: SettlementFixture) {
  return (await f.publicClient.getBlock()).timestamp;
}

async function usdcOrder(f: SettlementFixture, path: string[] = ["USDC", "DAI"], recipient: Address = f.recipient.account.address, amount = "100") {
  const sellAmount = parseUnits(amount, 6);
  const route = await testRoute(f, path, sellAmount);
  return { route, order: orderFor(route, sellAmount, recipient, await now(f), QUOTE_ID) };
}

async function sendAllowanceSwap(f: SettlementFixture, order: SwapOrder, router: Address = f.routerAddress) {
  const hash = await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, router) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

function signedGasless(f: SettlementFixture, order: SwapOrder, nonce: bigint) {
  return signedGaslessCalldata(f, { order, nonce: NONCE_BASE + nonce, relayerFee: parseUnits("1", 6), relayerFeeRecipient: FEE_PAYEE });
}

async function signedBatch(f: SettlementFixture, orders: SwapOrder[], firstNonce: bigint) {
  const signed = await Promise.all(orders.map((order, index) => signedGaslessOrder(f, { order, nonce: NONCE_BASE + firstNonce + BigInt(index), relayerFee: parseUnits("1", 6), relayerFeeRecipient: FEE_PAYEE })));
  return encodeSwapGaslessBatch(signed, signed.map(() => BATCH_ORDER_GAS));
}

async function relay(f: SettlementFixture, data: Hex, from = f.relayer) {
  const hash = await from.sendTransaction({ to: f.contracts.gaslessSwapRouter, data });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

function griefingRecipient(f: SettlementFixture) {
  return hre.viem.deployContract("GriefingRecipient", [], { client: { public: f.publicClient, wallet: f.deployer } });
}

function fakePair(f: SettlementFixture) {
  return hre.viem.deployContract("FakePair", [], { client: { public: f.publicClient, wallet: f.deployer } });
}

describe("contract hardening (issue 11)", () => {
  describe("1. the registry's pause and migrations stop settlement on chain", () => {
    it("after pause(2) the paused router refuses an allowance swap through the holder; after unpause it settles again", async () => {
      const f = await loadFixture(ready);
      const { order } = await usdcOrder(f);
      await f.registry.write.pause([2n]);
      await expectRevert(sendAllowanceSwap(f, order), "SwapFeaturePaused", [2n]);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative({ ...order, sellToken: NATIVE_TOKEN }), value: order.sellAmount }), "SwapFeaturePaused", [2n]);
      await f.registry.write.unpause([2n]);
      expect((await sendAllowanceSwap(f, order)).status).to.equal("success");
    });

    it("after pause(3) a stranger relaying an already-signed gasless order is refused, and the signature stays unspent", async () => {
      const f = await loadFixture(ready);
      const { order } = await usdcOrder(f, ["USDC", "WETH"], f.taker.account.address);
      const data = await signedGasless(f, order, 1n);
      await f.registry.write.pause([3n]);
      await expectRevert(relay(f, data, f.stranger), "SwapFeaturePaused", [3n]);
      await f.registry.write.unpause([3n]);
      expect((await relay(f, data)).status).to.equal("success");
    });

    it("after pause(3) a stranger relaying an already-signed gasless batch is refused as a whole, and no signature in it is spent", async () => {
      const f = await loadFixture(ready);
      const first = await usdcOrder(f, ["USDC", "WETH"], f.taker.account.address);
      const second = await usdcOrder(f, ["USDC", "DAI"], f.taker.account.address);
      const data = await signedBatch(f, [first.order, second.order], 40n);
      await f.registry.write.pause([3n]);
      await expectRevert(relay(f, data, f.stranger), "SwapFeaturePaused", [3n]);
      for (const nonce of [40n, 41n]) expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + nonce)).to.equal(false);
      await f.registry.write.unpause([3n]);
      const receipt = await relay(f, data);
      expect(parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" })).to.have.length(2);
    });

    it("after a migration the old router settles inside the dwell window and is refused from the second it closes", async () => {
      const f = await loadFixture(ready);
      const successor = await f.newTakerRouter();
      await f.registry.write.stage([2n, successor]);
      await f.registry.write.activate([2n]);
      const closesAt = await f.registry.read.dwellDeadline([2n]);
      // Each fill moves the pool, so the repeated order accepts any output.
      const { order: quoted } = await usdcOrder(f);
      const order = { ...quoted, minBuyAmount: 1n };
      expect((await sendAllowanceSwap(f, order)).status).to.equal("success");
      expect((await sendAllowanceSwap(f, { ...order, deadline: closesAt + 3600n }, successor)).status).to.equal("success");
      await time.setNextBlockTimestamp(closesAt);
      await expectRevert(sendAllowanceSwap(f, { ...order, deadline: closesAt + 3600n }), "SwapRouterNotActive", [2n, closesAt]);
      await expectRevert(f.registry.read.prev([2n]), "RouterRegistryDwellWindowClosed");
      expect((await sendAllowanceSwap(f, { ...order, deadline: closesAt + 3600n }, successor)).status).to.equal("success");
    });

    it("a router displaced by a second migration inside the dwell window is refused at once", async () => {
      const f = await loadFixture(ready);
      for (const router of [await f.newTakerRouter(), await f.newTakerRouter()]) {
        await f.registry.write.stage([2n, router]);
        await f.registry.write.activate([2n]);
      }
      const { order } = await usdcOrder(f);
      await expectRevert(sendAllowanceSwap(f, order), "SwapRouterNotActive", [2n, 0n]);
    });

    it("a router that was deployed but never activated settles nothing, even through the holder", async () => {
      const f = await loadFixture(ready);
      const stray = await f.newTakerRouter();
      const { order } = await usdcOrder(f);
      await expectRevert(sendAllowanceSwap(f, order, stray), "SwapRouterNotActive", [2n, 0n]);
      await f.registry.write.stage([2n, stray]);
      await expectRevert(sendAllowanceSwap(f, order, stray), "SwapRouterNotActive", [2n, 0n]);
    });

    it("every router's copied status equals the registry's answer, and anyone's sync() leaves it so", async () => {
      const f = await loadFixture(ready);
      await f.registry.write.pause([3n]);
      const [paused, until] = await f.registry.read.statusOf([3n, f.contracts.gaslessSwapRouter]);
      expect([paused, until]).to.deep.equal([true, 2n ** 64n - 1n]);
      expect(await f.gaslessRouter.read.status()).to.deep.equal([paused, until]);
      const hash = await f.stranger.writeContract({ address: f.contracts.gaslessSwapRouter, abi: gaslessSwapRouterAbi, functionName: "sync" });
      const [synced] = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: (await f.publicClient.waitForTransactionReceipt({ hash })).logs, eventName: "RouterStatusSynced" });
      expect(synced?.args).to.deep.equal({ featureId: 3n, paused: true, activeUntil: 2n ** 64n - 1n });
      expect(await f.gaslessRouter.read.status()).to.deep.equal([true, 2n ** 64n - 1n]);
    });

    it("an activation whose router cannot take in its status fails as a whole (RouterRegistrySyncFailed)", async () => {
      const f = await loadFixture(ready);
      const notARouter = await fakePair(f);
      await f.registry.write.stage([2n, notARouter.address]);
      await expectRevert(f.registry.simulate.activate([2n]), "RouterRegistrySyncFailed", [getAddress(notARouter.address)]);
      expect(await f.registry.read.ownerOf([2n])).to.equal(f.routerAddress);
    });
  });

  describe("2. AllowanceHolder.exec takes no ETH", () => {
    it("a call with value reverts, so no ETH can be forwarded to an operator and credited to the holder", async () => {
      const f = await loadFixture(ready);
      const { order } = await usdcOrder(f);
      const execItem = (await hre.artifacts.readArtifact("AllowanceHolder")).abi.find((item) => item.type === "function" && item.name === "exec");
      expect((execItem as { stateMutability: string }).stateMutability).to.equal("nonpayable");
      // WETH9 as the operator: its payable fallback would have credited the holder with the ETH.
      const data = encodeSwapWithAllowance(order, f.contracts.weth);
      let failed = false;
      await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data, value: parseUnits("1", 18) }).catch(() => (failed = true));
      expect(failed).to.equal(true);
      expect(await f.publicClient.getBalance({ address: f.contracts.allowanceHolder })).to.equal(0n);
      expect(await balanceOf(f, f.contracts.weth, f.contracts.allowanceHolder)).to.equal(0n);
      const routerItem = takerSwapRouterAbi.find((item) => item.type === "function" && item.name === "swapWithAllowance");
      expect((routerItem as { stateMutability: string }).stateMutability).to.equal("nonpayable");
    });
  });

  describe("3. native payouts cannot grief the submitter", () => {
    const modes = [
      { name: "reverts when paid", mode: 1 },
      { name: "burns all the gas it is given", mode: 2 },
      { name: "returns a 200 kB return-data bomb", mode: 3 },
    ];

    async function gaslessToEth(f: SettlementFixture, recipient: Address, nonce: bigint) {
      const { route, order } = await usdcOrder(f, ["USDC", "ETH"], recipient, "3000");
      return { route, receipt: await relay(f, await signedGasless(f, order, nonce)) };
    }

    for (const { name, mode } of modes) {
      it(`a relayed USDC→ETH swap to a recipient that ${name} settles in WETH, at a bounded gas cost`, async () => {
        const f = await loadFixture(ready);
        const baseline = await gaslessToEth(f, f.recipient.account.address, 10n + BigInt(mode) * 2n);
        const griefer = await griefingRecipient(f);
        await griefer.write.setMode([mode]);
        const { route, receipt } = await gaslessToEth(f, griefer.address, 11n + BigInt(mode) * 2n);

        expect(receipt.status).to.equal("success");
        expect(await balanceOf(f, f.contracts.weth, griefer.address)).to.equal(route.buyAmount);
        const [wrapped] = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "NativePayoutWrapped" });
        expect(wrapped?.args).to.deep.equal({ to: getAddress(griefer.address), amount: route.buyAmount });
        const [settled] = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
        expect(settled?.args.buyAmount).to.equal(route.buyAmount);
        // At most the payout gas plus the WETH fallback above an ordinary payout, never the 1.2M seen before.
        const limit = baseline.receipt.gasUsed + (await f.gaslessRouter.read.NATIVE_PAYOUT_GAS()) + 40_000n;
        expect(receipt.gasUsed < limit, `gasUsed ${receipt.gasUsed} >= ${limit}`).to.equal(true);
      });
    }

    it("in one batch, recipients that revert, burn gas and return a bomb are each paid in WETH, every order settles, at a bounded gas cost", async () => {
      const f = await loadFixture(ready);
      const baseline = await relay(f, await signedBatch(f, [(await usdcOrder(f, ["USDC", "ETH"], f.recipient.account.address, "3000")).order], 50n));
      const griefers: Address[] = [];
      const orders = [];
      for (const { mode } of modes) {
        const griefer = await griefingRecipient(f);
        await griefer.write.setMode([mode]);
        griefers.push(griefer.address);
        orders.push((await usdcOrder(f, ["USDC", "ETH"], griefer.address, "3000")).order);
      }
      // Each order is quoted before the others move the pool: accept what the batch gives.
      const receipt = await relay(f, await signedBatch(f, orders.map((order) => ({ ...order, minBuyAmount: 1n })), 51n));
      const settled = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
      const wrapped = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: receipt.logs, eventName: "NativePayoutWrapped" });
      expect(settled).to.have.length(modes.length);
      expect(wrapped.map((log) => log.args.to)).to.deep.equal(griefers.map((address) => getAddress(address)));
      for (const [index, griefer] of griefers.entries()) expect(await balanceOf(f, f.contracts.weth, griefer)).to.equal(settled[index]!.args.buyAmount);
      const limit = BigInt(modes.length) * (baseline.gasUsed + (await f.gaslessRouter.read.NATIVE_PAYOUT_GAS()) + 40_000n);
      expect(receipt.gasUsed < limit, `gasUsed ${receipt.gasUsed} >= ${limit}`).to.equal(true);
    });

    it("an ETH fee recipient that reverts is paid its fee in WETH and the recipient still gets ETH", async () => {
      const f = await loadFixture(ready);
      const griefer = await griefingRecipient(f);
      await griefer.write.setMode([1]);
      const sellAmount = parseUnits("3000", 6);
      const route = await testRoute(f, ["USDC", "ETH"], sellAmount, { bps: 50, recipient: griefer.address });
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const ethBefore = await f.publicClient.getBalance({ address: f.recipient.account.address });
      const receipt = await sendAllowanceSwap(f, order);
      expect(receipt.status).to.equal("success");
      expect(await balanceOf(f, f.contracts.weth, griefer.address)).to.equal(route.feeAmount);
      expect(await f.publicClient.getBalance({ address: f.recipient.account.address })).to.equal(ethBefore + route.buyAmount);
    });
  });

  describe("4. funds sent to a router by mistake", () => {
    it("a stranger cannot sweep stray USDC through a look-alike pair; the registry administrator rescues it and nobody else can", async () => {
      const f = await loadFixture(ready);
      const stray = parseUnits("1000", 6);
      await f.publicClient.waitForTransactionReceipt({
        hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "transfer", args: [f.routerAddress, stray] }),
      });
      // The reviewer's sweep: ETH → WETH → a fake "pair" whose reserves make the formula yield the stray
      // 1,000 USDC, which the router would then have paid out of its own balance.
      const fake = await fakePair(f);
      const wethIsToken0 = f.contracts.weth.toLowerCase() < f.token("USDC").toLowerCase();
      await fake.write.setReserves(wethIsToken0 ? [1n, stray * 10n] : [stray * 10n, 1n]);
      const actions = encodeRouteActions([
        { type: "wrap" },
        { type: "swapV2", pair: fake.address, tokenOut: f.token("USDC"), feeBps: 30 },
        { type: "fee", bps: 0, recipient: f.stranger.account.address },
      ]);
      const sweep: SwapOrder = {
        sellToken: NATIVE_TOKEN, sellAmount: 1n, buyToken: f.token("USDC"), minBuyAmount: 1n,
        recipient: f.stranger.account.address, deadline: (await now(f)) + 600n, quoteId: QUOTE_ID, actions,
      };
      await expectRevert(f.stranger.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(sweep), value: 1n }), "SwapUnknownPair");
      expect(await balanceOf(f, f.token("USDC"), f.routerAddress)).to.equal(stray);

      const rescue = (account: SettlementFixture["deployer"], token: Address, amount: bigint) =>
        account.writeContract({ address: f.routerAddress, abi: takerSwapRouterAbi, functionName: "rescue", args: [token, f.taker.account.address, amount] });
      await expectRevert(rescue(f.stranger, f.token("USDC"), stray), "SwapOnlyRegistryAdmin", [f.stranger.account.address]);
      const before = await balanceOf(f, f.token("USDC"), f.taker.account.address);
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await rescue(f.deployer, f.token("USDC"), stray) });
      expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(before + stray);
      const [rescued] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "FundsRescued" });
      expect(rescued?.args).to.deep.equal({ token: f.token("USDC"), to: f.taker.account.address, amount: stray });
    });

    it("ETH forced into a router (as by selfdestruct) is recoverable by the registry administrator", async () => {
      const f = await loadFixture(ready);
      const forced = parseUnits("2", 18);
      await f.testClient.setBalance({ address: f.contracts.gaslessSwapRouter, value: forced });
      const before = await f.publicClient.getBalance({ address: f.taker.account.address });
      await f.publicClient.waitForTransactionReceipt({
        hash: await f.deployer.writeContract({ address: f.contracts.gaslessSwapRouter, abi: gaslessSwapRouterAbi, functionName: "rescue", args: [NATIVE_TOKEN, f.taker.account.address, forced] }),
      });
      expect(await f.publicClient.getBalance({ address: f.taker.account.address })).to.equal(before + forced);
      expect(await f.publicClient.getBalance({ address: f.contracts.gaslessSwapRouter })).to.equal(0n);
    });

    it("rescue follows the administrator role: after a handover only the new administrator can rescue", async () => {
      const f = await loadFixture(ready);
      await f.testClient.setBalance({ address: f.routerAddress, value: 5n });
      await f.registry.write.proposeAdmin([f.stranger.account.address]);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.acceptAdmin({ account: f.stranger.account }) });
      const args = [NATIVE_TOKEN, f.taker.account.address, 5n] as const;
      await expectRevert(f.deployer.writeContract({ address: f.routerAddress, abi: takerSwapRouterAbi, functionName: "rescue", args }), "SwapOnlyRegistryAdmin");
      await expectRevert(f.stranger.writeContract({ address: f.routerAddress, abi: takerSwapRouterAbi, functionName: "rescue", args: [NATIVE_TOKEN, zeroAddress, 5n] }), "SwapZeroAddress");
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.stranger.writeContract({ address: f.routerAddress, abi: takerSwapRouterAbi, functionName: "rescue", args }) });
      expect(receipt.status).to.equal("success");
    });
  });

  describe("5. route fields are checked on chain", () => {
    async function withActions(f: SettlementFixture, edit: (pair: Address) => Parameters<typeof encodeRouteActions>[0]) {
      const { order } = await usdcOrder(f, ["USDC", "WETH"]);
      return { ...order, actions: encodeRouteActions(edit(f.pool("USDC", "WETH"))) };
    }

    it("a SWAP_V2 stating a 9000 bps pool fee is refused (the venue's fee is 30 bps)", async () => {
      const f = await loadFixture(ready);
      const order = await withActions(f, (pair) => [{ type: "swapV2", pair, tokenOut: f.token("WETH"), feeBps: 9000 }]);
      await expectRevert(sendAllowanceSwap(f, { ...order, minBuyAmount: 1n }), "SwapPoolFeeMismatch", [9000n, 30n]);
    });

    it("a real pair of other tokens, or a tokenOut the pair does not trade, is refused with the pair the factory would use", async () => {
      const f = await loadFixture(ready);
      const wrongPair = await withActions(f, () => [{ type: "swapV2", pair: f.pool("USDC", "DAI"), tokenOut: f.token("WETH"), feeBps: 30 }]);
      await expectRevert(sendAllowanceSwap(f, { ...wrongPair, minBuyAmount: 1n }), "SwapUnknownPair", [f.pool("USDC", "DAI"), f.pool("USDC", "WETH")]);
      const wrongOut = await withActions(f, (pair) => [{ type: "swapV2", pair, tokenOut: f.token("LINK"), feeBps: 30 }]);
      const revert = await revertOf(await sendAllowanceSwap(f, { ...wrongOut, buyToken: f.token("LINK"), minBuyAmount: 1n }).catch((error: unknown) => error));
      expect(revert.errorName).to.equal("SwapUnknownPair");
    });
  });

  describe("6. re-entrancy", () => {
    it("an ETH fee recipient that re-enters swapNative mid-route is refused with SwapReentrantCall; the outer swap settles", async () => {
      const f = await loadFixture(ready);
      const griefer = await griefingRecipient(f);
      await griefer.write.setReentryTarget([f.routerAddress]);
      await griefer.write.setMode([4]);
      const sellAmount = parseUnits("3000", 6);
      const route = await testRoute(f, ["USDC", "ETH"], sellAmount, { bps: 50, recipient: griefer.address });
      const order = orderFor(route, sellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
      const receipt = await sendAllowanceSwap(f, order);
      expect(receipt.status).to.equal("success");
      expect(await griefer.read.lastReentryError()).to.equal(toFunctionSelector("SwapReentrantCall()"));
      expect(await f.publicClient.getBalance({ address: griefer.address })).to.equal(route.feeAmount);
    });
  });
});
