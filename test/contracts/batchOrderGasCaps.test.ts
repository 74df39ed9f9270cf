import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, erc20Abi, maxUint256, parseUnits, type Address, type Hex } from "viem";
import { encodeSwapGasless, encodeSwapGaslessBatch, gaslessBatchSwapRouterAbi, MAX_GASLESS_BATCH_ORDERS, patchSignature, type SignedGaslessOrder, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS, BATCH_ORDER_LOOP_GAS, BATCH_OVERHEAD_GAS, batchGasLimit, batchOrderGasCap, batchOrderGasNeeded } from "../../sdk/relay/batchGasLimit";
import { calldataGas, INTRINSIC_GAS } from "../../sdk/relay/calldataGas";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { batchOutcome, nonceUsed, oddTokenMarket } from "../fixtures/gaslessBatch";
import { signedGaslessOrder } from "../fixtures/signedGasless";
import { orderFor, testRoute } from "../fixtures/testRoute";
import { expectRevert, revertOf } from "../helpers/expectRevert";
import { fuzzRuns } from "../helpers/fuzzRuns";

/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 23n << 64n;
const PAYEE: Address = "0x00000000000000000000000000000000000fee23";
/**
 * A cap an honest USDC→WETH order fits in. solidity-coverage's instrumented build (no Yul inliner, see
 * .solcover.js) spends more per swap: there the cap is doubled, the bounds are proven by the plain run.
 */
const FITTING_CAP = process.env.SOLIDITY_COVERAGE === "true" ? 600_000n : 300_000n;
const quoteId = (index: number): Hex => `0x${(index + 1).toString(16).padStart(64, "0")}`;

async function ready() {
  const f = await settlementFixture();
  await f.publicClient.waitForTransactionReceipt({
    hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }),
  });
  const odd = await oddTokenMarket(f);
  return { f, odd };
}

async function now(f: SettlementFixture) {
  return (await f.publicClient.getBlock()).timestamp;
}

let nonceCounter = 0n;

async function signed(f: SettlementFixture, order: SwapOrder): Promise<SignedGaslessOrder> {
  return signedGaslessOrder(f, { order, nonce: NONCE_BASE + nonceCounter++, relayerFee: parseUnits("1", 6), relayerFeeRecipient: PAYEE });
}

/** A USDC→WETH order that settles, accepting 10 % less than quoted (orders before it move the pool). */
async function honest(f: SettlementFixture, index: number): Promise<SignedGaslessOrder> {
  const sellAmount = parseUnits("100", 6);
  const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
  const order = orderFor(route, sellAmount, f.taker.account.address, await now(f), quoteId(index));
  return signed(f, { ...order, minBuyAmount: (order.minBuyAmount * 9n) / 10n });
}

/** The member's own `swapGasless` calldata: what a relay holds, and what its cap is computed from. */
function singleCalldata(order: SignedGaslessOrder): Hex {
  const { data, signatureOffset } = encodeSwapGasless(order.params, order.taker, order, order.nonce);
  return patchSignature(data, signatureOffset, order.signature);
}

async function send(f: SettlementFixture, orders: SignedGaslessOrder[], caps: bigint[], gas?: bigint) {
  const data = encodeSwapGaslessBatch(orders, caps);
  const hash = await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data, gas: gas ?? batchGasLimit(caps, calldataGas(data)) });
  return { receipt: await f.publicClient.waitForTransactionReceipt({ hash }), data };
}

describe("GaslessBatchSwapRouter: each order's gas cap, chosen by the submitter", function () {
  this.timeout(300_000);

  it("an order gets the cap it was given and no more: too small a cap skips it (its nonce unspent), the same order with a cap that fits settles", async () => {
    const { f } = await loadFixture(ready);
    const order = await honest(f, 0);
    const tight = await send(f, [order], [60_000n]);
    expect(tight.receipt.status).to.equal("success");
    const skipped = batchOutcome(tight.receipt);
    // Its call ran short inside Permit2's pull (the 1/64 kept there lets the token helper report it).
    expect(skipped.skipped.map((skip) => [skip.index, skip.quoteId])).to.deep.equal([[0n, quoteId(0)]]);
    expect(skipped.settled).to.have.length(0);
    expect(await nonceUsed(f, f.taker.account.address, order.nonce)).to.equal(false);
    const fitting = await send(f, [order], [FITTING_CAP]);
    expect(batchOutcome(fitting.receipt).settled.map((event) => event.quoteId)).to.deep.equal([quoteId(0)]);
  });

  it("a gas-burning order costs the batch its own cap, not BATCH_ORDER_GAS: it is skipped with GaslessOrderSkipped and the orders after it settle, in a batch sent with the relayer's gas limit", async () => {
    const { f, odd } = await loadFixture(ready);
    await odd.token.write.setTransferFailure([0n, true]);
    const burner = await signed(f, odd.sellOrder(parseUnits("1", 18), (await now(f)) + 600n, quoteId(10)));
    const others = [await honest(f, 11), await honest(f, 12)];
    const burnerCap = 250_000n;
    const caps = [burnerCap, FITTING_CAP, FITTING_CAP];
    const { receipt, data } = await send(f, [burner, ...others], caps);
    expect(receipt.status).to.equal("success");
    const outcome = batchOutcome(receipt);
    expect(outcome.skipped.map((skip) => [skip.index, skip.quoteId, skip.reason])).to.deep.equal([[0n, quoteId(10), "0x"]]);
    expect(outcome.settled.map((event) => event.quoteId)).to.deep.equal([quoteId(11), quoteId(12)]);
    // The burner used its cap and no more: the batch's gas is its cap, the two swaps and the batch's own.
    // (solidity-coverage's instrumented build spends more per swap: the bound is checked on the plain build.)
    const swaps = receipt.gasUsed - INTRINSIC_GAS - calldataGas(data) - burnerCap;
    if (process.env.SOLIDITY_COVERAGE !== "true") expect(swaps > 0n && swaps < 2n * 150_000n, `the rest used ${swaps}`).to.equal(true);
  });

  it("refuses a cap above BATCH_ORDER_GAS (SwapBatchOrderGasTooHigh with the order's index) and caps that are not one per order (SwapBatchGasLimitsLength), settling nothing", async () => {
    const { f } = await loadFixture(ready);
    const orders = [await honest(f, 20), await honest(f, 21)];
    const call = (caps: bigint[]) => encodeFunctionData({ abi: gaslessBatchSwapRouterAbi, functionName: "swapGaslessBatch", args: [orders, caps] });
    const max = await f.gaslessRouter.read.BATCH_ORDER_GAS();
    expect(max, "the SDK's BATCH_ORDER_GAS").to.equal(BATCH_ORDER_GAS);
    const sendRaw = (data: Hex) => f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data, gas: 5_000_000n });
    await expectRevert(sendRaw(call([300_000n, max + 1n])), "SwapBatchOrderGasTooHigh", [1n, max + 1n, max]);
    await expectRevert(sendRaw(call([300_000n])), "SwapBatchGasLimitsLength", [2n, 1n]);
    await expectRevert(sendRaw(call([300_000n, 300_000n, 300_000n])), "SwapBatchGasLimitsLength", [2n, 3n]);
    for (const order of orders) expect(await nonceUsed(f, f.taker.account.address, order.nonce)).to.equal(false);
    // BATCH_ORDER_GAS itself is allowed.
    const { receipt } = await send(f, orders, [max, max]);
    expect(batchOutcome(receipt).settled).to.have.length(2);
  });

  it("the gas the router wants before an order follows that order's cap: short of it the batch reverts whole with SwapBatchGasTooLow naming the order and its cap's need", async () => {
    const { f } = await loadFixture(ready);
    // The first order's cap of 0 fails its call at once (skipped); the second needs 400,000 and its reserve.
    const orders = [await honest(f, 30), await honest(f, 31)];
    const caps = [0n, 400_000n];
    const data = encodeSwapGaslessBatch(orders, caps);
    const short = INTRINSIC_GAS + calldataGas(data) + 410_000n;
    const error = await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data, gas: short }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const revert = await revertOf(error);
    expect(revert.errorName).to.equal("SwapBatchGasTooLow");
    const [index, gasLeft, needed] = revert.args as bigint[];
    expect([index, needed]).to.deep.equal([1n, batchOrderGasNeeded(400_000n)]);
    expect(gasLeft! < needed!).to.equal(true);
    for (const order of orders) expect(await nonceUsed(f, f.taker.account.address, order.nonce)).to.equal(false);
    // The relayer's limit for the same caps runs both: the first is skipped, the second settles.
    const done = batchOutcome((await send(f, orders, caps)).receipt);
    expect([done.skipped.map((skip) => skip.index), done.settled.map((event) => event.quoteId)]).to.deep.equal([[0n], [quoteId(31)]]);
  });

  it("a batch whose every member burns its whole cap (the relayer's share of its single-swap limit) mines, skips them all, and uses no more gas than the single-swap limits their fees were checked against", async () => {
    const { f, odd } = await loadFixture(ready);
    await odd.token.write.setTransferFailure([0n, true]);
    const start = await f.testClient.snapshot();
    // Block gas limit 30 M: members × limit stays under 25 M. solidity-coverage's instrumented burners
    // are slow: there batches stay small (the bound is proven by the plain run).
    const coverage = process.env.SOLIDITY_COVERAGE === "true";
    const batches = fc
      .integer({ min: 2, max: coverage ? 3 : MAX_GASLESS_BATCH_ORDERS })
      .chain((members) => fc.array(fc.bigInt({ min: 200_000n, max: 25_000_000n / BigInt(members) > 600_000n ? 600_000n : 25_000_000n / BigInt(members) }), { minLength: members, maxLength: members }));
    const examples: bigint[][] = coverage ? [[200_000n, 200_000n]] : [[200_000n, 200_000n], Array.from({ length: MAX_GASLESS_BATCH_ORDERS }, () => 390_000n)];
    await fc.assert(
      fc.asyncProperty(batches, async (limits) => {
        await f.testClient.revert({ id: start });
        await f.testClient.snapshot();
        const deadline = (await now(f)) + 3_600n;
        const orders = await Promise.all(limits.map((_, index) => signed(f, odd.sellOrder(parseUnits("1", 18), deadline, quoteId(100 + index)))));
        const caps = orders.map((order, index) => batchOrderGasCap(limits[index]!, singleCalldata(order)));
        const { receipt } = await send(f, orders, caps);
        expect(receipt.status).to.equal("success");
        const outcome = batchOutcome(receipt);
        expect(outcome.settled).to.have.length(0);
        expect(outcome.skipped.map((skip) => skip.reason)).to.deep.equal(orders.map(() => "0x"));
        const singleLimits = limits.reduce((sum, limit) => sum + limit, 0n);
        expect(receipt.gasUsed <= singleLimits, `${limits.length} members: gasUsed ${receipt.gasUsed} > ${singleLimits}`).to.equal(true);
      }),
      { ...fuzzRuns(coverage ? 1 : 6), examples: examples.map((limits): [bigint[]] => [limits]) },
    );
  });

  it("what one order costs the batch outside its cap (its loop overhead, a MAX_SKIP_REASON_BYTES reason included) and the batch's own overhead stay within BATCH_ORDER_LOOP_GAS and BATCH_OVERHEAD_GAS", async function () {
    // Gas of the plain build: solidity-coverage's instrumented one spends more on every line.
    if (process.env.SOLIDITY_COVERAGE === "true") this.skip();
    const { f, odd } = await loadFixture(ready);
    const deadline = (await now(f)) + 3_600n;
    const run = async (count: number, cap: bigint) => {
      const orders = await Promise.all(Array.from({ length: count }, (_, index) => signed(f, odd.sellOrder(parseUnits("1", 18), deadline, quoteId(200 + index)))));
      const caps = orders.map(() => cap);
      const { receipt, data } = await send(f, orders, caps);
      expect(batchOutcome(receipt).skipped).to.have.length(count);
      // Beyond the intrinsic gas and the calldata: the batch's own work, the orders' calls and their loop.
      return receipt.gasUsed - INTRINSIC_GAS - calldataGas(data);
    };
    // Orders that burn their whole cap (an empty reason).
    await odd.token.write.setTransferFailure([0n, true]);
    const [two, twelve] = [await run(2, 150_000n), await run(12, 150_000n)];
    const loop = (twelve - two) / 10n - 150_000n;
    const own = two - 2n * (150_000n + loop);
    // A skip whose reason is MAX_SKIP_REASON_BYTES long logs 256 more bytes (8 gas each) and copies them
    // into memory already paid for (the order's encoded call): about 2,100 over an empty reason.
    const longReason = 256n * 8n + 8n * 6n;
    // Each member's calldata in the batch beyond its own swapGasless: 60 bytes at most (batchCalldataGasBound).
    const memberCalldata = 60n * 16n;
    console.log(`      measured: loop ${loop} per order (empty reason), batch overhead ${own}`);
    expect(loop + longReason + memberCalldata <= BATCH_ORDER_LOOP_GAS, `loop ${loop}`).to.equal(true);
    expect(own <= BATCH_OVERHEAD_GAS, `batch overhead ${own}`).to.equal(true);
  });
});
