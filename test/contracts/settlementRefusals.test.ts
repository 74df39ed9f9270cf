import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, maxUint256, parseEventLogs, parseUnits, toFunctionSelector, zeroAddress, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  NATIVE_TOKEN,
  patchSignature,
  takerSwapRouterAbi,
  type SwapOrder,
} from "../../sdk";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "../../scripts/deploy/uniswapArtifacts";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { signedGaslessCalldata } from "../fixtures/signedGasless";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

/**
 * The remaining branches of the routers, the holder and the registry: constructor refusals, routes
 * that take their input in the router, the registry's corner cases, and refusals not exercised
 * elsewhere. Together with the other suites, every branch `npm run coverage` reports is taken.
 */

const QUOTE_ID: Hex = `0x${"b7".repeat(32)}`;
const NONCE_BASE = 15n << 64n;
const venue = (factory: Address, feeBps = 30) => ({ factory, feeBps, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH });

async function ready() {
  const f = await settlementFixture();
  const weth = [{ type: "function", name: "deposit", stateMutability: "payable", inputs: [], outputs: [] }] as const;
  await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.contracts.weth, abi: weth, functionName: "deposit", value: parseUnits("10", 18) }) });
  for (const token of [f.contracts.weth, f.token("USDC")]) {
    for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
      await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }) });
    }
  }
  return f;
}

async function order(f: SettlementFixture, fields: Partial<SwapOrder>): Promise<SwapOrder> {
  return {
    sellToken: f.contracts.weth, sellAmount: parseUnits("1", 18), buyToken: NATIVE_TOKEN, minBuyAmount: parseUnits("1", 18),
    recipient: f.recipient.account.address, deadline: (await f.publicClient.getBlock()).timestamp + 600n, quoteId: QUOTE_ID,
    actions: encodeRouteActions([{ type: "unwrap" }]), ...fields,
  };
}

describe("settlement refusals and corner cases", () => {
  describe("constructors refuse a zero dependency or an impossible pool fee", () => {
    it("TakerSwapRouter, GaslessSwapRouter and GaslessBatchSwapRouter", async () => {
      const f = await loadFixture(ready);
      const { permit2, allowanceHolder, weth, routerRegistry, uniswapV2Factory } = f.contracts;
      const client = { client: { public: f.publicClient, wallet: f.deployer } };
      const taker = (args: readonly [Address, Address, Address, Address, ReturnType<typeof venue>]) => hre.viem.deployContract("TakerSwapRouter", [...args] as never, client);
      for (const args of [
        [zeroAddress, allowanceHolder, weth, routerRegistry, venue(uniswapV2Factory)],
        [permit2, zeroAddress, weth, routerRegistry, venue(uniswapV2Factory)],
        [permit2, allowanceHolder, zeroAddress, routerRegistry, venue(uniswapV2Factory)],
        [permit2, allowanceHolder, weth, zeroAddress, venue(uniswapV2Factory)],
        [permit2, allowanceHolder, weth, routerRegistry, venue(zeroAddress)],
      ] as const) {
        await expectRevert(taker(args), "SwapZeroAddress");
      }
      await expectRevert(taker([permit2, allowanceHolder, weth, routerRegistry, venue(uniswapV2Factory, 10_000)]), "SwapFeeTooHigh", [10_000n]);
      await expectRevert(hre.viem.deployContract("GaslessSwapRouter", [zeroAddress, weth, routerRegistry, venue(uniswapV2Factory)], client), "SwapZeroAddress");
      await expectRevert(hre.viem.deployContract("GaslessBatchSwapRouter", [zeroAddress, weth, routerRegistry, venue(uniswapV2Factory)], client), "SwapZeroAddress");
      await expectRevert(hre.viem.deployContract("GaslessBatchSwapRouter", [permit2, weth, routerRegistry, venue(zeroAddress)], client), "SwapZeroAddress");
    });
  });

  describe("routes whose first action is not a swap take their input in the router", () => {
    it("allowance: WETH → ETH by UNWRAP alone, and WETH → ETH → WETH → USDC", async () => {
      const f = await loadFixture(ready);
      const unwrap = await order(f, {});
      const ethBefore = await f.publicClient.getBalance({ address: f.recipient.account.address });
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(unwrap, f.routerAddress) }) });
      expect(receipt.status).to.equal("success");
      expect(await f.publicClient.getBalance({ address: f.recipient.account.address })).to.equal(ethBefore + unwrap.sellAmount);
      const roundTrip = await order(f, {
        buyToken: f.token("USDC"), minBuyAmount: 1n,
        actions: encodeRouteActions([{ type: "unwrap" }, { type: "wrap" }, { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: f.token("USDC"), feeBps: 30 }]),
      });
      expect(await f.holder.read.orderOf([f.routerAddress, encodeFunctionData({ abi: takerSwapRouterAbi, functionName: "swapWithAllowance", args: [roundTrip] })])).to.deep.equal([
        f.contracts.weth, roundTrip.sellAmount, f.routerAddress,
      ]);
      const second = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(roundTrip, f.routerAddress) }) });
      expect(second.status).to.equal("success");
      expect(await balanceOf(f, f.contracts.weth, f.routerAddress)).to.equal(0n);
    });

    it("gasless: a relayed WETH → ETH unwrap keeps the input in the router and pays the relayer fee in WETH", async () => {
      const f = await loadFixture(ready);
      const o = await order(f, { recipient: f.taker.account.address });
      const relayerFee = parseUnits("0.001", 18);
      const nonce = NONCE_BASE + 1n;
      const data = await signedGaslessCalldata(f, { order: o, nonce, relayerFee, relayerFeeRecipient: f.feeRecipient.account.address });
      const wethBefore = await balanceOf(f, f.contracts.weth, f.feeRecipient.account.address);
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }) });
      expect(receipt.status).to.equal("success");
      expect(await balanceOf(f, f.contracts.weth, f.feeRecipient.account.address)).to.equal(wethBefore + relayerFee);
    });
  });

  describe("order refusals", () => {
    it("a zero recipient, a paused permit swap, and a native swap naming another sell token", async () => {
      const f = await loadFixture(ready);
      const toNobody = await order(f, { recipient: zeroAddress });
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(toNobody, f.routerAddress) }), "SwapZeroAddress");
      const o = await order(f, {});
      const signature = await f.signerOf(f.taker.account.address).signTypedData(buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: o, nonce: NONCE_BASE + 2n }));
      const { data, signatureOffset } = encodeSwapWithPermit(o, NONCE_BASE + 2n);
      await f.registry.write.pause([2n]);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: patchSignature(data, signatureOffset, signature) }), "SwapFeaturePaused", [2n]);
      await f.registry.write.unpause([2n]);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(o), value: o.sellAmount }), "SwapUnexpectedToken", [NATIVE_TOKEN, f.contracts.weth]);
    });

    it("a signed permit swap whose recipient word carries dirty upper bits is refused and moves nothing; the clean calldata then settles", async () => {
      const f = await loadFixture(ready);
      const o = await order(f, {});
      const signature = await f.signerOf(f.taker.account.address).signTypedData(buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: o, nonce: NONCE_BASE + 3n }));
      const { data, signatureOffset } = encodeSwapWithPermit(o, NONCE_BASE + 3n);
      const signed = patchSignature(data, signatureOffset, signature);
      const recipientWord = `${"0".repeat(24)}${o.recipient.slice(2).toLowerCase()}`;
      expect(signed.split(recipientWord)).to.have.length(2);
      const dirty = signed.replace(recipientWord, `ff${recipientWord.slice(2)}`) as Hex;
      const wethBefore = await balanceOf(f, f.contracts.weth, f.taker.account.address);
      const ethBefore = await f.publicClient.getBalance({ address: o.recipient });
      const refused = await f.taker.sendTransaction({ to: f.routerAddress, data: dirty }).then(() => false, () => true);
      expect(refused, "dirty calldata refused").to.equal(true);
      expect(await balanceOf(f, f.contracts.weth, f.taker.account.address)).to.equal(wethBefore);
      expect(await f.publicClient.getBalance({ address: o.recipient })).to.equal(ethBefore);
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: signed }) });
      expect(receipt.status).to.equal("success");
      expect(await f.publicClient.getBalance({ address: o.recipient })).to.equal(ethBefore + o.sellAmount);
    });

    it("a rescue of ETH to a payee that refuses it reverts with SwapNativeTransferFailed", async () => {
      const f = await loadFixture(ready);
      const refuser = await hre.viem.deployContract("GriefingRecipient", [], { client: { public: f.publicClient, wallet: f.deployer } });
      await refuser.write.setMode([1]);
      await f.testClient.setBalance({ address: f.routerAddress, value: 7n });
      await expectRevert(
        f.deployer.writeContract({ address: f.routerAddress, abi: takerSwapRouterAbi, functionName: "rescue", args: [NATIVE_TOKEN, refuser.address, 7n] }),
        "SwapNativeTransferFailed",
      );
    });
  });

  describe("router identity and re-entry with unlimited gas", () => {
    it("each router names its registry, its feature and (feature 2) its allowance holder", async () => {
      const f = await loadFixture(ready);
      expect(await f.takerRouter.read.registry()).to.equal(f.contracts.routerRegistry);
      expect(await f.gaslessRouter.read.registry()).to.equal(f.contracts.routerRegistry);
      expect([await f.takerRouter.read.featureId(), await f.gaslessRouter.read.featureId()]).to.deep.equal([2n, 3n]);
      expect(await f.takerRouter.read.allowanceHolder()).to.equal(f.contracts.allowanceHolder);
    });

    for (const { mode, entry } of [{ mode: 4, entry: "swapNative" }, { mode: 5, entry: "rescue" }]) {
      it(`a rescue's payee that re-enters ${entry} with all the gas it wants is refused by the lock`, async () => {
        const f = await loadFixture(ready);
        const payee = await hre.viem.deployContract("GriefingRecipient", [], { client: { public: f.publicClient, wallet: f.deployer } });
        await payee.write.setReentryTarget([f.routerAddress]);
        await payee.write.setMode([mode]);
        await f.testClient.setBalance({ address: f.routerAddress, value: 9n });
        const hash = await f.deployer.writeContract({ address: f.routerAddress, abi: takerSwapRouterAbi, functionName: "rescue", args: [NATIVE_TOKEN, payee.address, 9n] });
        expect((await f.publicClient.waitForTransactionReceipt({ hash })).status).to.equal("success");
        expect(await payee.read.lastReentryError()).to.equal(toFunctionSelector("SwapReentrantCall()"));
      });
    }
  });

  describe("registry corner cases", () => {
    it("re-activating the previous router makes it current again and the other one previous; statusOf(0) is never active", async () => {
      const f = await loadFixture(ready);
      const successor = await f.newTakerRouter();
      await f.registry.write.stage([2n, successor]);
      await f.registry.write.activate([2n]);
      await f.registry.write.stage([2n, f.routerAddress]);
      const hash = await f.registry.write.activate([2n]);
      const logs = (await f.publicClient.waitForTransactionReceipt({ hash })).logs;
      const synced = parseEventLogs({ abi: takerSwapRouterAbi, logs, eventName: "RouterStatusSynced" });
      expect(synced).to.have.length(2);
      expect(await f.registry.read.ownerOf([2n])).to.equal(f.routerAddress);
      expect(await f.registry.read.prev([2n])).to.equal(successor);
      expect((await f.takerRouter.read.status())[1]).to.equal(2n ** 64n - 1n);
      expect(await f.registry.read.statusOf([2n, zeroAddress])).to.deep.equal([false, 0n]);
    });
  });

  describe("V2 math corner case", () => {
    it("zero input against empty reserves gives zero output instead of dividing by zero", async () => {
      const f = await loadFixture(ready);
      const harness = await hre.viem.deployContract("SettlementHarness", [], { client: { public: f.publicClient, wallet: f.deployer } });
      expect(await harness.read.getAmountOut([0n, 0n, 0n, 30n])).to.equal(0n);
    });
  });
});
