import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, maxUint256, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import { buildGaslessPermitTypedData, encodeSwapGasless, gaslessSwapRouterAbi, NATIVE_TOKEN, patchSignature, type SwapOrder } from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"6b".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 2n << 64n;

async function gaslessReady() {
  const f = await settlementFixture();
  await f.publicClient.waitForTransactionReceipt({
    hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }),
  });
  return f;
}

/** The relayer operator's fee recipient, which the taker signs: a fresh address, so balances start at zero. */
const FEE_PAYEE: Address = "0x00000000000000000000000000000000000Fee01";

async function signGasless(
  f: SettlementFixture,
  order: SwapOrder,
  relayerFee: bigint,
  nonce: bigint,
  signer: Address = f.taker.account.address,
  relayerFeeRecipient: Address = FEE_PAYEE,
) {
  const typedData = buildGaslessPermitTypedData({
    chainId: 4663,
    permit2: f.contracts.permit2,
    router: f.contracts.gaslessSwapRouter,
    order,
    nonce: NONCE_BASE + nonce,
    relayerFee,
    relayerFeeRecipient,
  });
  return f.signerOf(signer).signTypedData(typedData);
}

async function relay(
  f: SettlementFixture,
  order: SwapOrder,
  relayerFee: bigint,
  nonce: bigint,
  signature: Hex,
  relayer = f.relayer,
  relayerFeeRecipient: Address = FEE_PAYEE,
) {
  const { data, signatureOffset } = encodeSwapGasless(order, f.taker.account.address, { relayerFee, relayerFeeRecipient }, NONCE_BASE + nonce);
  const hash = await relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: patchSignature(data, signatureOffset, signature) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

describe("GaslessSwapRouter (feature 3)", () => {
  async function signedOrder(f: SettlementFixture, path: string[] = ["USDC", "WETH"]) {
    const sellAmount = parseUnits("2000", 6);
    const route = await testRoute(f, path, sellAmount);
    const now = (await f.publicClient.getBlock()).timestamp;
    return { route, order: orderFor(route, sellAmount, f.taker.account.address, now, QUOTE_ID), sellAmount };
  }

  it("a relayer submits the taker's signed swap; the taker pays only the signed fee, to the signed payee, and gets the output", async () => {
    const f = await loadFixture(gaslessReady);
    const { route, order, sellAmount } = await signedOrder(f);
    const relayerFee = parseUnits("1.5", 6);
    const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
    const wethBefore = await balanceOf(f, f.token("WETH"), f.taker.account.address);
    const relayerUsdcBefore = await balanceOf(f, f.token("USDC"), f.relayer.account.address);
    const payeeUsdcBefore = await balanceOf(f, f.token("USDC"), FEE_PAYEE);
    const takerEthBefore = await f.publicClient.getBalance({ address: f.taker.account.address });

    const receipt = await relay(f, order, relayerFee, 0n, await signGasless(f, order, relayerFee, 0n));

    expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(usdcBefore - sellAmount - relayerFee);
    expect(await balanceOf(f, f.token("WETH"), f.taker.account.address)).to.equal(wethBefore + route.buyAmount);
    expect(await balanceOf(f, f.token("USDC"), FEE_PAYEE)).to.equal(payeeUsdcBefore + relayerFee);
    expect(await balanceOf(f, f.token("USDC"), f.relayer.account.address)).to.equal(relayerUsdcBefore);
    expect(await f.publicClient.getBalance({ address: f.taker.account.address })).to.equal(takerEthBefore);
    expect(await balanceOf(f, f.token("USDC"), f.contracts.gaslessSwapRouter)).to.equal(0n);
    const [fee] = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "RelayerFeePaid" });
    expect(fee?.args).to.deep.equal({
      quoteId: QUOTE_ID,
      recipient: FEE_PAYEE,
      submitter: f.relayer.account.address,
      token: f.token("USDC"),
      amount: relayerFee,
    });
    const [settled] = parseEventLogs({ abi: gaslessSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
    expect(settled?.args.taker).to.equal(f.taker.account.address);
  });

  it("anyone may submit, and the outcome is the signed one whoever does", async () => {
    const f = await loadFixture(gaslessReady);
    const { route, order } = await signedOrder(f, ["USDC", "ETH"]);
    const ethBefore = await f.publicClient.getBalance({ address: f.taker.account.address });
    await relay(f, order, 0n, 1n, await signGasless(f, order, 0n, 1n), f.stranger);
    expect(await f.publicClient.getBalance({ address: f.taker.account.address })).to.equal(ethBefore + route.buyAmount);
  });

  it("a copier who front-runs the relayer's transaction pays the gas and the fee still goes to the signed payee", async () => {
    const f = await loadFixture(gaslessReady);
    const { order } = await signedOrder(f);
    const relayerFee = parseUnits("2", 6);
    const signature = await signGasless(f, order, relayerFee, 6n);
    const copierUsdcBefore = await balanceOf(f, f.token("USDC"), f.stranger.account.address);
    const payeeUsdcBefore = await balanceOf(f, f.token("USDC"), FEE_PAYEE);
    // The copier replays the relayer's exact calldata from its own account.
    await relay(f, order, relayerFee, 6n, signature, f.stranger);
    expect(await balanceOf(f, f.token("USDC"), f.stranger.account.address)).to.equal(copierUsdcBefore);
    expect(await balanceOf(f, f.token("USDC"), FEE_PAYEE)).to.equal(payeeUsdcBefore + relayerFee);
    // Redirecting the fee to itself breaks the taker's signature.
    await expectRevert(relay(f, order, relayerFee, 7n, await signGasless(f, order, relayerFee, 7n), f.stranger, f.stranger.account.address), "InvalidSigner");
  });

  it("refuses a non-zero fee with a zero payee, which would burn it", async () => {
    const f = await loadFixture(gaslessReady);
    const { order } = await signedOrder(f);
    const zero: Address = "0x0000000000000000000000000000000000000000";
    const signature = await signGasless(f, order, 5n, 8n, f.taker.account.address, zero);
    await expectRevert(relay(f, order, 5n, 8n, signature, f.relayer, zero), "SwapZeroAddress");
  });

  it("a sponsored swap (zero fee) needs no payee", async () => {
    const f = await loadFixture(gaslessReady);
    const { order, route } = await signedOrder(f);
    const zero: Address = "0x0000000000000000000000000000000000000000";
    const wethBefore = await balanceOf(f, f.token("WETH"), f.taker.account.address);
    await relay(f, order, 0n, 9n, await signGasless(f, order, 0n, 9n, f.taker.account.address, zero), f.relayer, zero);
    expect(await balanceOf(f, f.token("WETH"), f.taker.account.address)).to.equal(wethBefore + route.buyAmount);
  });

  it("rejects a relayer fee above (or below) the signed one", async () => {
    const f = await loadFixture(gaslessReady);
    const { order } = await signedOrder(f);
    const signature = await signGasless(f, order, 1000n, 2n);
    await expectRevert(relay(f, order, 1001n, 2n, signature), "InvalidSigner");
    await expectRevert(relay(f, order, 999n, 2n, signature), "InvalidSigner");
  });

  it("rejects a replay of a filled order", async () => {
    const f = await loadFixture(gaslessReady);
    const { order } = await signedOrder(f);
    const signature = await signGasless(f, order, 10n, 3n);
    await relay(f, order, 10n, 3n, signature);
    await expectRevert(relay(f, order, 10n, 3n, signature), "InvalidNonce");
  });

  it("rejects a signature by another wallet, an altered witness, and a wrong-length signature", async () => {
    const f = await loadFixture(gaslessReady);
    const { order } = await signedOrder(f);
    await expectRevert(relay(f, order, 10n, 4n, await signGasless(f, order, 10n, 4n, f.stranger.account.address)), "InvalidSigner");
    const signature = await signGasless(f, order, 10n, 4n);
    await expectRevert(relay(f, { ...order, recipient: f.relayer.account.address }, 10n, 4n, signature), "InvalidSigner");
    const data = encodeFunctionData({
      abi: gaslessSwapRouterAbi,
      functionName: "swapGasless",
      args: [order, f.taker.account.address, 10n, FEE_PAYEE, NONCE_BASE + 4n, signature.slice(0, 130) as Hex],
    });
    await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }), "SwapInvalidSignatureLength", [64n]);
  });

  it("refuses native sells, which cannot be pulled by signature", async () => {
    const f = await loadFixture(gaslessReady);
    const { order } = await signedOrder(f);
    const { data } = encodeSwapGasless({ ...order, sellToken: NATIVE_TOKEN }, f.taker.account.address, { relayerFee: 0n, relayerFeeRecipient: FEE_PAYEE }, NONCE_BASE + 5n);
    await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }), "SwapNativeSellNotGasless");
  });
});
