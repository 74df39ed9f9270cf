import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, parseUnits, toFunctionSelector, type Address, type Hex } from "viem";
import { encodeSwapGaslessBatch, gaslessBatchSwapRouterAbi, gaslessSwapRouterAbi, MAX_GASLESS_BATCH_ORDERS, type SignedGaslessOrder, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS } from "../../sdk/relay/batchGasLimit";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { batchOutcome, nonceUsed, oddTokenMarket, skipReasonName } from "../fixtures/gaslessBatch";
import { signedGaslessCalldata, signedGaslessOrder } from "../fixtures/signedGasless";
import { balanceOf, orderFor, testRoute } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 19n << 64n;
/** Two relayer operators' fee payees, signed per order: fresh addresses, so balances start at zero. */
const PAYEE_A: Address = "0x00000000000000000000000000000000000FEE19";
const PAYEE_B: Address = "0x00000000000000000000000000000000000fEE1a";
const quoteId = (index: number): Hex => `0x${index.toString(16).padStart(2, "0").repeat(32)}`;

async function ready() {
  const f = await settlementFixture();
  await f.publicClient.waitForTransactionReceipt({
    hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }),
  });
  return f;
}

async function now(f: SettlementFixture) {
  return (await f.publicClient.getBlock()).timestamp;
}

/** A USDC→WETH order to the taker, quoted at the current reserves and accepting 10 % less (other orders of the batch move the pool first). */
async function usdcOrder(f: SettlementFixture, index: number, amount = "200", slippage = true): Promise<SwapOrder> {
  const sellAmount = parseUnits(amount, 6);
  const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
  const order = orderFor(route, sellAmount, f.taker.account.address, await now(f), quoteId(index));
  return slippage ? { ...order, minBuyAmount: (order.minBuyAmount * 9n) / 10n } : order;
}

function sign(f: SettlementFixture, order: SwapOrder, nonce: bigint, extra: { relayerFee?: bigint; relayerFeeRecipient?: Address; signer?: Address; taker?: Address; router?: Address } = {}) {
  return signedGaslessOrder(f, { order, nonce: NONCE_BASE + nonce, relayerFee: extra.relayerFee ?? parseUnits("1", 6), relayerFeeRecipient: extra.relayerFeeRecipient ?? PAYEE_A, ...extra });
}

/** Every order may use the router's BATCH_ORDER_GAS: these tests are not about the caps (test/contracts/batchOrderGasCaps.test.ts is). */
const fullCaps = (orders: readonly unknown[]) => orders.map(() => BATCH_ORDER_GAS);

async function sendBatch(f: SettlementFixture, orders: SignedGaslessOrder[], from = f.relayer, router: Address = f.contracts.gaslessSwapRouter, gas?: bigint) {
  const hash = await from.sendTransaction({ to: router, data: encodeSwapGaslessBatch(orders, fullCaps(orders)), ...(gas === undefined ? {} : { gas }) });
  return f.publicClient.waitForTransactionReceipt({ hash });
}

describe("GaslessBatchSwapRouter (feature 3, batches)", () => {
  it("a batch of 10 with one order of each kind of failure settles the other five, pays each fee to the payee its order signed, and reports every skip with its reason", async () => {
    const f = await loadFixture(ready);
    const odd = await oddTokenMarket(f);
    // Nonce 99 is spent before the batch, by a single swapGasless.
    const spent = await usdcOrder(f, 99);
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: await signedGaslessCalldata(f, { order: spent, nonce: NONCE_BASE + 99n, relayerFee: 0n, relayerFeeRecipient: PAYEE_A }) }),
    });
    const t = await now(f);
    const good = async (index: number, payee: Address) => sign(f, await usdcOrder(f, index), BigInt(index), { relayerFee: parseUnits(String(index + 1), 6), relayerFeeRecipient: payee });
    const orders: SignedGaslessOrder[] = [
      await good(0, PAYEE_A),
      await sign(f, await usdcOrder(f, 1), 1n, { signer: f.stranger.account.address, taker: f.taker.account.address }), // signed by someone else
      await good(2, PAYEE_B),
      await sign(f, { ...(await usdcOrder(f, 3)), quoteId: quoteId(3) }, 99n), // its nonce is already used
      await good(4, PAYEE_A),
      await sign(f, await usdcOrder(f, 5, "200", false), 5n), // exact quote: the earlier orders moved the pool
      await good(6, PAYEE_B),
      await sign(f, { ...(await usdcOrder(f, 7)), deadline: t - 1n }, 7n), // deadline passed
      await sign(f, odd.sellOrder(parseUnits("10", 18), t + 600n, quoteId(8)), 8n), // its token reverts
      await good(9, PAYEE_A),
    ];
    await odd.token.write.setTransferFailure([10_000n, false]);
    const usdcBefore = await balanceOf(f, f.token("USDC"), f.taker.account.address);
    const wethBefore = await balanceOf(f, f.contracts.weth, f.taker.account.address);
    const oddBefore = await balanceOf(f, odd.token.address, f.taker.account.address);

    const [settledMask, buyAmounts] = (await f.publicClient.simulateContract({
      account: f.relayer.account, address: f.contracts.gaslessSwapRouter, abi: gaslessBatchSwapRouterAbi, functionName: "swapGaslessBatch", args: [orders, fullCaps(orders)],
    })).result;
    const receipt = await sendBatch(f, orders);
    const outcome = batchOutcome(receipt);

    const goodIndexes = [0, 2, 4, 6, 9];
    expect(settledMask).to.equal(goodIndexes.reduce((mask, index) => mask | (1n << BigInt(index)), 0n));
    expect(outcome.settled.map((event) => event.quoteId)).to.deep.equal(goodIndexes.map(quoteId));
    expect(buyAmounts.filter((_, index) => !goodIndexes.includes(index))).to.deep.equal([0n, 0n, 0n, 0n, 0n]);
    expect(outcome.settled.map((event) => event.buyAmount)).to.deep.equal(goodIndexes.map((index) => buyAmounts[index]));
    const reasons = await Promise.all(outcome.skipped.map((skip) => (skip.index !== 8n ? skipReasonName(skip.reason) : "")));
    expect(outcome.skipped.map((skip, at) => [skip.index, skip.quoteId, reasons[at]])).to.deep.equal([
      [1n, quoteId(1), "InvalidSigner"],
      [3n, quoteId(3), "InvalidNonce"],
      [5n, quoteId(5), "SwapInsufficientOutput"],
      [7n, quoteId(7), "SwapDeadlineExpired"],
      [8n, quoteId(8), ""],
    ]);
    // The token's 10,000-byte revert reaches the event cut to MAX_SKIP_REASON_BYTES.
    const maxReason = await f.gaslessRouter.read.MAX_SKIP_REASON_BYTES();
    expect(BigInt((outcome.skipped[4]!.reason.length - 2) / 2)).to.equal(maxReason);

    // Each settled order paid its own signed fee to its own signed payee, naming the batch's sender.
    expect(outcome.fees.map((fee) => [fee.quoteId, fee.recipient, fee.amount, fee.submitter])).to.deep.equal(
      goodIndexes.map((index) => [quoteId(index), [0, 4, 9].includes(index) ? PAYEE_A : PAYEE_B, parseUnits(String(index + 1), 6), getAddress(f.relayer.account.address)]),
    );
    expect(await balanceOf(f, f.token("USDC"), PAYEE_A)).to.equal(parseUnits(String(1 + 5 + 10), 6));
    expect(await balanceOf(f, f.token("USDC"), PAYEE_B)).to.equal(parseUnits(String(3 + 7), 6));
    // The taker paid exactly the five settled orders and their fees, and received their outputs.
    const paid = goodIndexes.reduce((sum, index) => sum + parseUnits("200", 6) + parseUnits(String(index + 1), 6), 0n);
    expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(usdcBefore - paid);
    expect(await balanceOf(f, f.contracts.weth, f.taker.account.address)).to.equal(wethBefore + buyAmounts.reduce((a, b) => a + b, 0n));
    expect(await balanceOf(f, odd.token.address, f.taker.account.address)).to.equal(oddBefore);
    for (const token of [f.token("USDC"), f.contracts.weth, getAddress(odd.token.address)]) expect(await balanceOf(f, token, f.contracts.gaslessSwapRouter)).to.equal(0n);
    // A skipped order spent nothing: its signature is still good (the spent nonce stays spent).
    for (const nonce of [1n, 5n, 7n, 8n]) expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + nonce), `nonce ${nonce}`).to.equal(false);
    for (const index of goodIndexes) expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + BigInt(index))).to.equal(true);
  });

  it("a batch that names one order twice settles it once: the second copy is skipped with Permit2's InvalidNonce", async () => {
    const f = await loadFixture(ready);
    const order = await sign(f, await usdcOrder(f, 20), 20n);
    const other = await sign(f, await usdcOrder(f, 21), 21n);
    const before = await balanceOf(f, f.token("USDC"), f.taker.account.address);
    const outcome = batchOutcome(await sendBatch(f, [order, other, order]));
    expect(outcome.settled.map((event) => event.quoteId)).to.deep.equal([quoteId(20), quoteId(21)]);
    expect(outcome.skipped.map((skip) => [skip.index, skip.quoteId])).to.deep.equal([[2n, quoteId(20)]]);
    expect(await skipReasonName(outcome.skipped[0]!.reason)).to.equal("InvalidNonce");
    expect(outcome.fees).to.have.length(2);
    expect(await balanceOf(f, f.token("USDC"), f.taker.account.address)).to.equal(before - 2n * (parseUnits("200", 6) + parseUnits("1", 6)));
  });

  it("a copier who lands a relayer's batch first pays the gas and gains nothing: every fee goes to its signed payee, and the relayer's batch then skips every order", async () => {
    const f = await loadFixture(ready);
    const orders = [await sign(f, await usdcOrder(f, 30), 30n), await sign(f, await usdcOrder(f, 31), 31n, { relayerFeeRecipient: PAYEE_B })];
    const copierUsdc = await balanceOf(f, f.token("USDC"), f.stranger.account.address);
    const copied = batchOutcome(await sendBatch(f, orders, f.stranger));
    expect(copied.settled).to.have.length(2);
    expect(copied.fees.map((fee) => fee.recipient)).to.deep.equal([PAYEE_A, PAYEE_B]);
    expect(await balanceOf(f, f.token("USDC"), f.stranger.account.address)).to.equal(copierUsdc);
    const late = batchOutcome(await sendBatch(f, orders));
    expect(late.settled).to.have.length(0);
    expect(await Promise.all(late.skipped.map((skip) => skipReasonName(skip.reason)))).to.deep.equal(["InvalidNonce", "InvalidNonce"]);
    // Redirecting a fee to itself breaks the taker's signature: that order is skipped, not paid.
    const redirected = { ...(await sign(f, await usdcOrder(f, 32), 32n)), relayerFeeRecipient: getAddress(f.stranger.account.address) };
    const stolen = batchOutcome(await sendBatch(f, [redirected], f.stranger));
    expect(await skipReasonName(stolen.skipped[0]!.reason)).to.equal("InvalidSigner");
    expect(await balanceOf(f, f.token("USDC"), f.stranger.account.address)).to.equal(copierUsdc);
  });

  it("an order given the whole BATCH_ORDER_GAS whose token burns all its gas is skipped with an empty reason, and the others settle", async () => {
    const f = await loadFixture(ready);
    const odd = await oddTokenMarket(f);
    const orders = [
      await sign(f, odd.sellOrder(parseUnits("10", 18), (await now(f)) + 600n, quoteId(40)), 40n),
      await sign(f, await usdcOrder(f, 41), 41n),
    ];
    await odd.token.write.setTransferFailure([0n, true]);
    const receipt = await sendBatch(f, orders, f.relayer, f.contracts.gaslessSwapRouter, 3_000_000n);
    const outcome = batchOutcome(receipt);
    expect(outcome.skipped.map((skip) => [skip.index, skip.reason])).to.deep.equal([[0n, "0x"]]);
    expect(outcome.settled.map((event) => event.quoteId)).to.deep.equal([quoteId(41)]);
    // Coverage's instrumented build spends more on the settled order than the real one.
    const slack = process.env.SOLIDITY_COVERAGE === "true" ? 600_000n : 300_000n;
    expect(receipt.gasUsed < (await f.gaslessRouter.read.BATCH_ORDER_GAS()) + slack, `gasUsed ${receipt.gasUsed}`).to.equal(true);
  });

  it("a batch sent with too little gas for its next order reverts as a whole (SwapBatchGasTooLow) instead of skipping an order that could settle", async () => {
    const f = await loadFixture(ready);
    const orders = [await sign(f, await usdcOrder(f, 50), 50n), await sign(f, await usdcOrder(f, 51), 51n), await sign(f, await usdcOrder(f, 52), 52n)];
    await expectRevert(sendBatch(f, orders, f.relayer, f.contracts.gaslessSwapRouter, 1_100_000n), "SwapBatchGasTooLow");
    for (const nonce of [50n, 51n, 52n]) expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + nonce)).to.equal(false);
    // The node's own estimate covers the headroom, so a batch sent with it settles everything.
    // (solidity-coverage's chain has a block gas limit above the transaction cap, where eth_estimateGas
    // fails; there the batch gets a fixed amount.)
    const estimate =
      process.env.SOLIDITY_COVERAGE === "true"
        ? 5_000_000n
        : await f.publicClient.estimateGas({ account: f.relayer.account, to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessBatch(orders, fullCaps(orders)) });
    const outcome = batchOutcome(await sendBatch(f, orders, f.relayer, f.contracts.gaslessSwapRouter, estimate));
    expect(outcome.settled).to.have.length(3);
  });

  it("refuses an empty batch and one above MAX_BATCH_ORDERS (SwapBatchSize) before any order runs", async () => {
    const f = await loadFixture(ready);
    const max = await f.gaslessRouter.read.MAX_BATCH_ORDERS();
    expect(max, "the SDK's cap").to.equal(BigInt(MAX_GASLESS_BATCH_ORDERS));
    const order = await sign(f, await usdcOrder(f, 60), 60n);
    const call = (orders: SignedGaslessOrder[]) => encodeFunctionData({ abi: gaslessBatchSwapRouterAbi, functionName: "swapGaslessBatch", args: [orders, fullCaps(orders)] });
    await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: call([]) }), "SwapBatchSize", [0n, max]);
    const tooMany = Array.from({ length: Number(max) + 1 }, () => order);
    await expectRevert(f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: call(tooMany), gas: 29_000_000n }), "SwapBatchSize", [max + 1n, max]);
    expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + 60n)).to.equal(false);
  });

  it("settleBatchOrder, the router's per-order step, is refused to anyone but the router itself", async () => {
    const f = await loadFixture(ready);
    const order = await sign(f, await usdcOrder(f, 70), 70n);
    await expectRevert(
      f.stranger.writeContract({ address: f.contracts.gaslessSwapRouter, abi: gaslessBatchSwapRouterAbi, functionName: "settleBatchOrder", args: [order, f.stranger.account.address] }),
      "SwapBatchSelfCallOnly",
      [getAddress(f.stranger.account.address)],
    );
    expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + 70n)).to.equal(false);
  });

  it("the re-entrancy lock holds across a batch's orders: an ETH recipient re-entering the router mid-order is refused with SwapReentrantCall, and the order settles", async () => {
    const f = await loadFixture(ready);
    const griefer = await hre.viem.deployContract("GriefingRecipient", [], { client: { public: f.publicClient, wallet: f.deployer } });
    await griefer.write.setReentryTarget([f.contracts.gaslessSwapRouter]);
    await griefer.write.setMode([5]); // ReenterRescue
    const sellAmount = parseUnits("300", 6);
    const route = await testRoute(f, ["USDC", "ETH"], sellAmount);
    const order = orderFor(route, sellAmount, griefer.address, await now(f), quoteId(80));
    const outcome = batchOutcome(await sendBatch(f, [await sign(f, order, 80n)]));
    expect(outcome.settled.map((event) => event.buyAmount)).to.deep.equal([route.buyAmount]);
    expect(await griefer.read.lastReentryError()).to.equal(toFunctionSelector("SwapReentrantCall()"));
    expect(await f.publicClient.getBalance({ address: griefer.address })).to.equal(route.buyAmount);
  });

  describe("the registry gate, checked once per batch", () => {
    it("while feature 3 is paused the whole batch is refused (SwapFeaturePaused) and no signature is spent; after unpause it settles", async () => {
      const f = await loadFixture(ready);
      const orders = [await sign(f, await usdcOrder(f, 90), 90n), await sign(f, await usdcOrder(f, 91), 91n)];
      await f.registry.write.pause([3n]);
      await expectRevert(sendBatch(f, orders, f.stranger), "SwapFeaturePaused", [3n]);
      expect(await nonceUsed(f, f.taker.account.address, NONCE_BASE + 90n)).to.equal(false);
      await f.registry.write.unpause([3n]);
      expect(batchOutcome(await sendBatch(f, orders)).settled).to.have.length(2);
    });

    it("a migration from the first feature-3 version: stage and activate the batch version; the old router keeps settling swapGasless until its dwell window closes, the new one settles batches", async () => {
      const f = await loadFixture(ready);
      // Feature 3 as it runs today: the first version, current.
      const old = await f.newGaslessRouter("GaslessSwapRouter");
      await f.registry.write.stage([3n, old]);
      await f.registry.write.activate([3n]);
      // The new version, through the registry's migration.
      const batchRouter = await f.newGaslessRouter();
      await f.registry.write.stage([3n, batchRouter]);
      await f.registry.write.activate([3n]);
      expect(await f.registry.read.ownerOf([3n])).to.equal(batchRouter);
      expect(await f.registry.read.prev([3n])).to.equal(old);
      const closesAt = await f.registry.read.dwellDeadline([3n]);

      // Inside the window the old router still settles an order signed for it; it has no batch entry point.
      const forOld = await usdcOrder(f, 100);
      const oldCall = await signedGaslessCalldata(f, { order: forOld, nonce: NONCE_BASE + 100n, relayerFee: 0n, relayerFeeRecipient: PAYEE_A, router: old });
      expect((await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: old, data: oldCall }) })).status).to.equal("success");
      const forNew = [await sign(f, await usdcOrder(f, 101), 101n, { router: batchRouter }), await sign(f, await usdcOrder(f, 102), 102n, { router: batchRouter })];
      let refused = false;
      await f.relayer.sendTransaction({ to: old, data: encodeSwapGaslessBatch(forNew, fullCaps(forNew)) }).catch(() => (refused = true));
      expect(refused, "the first version has no swapGaslessBatch").to.equal(true);
      expect(batchOutcome(await sendBatch(f, forNew, f.relayer, batchRouter)).settled).to.have.length(2);

      // From the second the window closes, the old router refuses; the new one keeps settling batches.
      await time.setNextBlockTimestamp(closesAt);
      const late = await usdcOrder(f, 103);
      const lateCall = await signedGaslessCalldata(f, { order: { ...late, deadline: closesAt + 3600n }, nonce: NONCE_BASE + 103n, relayerFee: 0n, relayerFeeRecipient: PAYEE_A, router: old });
      await expectRevert(f.relayer.sendTransaction({ to: old, data: lateCall }), "SwapRouterNotActive", [3n, closesAt]);
      const lateBatch = [await sign(f, { ...(await usdcOrder(f, 104)), deadline: closesAt + 3600n }, 104n, { router: batchRouter })];
      expect(batchOutcome(await sendBatch(f, lateBatch, f.relayer, batchRouter)).settled).to.have.length(1);
      // The devnet's own router, displaced inside its window, refuses batches at once.
      await expectRevert(sendBatch(f, [await sign(f, await usdcOrder(f, 105), 105n)]), "SwapRouterNotActive", [3n, 0n]);
      // An order signed for the old router is skipped by the new one: the signature binds the spender.
      const misdirected = { ...(await sign(f, { ...(await usdcOrder(f, 106)), deadline: closesAt + 3600n }, 106n, { router: old })) };
      expect(await skipReasonName(batchOutcome(await sendBatch(f, [misdirected], f.relayer, batchRouter)).skipped[0]!.reason)).to.equal("InvalidSigner");
    });

    it("the batch version keeps swapGasless's ABI: the first version's interface is a subset of it", () => {
      const signature = (item: { type: string; name?: string; inputs?: readonly { type: string }[] }) => `${item.type} ${item.name ?? ""}(${(item.inputs ?? []).map((input) => input.type).join(",")})`;
      const batch = new Set(gaslessBatchSwapRouterAbi.map(signature));
      for (const item of gaslessSwapRouterAbi) expect(batch.has(signature(item)), signature(item)).to.equal(true);
    });
  });
});
