import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, maxUint256, parseEther, parseEventLogs, parseUnits, type Hex } from "viem";
import {
  buildGaslessExactOutputPermitTypedData,
  encodeSwapExactOutputNative,
  gaslessExactOutputRouterAbi,
  encodeSwapGaslessExactOutput,
  patchSignature,
  takerExactOutputRouterAbi,
  type ExactOutputOrder,
  type RelayerFee,
} from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { exactOutputOrderFor, exactOutputTestRoute } from "../fixtures/exactOutputRoute";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

/**
 * Exact-output paths the property suites reach only by chance: the registry gate on each entry point,
 * a sponsored gasless order (no fee), a gasless order whose route starts with a SPLIT (its input goes
 * to the router first), and a native order that sends exactly the need (nothing to refund).
 */

const QUOTE_ID: Hex = `0x${"ed".repeat(32)}`;
const NONCE_BASE = 29n << 64n;
let nonceCounter = 0n;

async function ready() {
  const f = await settlementFixture();
  await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
  return f;
}

async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** A gasless exact-output order signed by the taker for the devnet's feature-3 router. */
async function signedGasless(f: SettlementFixture, order: ExactOutputOrder, fee: RelayerFee): Promise<Hex> {
  const nonce = NONCE_BASE + nonceCounter++;
  const router = f.contracts.gaslessSwapRouter;
  const signature = await f.signerOf(f.taker.account.address).signTypedData(buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order, nonce, ...fee }));
  const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, f.taker.account.address, fee, nonce);
  return patchSignature(data, signatureOffset, signature);
}

describe("exact-output edges: the registry gate on every entry point, sponsored and split gasless orders, a maximum equal to the need", () => {
  it("while features 2 and 3 are paused every exact-output entry point is refused (SwapFeaturePaused) before anything moves", async () => {
    const f = await loadFixture(ready);
    const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], parseEther("1"));
    const order = exactOutputOrderFor(route, parseEther("1"), route.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
    await f.registry.write.pause([2n]);
    await f.registry.write.pause([3n]);
    const taker = { address: f.routerAddress, abi: takerExactOutputRouterAbi } as const;
    const signature = `0x${"11".repeat(65)}` as Hex;
    await expectRevert(f.taker.writeContract({ ...taker, functionName: "swapExactOutputWithPermit", args: [order, 1n, signature] }), "SwapFeaturePaused", [2n]);
    await expectRevert(f.taker.writeContract({ ...taker, functionName: "swapExactOutputNative", args: [order], value: order.maxSellAmount }), "SwapFeaturePaused", [2n]);
    // Through the holder, as a taker would call it: the router's gate speaks first.
    await expectRevert(
      f.taker.writeContract({ address: f.contracts.allowanceHolder, abi: f.holder.abi, functionName: "exec", args: [f.routerAddress, encodeFunctionData({ abi: takerExactOutputRouterAbi, functionName: "swapExactOutputWithAllowance", args: [order] })] }),
      "SwapFeaturePaused",
      [2n],
    );
    await expectRevert(
      f.relayer.writeContract({ address: f.contracts.gaslessSwapRouter, abi: gaslessExactOutputRouterAbi, functionName: "swapGaslessExactOutput", args: [order, f.taker.account.address, 0n, f.relayer.account.address, 1n, signature] }),
      "SwapFeaturePaused",
      [3n],
    );
  });

  it("a sponsored gasless exact-output order (no relayer fee) takes only the need and pays no fee, and one whose route starts with a SPLIT takes its input into the router first", async () => {
    const f = await loadFixture(ready);
    const buyAmount = parseEther("2");
    const taker = f.taker.account.address;
    for (const [paths, sharesBps] of [[[["USDC", "WETH"]], undefined], [[["USDC", "WETH"], ["USDC", "USDT", "WETH"]], [7000, 3000]]] as const) {
      const route = await exactOutputTestRoute(f, paths, buyAmount, sharesBps === undefined ? {} : { sharesBps });
      const order = exactOutputOrderFor(route, buyAmount, route.amountIn + parseUnits("5", 6), f.recipient.account.address, await now(f), QUOTE_ID);
      const data = await signedGasless(f, order, { relayerFee: 0n, relayerFeeRecipient: f.feeRecipient.account.address });
      const [before, received] = [await balanceOf(f, order.sellToken, taker), await balanceOf(f, order.buyToken, order.recipient)];
      const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }) });
      expect(parseEventLogs({ abi: gaslessExactOutputRouterAbi, logs: receipt.logs, eventName: "RelayerFeePaid" })).to.have.length(0);
      expect(before - (await balanceOf(f, order.sellToken, taker))).to.equal(route.amountIn);
      expect((await balanceOf(f, order.buyToken, order.recipient)) - received >= buyAmount).to.equal(true);
      expect(await balanceOf(f, order.sellToken, f.contracts.gaslessSwapRouter)).to.equal(0n);
    }
  });

  it("a native order whose value is exactly the need refunds nothing and emits no SwapInputRefunded", async () => {
    const f = await loadFixture(ready);
    const buyAmount = parseUnits("1500", 6);
    const route = await exactOutputTestRoute(f, [["ETH", "USDC"]], buyAmount);
    const order = exactOutputOrderFor(route, buyAmount, route.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
    const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapExactOutputNative(order), value: route.amountIn }) });
    expect(parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapInputRefunded" })).to.have.length(0);
    const [settled] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
    expect(settled!.args.sellAmount).to.equal(route.amountIn);
    expect(await f.publicClient.getBalance({ address: f.routerAddress })).to.equal(0n);
  });
});
