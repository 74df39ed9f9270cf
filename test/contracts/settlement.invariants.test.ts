import { expect } from "chai";
import fc from "fast-check";
import { loadFixture, time } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, maxUint256, parseEventLogs, parseUnits, zeroAddress, type Address, type TransactionReceipt } from "viem";
import { encodeRouteActions, encodeSwapGaslessBatch, encodeSwapNative, gaslessBatchSwapRouterAbi, encodeSwapWithAllowance, gaslessSwapRouterAbi, NATIVE_TOKEN, routerRegistryAbi, takerSwapRouterAbi, type SignedGaslessOrder, type SwapOrder } from "../../sdk";
import { BATCH_ORDER_GAS } from "../../sdk/relay/batchGasLimit";
import { settlementFixture } from "../fixtures/settlementFixture";
import { expectedRefusal, nextTimestamp, sendOutcome } from "../fixtures/invariantWorld";
import { ExactOutputSwap, GaslessExactOutputSwap, type ExactOutputSettlement, type GaslessTamper } from "../fixtures/exactOutputCommands";
import { signedGaslessCalldata, signedGaslessOrder } from "../fixtures/signedGasless";
import { balanceOf, orderFor, testRoute, type TestRoute } from "../fixtures/testRoute";
import { MixedRouteSwap, mixedRouteOutcomes, propAmmApprovals, type MixedInvariantWorld, type MixedSettlement } from "../fixtures/mixedRouteCommands";
import { fundTakerForMixedRoutes, mixedRoutePlan, mixedVenueMarket } from "../fixtures/mixedVenueRoutes";
import { revertOf } from "../helpers/expectRevert";
import { fuzzRuns } from "../helpers/fuzzRuns";

/**
 * Stateful invariant tests: fast-check drives random sequences of swaps (allowance, native, gasless,
 * exact-output ones by permit, allowance, ETH and gasless: see exactOutputCommands.ts, and random
 * routes over V2, both V3 venues, the propAMM and V4 pools, SPLIT legs mixing them: see mixedRouteCommands.ts),
 * migrations, pauses, unpauses, time, and adversarial actors (a stranger trying administrator calls
 * and a sweep through a look-alike pair, a copier front-running a relayer, gasless batches holding
 * duplicated, forged and expired orders) against the real devnet.
 * Each step checks what it promises (the taker lost at most the signed amount plus the relayer fee,
 * the recipient gained exactly SwapSettled.buyAmount >= minBuyAmount, fee + buyAmount = the route's
 * output, a refused swap moved nothing, a Permit2 nonce never fills twice); after every step the
 * global invariants are checked: no router and not the holder holds tokens or ETH, no router still
 * approves any propAMM for any token (the approval is reset to zero after each hop), the current and
 * previous routers' copied status equals the registry's (a retired router's copy says it is active
 * until 0, like the registry), `current` is never zero, `prev` answers only inside its window and
 * unpaused, and the administrator never changed.
 */

const FEATURES = [2n, 3n] as const;
const NONCE_BASE = 14n << 64n;
let nonceCounter = 0n;
const FEE_PAYEE: Address = "0x00000000000000000000000000000000000fee14";

type World = MixedInvariantWorld;

async function setup() {
  const f = await settlementFixture();
  for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
    });
  }
  await f.registry.write.setPauser([f.feeRecipient.account.address, true]);
  const market = mixedVenueMarket(f);
  await fundTakerForMixedRoutes(f, market);
  return { ...f, market };
}

const send = sendOutcome;

/** Checks a swap's outcome against the registry's verdict and the route's arithmetic. */
async function checkSwap(
  w: World,
  outcome: TransactionReceipt | { error: unknown },
  refusal: string[] | undefined,
  route: TestRoute,
  order: SwapOrder,
  before: { takerSell: bigint; recipientBuy: bigint },
  takerMaxLoss: bigint,
) {
  const { f } = w;
  const takerSell = await balanceOf(f, order.sellToken, f.taker.account.address);
  const recipientBuy = await balanceOf(f, order.buyToken, order.recipient);
  if (refusal !== undefined) {
    expect("error" in outcome, `a swap the registry forbids settled (${refusal})`).to.equal(true);
    expect(refusal).to.include((await revertOf((outcome as { error: unknown }).error)).errorName);
    if (order.sellToken !== NATIVE_TOKEN) expect(takerSell).to.equal(before.takerSell);
    expect(recipientBuy).to.equal(before.recipientBuy);
    return;
  }
  expect("error" in outcome, `an allowed swap reverted: ${"error" in outcome ? String(outcome.error) : ""}`).to.equal(false);
  const receipt = outcome as TransactionReceipt;
  const [settled] = parseEventLogs({ abi: takerSwapRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
  expect(settled, "SwapSettled").to.not.equal(undefined);
  const { buyAmount, feeAmount } = settled!.args;
  expect(buyAmount >= order.minBuyAmount).to.equal(true);
  expect(buyAmount + feeAmount).to.equal(route.buyAmount + route.feeAmount);
  if (order.sellToken !== NATIVE_TOKEN) expect(before.takerSell - takerSell <= takerMaxLoss).to.equal(true);
  expect(recipientBuy - before.recipientBuy).to.equal(buyAmount);
}

class AllowanceSwap implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly amount: number, readonly feeBps: number) {}
  check = () => true;
  async run(_: object, w: World) {
    const { f } = w;
    const router = w.routers["2"][this.pick % w.routers["2"].length]!;
    const sellAmount = parseUnits(String(this.amount), 6);
    const route = await testRoute(f, ["USDC", "WETH"], sellAmount, this.feeBps ? { bps: this.feeBps, recipient: f.feeRecipient.account.address } : undefined);
    const at = await nextTimestamp(w);
    const order = orderFor(route, sellAmount, f.recipient.account.address, at, `0x${"a1".repeat(32)}`);
    const before = { takerSell: await balanceOf(f, order.sellToken, f.taker.account.address), recipientBuy: await balanceOf(f, order.buyToken, order.recipient) };
    const refusal = await expectedRefusal(w, 2n, router, at);
    const outcome = await send(() => f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order, router) }), w);
    await checkSwap(w, outcome, refusal, route, order, before, sellAmount);
  }
  toString = () => `allowanceSwap(router#${this.pick}, ${this.amount} USDC, fee ${this.feeBps})`;
}

class NativeSwap implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly milliEth: number) {}
  check = () => true;
  async run(_: object, w: World) {
    const { f } = w;
    const router = w.routers["2"][this.pick % w.routers["2"].length]!;
    const sellAmount = parseUnits(String(this.milliEth), 15);
    const route = await testRoute(f, ["ETH", "USDC"], sellAmount);
    const at = await nextTimestamp(w);
    const order = orderFor(route, sellAmount, f.recipient.account.address, at, `0x${"b2".repeat(32)}`);
    const before = { takerSell: 0n, recipientBuy: await balanceOf(f, order.buyToken, order.recipient) };
    const refusal = await expectedRefusal(w, 2n, router, at);
    const outcome = await send(() => f.taker.sendTransaction({ to: router, data: encodeSwapNative(order), value: sellAmount }), w);
    await checkSwap(w, outcome, refusal, route, order, before, sellAmount);
  }
  toString = () => `nativeSwap(router#${this.pick}, ${this.milliEth} mETH)`;
}

class GaslessSwap implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly amount: number, readonly fee: number, readonly copier: boolean) {}
  check = () => true;
  async run(_: object, w: World) {
    const { f } = w;
    const router = w.routers["3"][this.pick % w.routers["3"].length]!;
    const sellAmount = parseUnits(String(this.amount), 6);
    const relayerFee = parseUnits(String(this.fee), 4);
    const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
    const at = await nextTimestamp(w);
    const order = orderFor(route, sellAmount, f.recipient.account.address, at, `0x${"c3".repeat(32)}`);
    const nonce = NONCE_BASE + nonceCounter++;
    const signed = await signedGaslessCalldata(f, { order, nonce, relayerFee, relayerFeeRecipient: FEE_PAYEE, router });
    const before = { takerSell: await balanceOf(f, order.sellToken, f.taker.account.address), recipientBuy: await balanceOf(f, order.buyToken, order.recipient) };
    const payeeBefore = await balanceOf(f, order.sellToken, FEE_PAYEE);
    const refusal = await expectedRefusal(w, 3n, router, at);
    // A front-running copier lands the relayer's exact calldata first: same outcome, fee to the signed payee.
    const submitter = this.copier ? f.stranger : f.relayer;
    const outcome = await send(() => submitter.sendTransaction({ to: router, data: signed }), w);
    await checkSwap(w, outcome, refusal, route, order, before, sellAmount + relayerFee);
    if (refusal === undefined) {
      expect(await balanceOf(f, order.sellToken, FEE_PAYEE)).to.equal(payeeBefore + relayerFee);
      // The same signature never fills twice, whoever sends it.
      await nextTimestamp(w);
      const replay = await send(() => f.relayer.sendTransaction({ to: router, data: signed }), w);
      expect("error" in replay, "a Permit2 nonce filled twice").to.equal(true);
    }
  }
  toString = () => `gaslessSwap(router#${this.pick}, ${this.amount} USDC, fee ${this.fee}, copier ${this.copier})`;
}

/** How one order of a random batch is made: valid, a repeat of an earlier one, signed by another wallet, or expired. */
type BatchOrderKind = "valid" | "repeat" | "forged" | "expired";

/**
 * A relayer's (or a copier's) batch of random orders: the registry gate refuses it as a whole or not
 * at all; otherwise exactly the valid orders settle (a repeat never twice), each skip is reported, the
 * taker pays exactly the settled orders and their fees, the payee gets exactly those fees, and a
 * replay of the whole batch settles nothing.
 */
class GaslessBatch implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number, readonly kinds: BatchOrderKind[], readonly amount: number, readonly copier: boolean) {}
  check = () => true;
  async run(_: object, w: World) {
    const { f } = w;
    const router = w.routers["3"][this.pick % w.routers["3"].length]!;
    const at = await nextTimestamp(w);
    const relayerFee = parseUnits("0.25", 6);
    const sellAmount = parseUnits(String(this.amount), 6);
    const orders: SignedGaslessOrder[] = [];
    const expected: boolean[] = [];
    for (const [index, kind] of this.kinds.entries()) {
      if (kind === "repeat" && orders.length > 0) {
        orders.push(orders[index % orders.length]!);
        expected.push(false);
        continue;
      }
      const route = await testRoute(f, ["USDC", "WETH"], sellAmount);
      const quoted = orderFor(route, sellAmount, f.recipient.account.address, at, `0x${(0xd0 + index).toString(16).repeat(32)}`);
      // Earlier orders of the batch move the pool: accept half the quote.
      const order = { ...quoted, minBuyAmount: quoted.minBuyAmount / 2n, deadline: kind === "expired" ? at - 1n : quoted.deadline };
      const signer = kind === "forged" ? f.stranger.account.address : f.taker.account.address;
      orders.push(await signedGaslessOrder(f, { order, nonce: NONCE_BASE + nonceCounter++, relayerFee, relayerFeeRecipient: FEE_PAYEE, router, signer, taker: f.taker.account.address }));
      expected.push(kind === "valid" || kind === "repeat");
    }
    const data = encodeSwapGaslessBatch(orders, orders.map(() => BATCH_ORDER_GAS));
    const before = { takerSell: await balanceOf(f, f.token("USDC"), f.taker.account.address), recipientBuy: await balanceOf(f, f.token("WETH"), f.recipient.account.address) };
    const payeeBefore = await balanceOf(f, f.token("USDC"), FEE_PAYEE);
    const refusal = await expectedRefusal(w, 3n, router, at);
    const outcome = await send(() => (this.copier ? f.stranger : f.relayer).sendTransaction({ to: router, data }), w);
    const takerSell = await balanceOf(f, f.token("USDC"), f.taker.account.address);
    const recipientBuy = await balanceOf(f, f.token("WETH"), f.recipient.account.address);
    if (refusal !== undefined) {
      expect("error" in outcome, `a batch the registry forbids settled (${refusal})`).to.equal(true);
      expect(refusal).to.include((await revertOf((outcome as { error: unknown }).error)).errorName);
      expect([takerSell, recipientBuy]).to.deep.equal([before.takerSell, before.recipientBuy]);
      return;
    }
    expect("error" in outcome, `an allowed batch reverted: ${"error" in outcome ? String(outcome.error) : ""}`).to.equal(false);
    const logs = (outcome as TransactionReceipt).logs;
    const settled = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs, eventName: "SwapSettled" });
    const skipped = parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs, eventName: "GaslessOrderSkipped" });
    const settledCount = expected.filter(Boolean).length;
    expect(settled.length, "settled orders").to.equal(settledCount);
    expect(skipped.map((log) => Number(log.args.index))).to.deep.equal(expected.flatMap((ok, index) => (ok ? [] : [index])));
    for (const log of settled) expect(log.args.buyAmount >= orders.find((order) => order.params.quoteId === log.args.quoteId)!.params.minBuyAmount).to.equal(true);
    expect(before.takerSell - takerSell).to.equal(BigInt(settledCount) * (sellAmount + relayerFee));
    expect(recipientBuy - before.recipientBuy).to.equal(settled.reduce((sum, log) => sum + log.args.buyAmount, 0n));
    expect(await balanceOf(f, f.token("USDC"), FEE_PAYEE)).to.equal(payeeBefore + BigInt(settledCount) * relayerFee);
    // No order of the batch ever fills twice, whoever sends it again.
    await nextTimestamp(w);
    const replay = await send(() => f.relayer.sendTransaction({ to: router, data }), w);
    expect("error" in replay, "a replayed batch reverted").to.equal(false);
    expect(parseEventLogs({ abi: gaslessBatchSwapRouterAbi, logs: (replay as TransactionReceipt).logs, eventName: "SwapSettled" }), "a Permit2 nonce filled twice").to.have.length(0);
  }
  toString = () => `gaslessBatch(router#${this.pick}, [${this.kinds.join(", ")}], ${this.amount} USDC, copier ${this.copier})`;
}

class Migrate implements fc.AsyncCommand<object, World> {
  constructor(readonly feature: 2n | 3n) {}
  check = () => true;
  async run(_: object, w: World) {
    const router = this.feature === 2n ? await w.f.newTakerRouter() : await w.f.newGaslessRouter();
    await w.f.publicClient.waitForTransactionReceipt({ hash: await w.f.registry.write.stage([this.feature, router]) });
    await w.f.publicClient.waitForTransactionReceipt({ hash: await w.f.registry.write.activate([this.feature]) });
    w.routers[String(this.feature) as "2" | "3"].push(router);
  }
  toString = () => `migrate(${this.feature})`;
}

class Pause implements fc.AsyncCommand<object, World> {
  constructor(readonly feature: 2n | 3n, readonly byPauser: boolean) {}
  check = () => true;
  async run(_: object, w: World) {
    const account = this.byPauser ? w.f.feeRecipient : w.f.deployer;
    const [, , , paused] = await w.f.registry.read.getFeature([this.feature]);
    const outcome = await send(() => account.writeContract({ address: w.f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "pause", args: [this.feature] }), w);
    expect("error" in outcome).to.equal(paused);
  }
  toString = () => `pause(${this.feature}, ${this.byPauser ? "pauser" : "admin"})`;
}

class Unpause implements fc.AsyncCommand<object, World> {
  constructor(readonly feature: 2n | 3n) {}
  check = () => true;
  async run(_: object, w: World) {
    const [, , , paused] = await w.f.registry.read.getFeature([this.feature]);
    const outcome = await send(() => w.f.deployer.writeContract({ address: w.f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "unpause", args: [this.feature] }), w);
    expect("error" in outcome).to.equal(!paused);
  }
  toString = () => `unpause(${this.feature})`;
}

class Wait implements fc.AsyncCommand<object, World> {
  constructor(readonly seconds: number) {}
  check = () => true;
  async run(_: object, w: World) {
    await time.increase(this.seconds);
    void w;
  }
  toString = () => `wait(${this.seconds}s)`;
}

/** A stranger tries every administrator-only call and a pause; a pauser tries to unpause. */
class StrangerAdministers implements fc.AsyncCommand<object, World> {
  constructor(readonly feature: 2n | 3n) {}
  check = () => true;
  async run(_: object, w: World) {
    const { f } = w;
    const calls = [
      () => f.stranger.writeContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "stage", args: [this.feature, f.contracts.weth] }),
      () => f.stranger.writeContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "activate", args: [this.feature] }),
      () => f.stranger.writeContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "pause", args: [this.feature] }),
      () => f.feeRecipient.writeContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "unpause", args: [this.feature] }),
      () => f.stranger.writeContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "setDwell", args: [1n] }),
      () => f.stranger.writeContract({ address: f.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "proposeAdmin", args: [f.stranger.account.address] }),
    ];
    for (const call of calls) {
      const outcome = await send(call, w);
      expect("error" in outcome, "a stranger changed registry state").to.equal(true);
      expect((await revertOf((outcome as { error: unknown }).error)).errorName).to.equal("RouterRegistryUnauthorized");
    }
  }
  toString = () => `strangerAdministers(${this.feature})`;
}

/** Tokens land in a router by mistake; a stranger's sweep and rescue fail; the administrator rescues. */
class StraySweep implements fc.AsyncCommand<object, World> {
  constructor(readonly pick: number) {}
  check = () => true;
  async run(_: object, w: World) {
    const { f } = w;
    const router = w.routers["2"][this.pick % w.routers["2"].length]!;
    const stray = parseUnits("500", 6);
    await send(() => f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "transfer", args: [router, stray] }), w);
    const actions = encodeRouteActions([
      { type: "wrap" },
      { type: "swapV2", pair: f.pool("USDC", "DAI"), tokenOut: f.token("USDC"), feeBps: 30 },
      { type: "fee", bps: 0, recipient: f.stranger.account.address },
    ]);
    const sweep: SwapOrder = {
      sellToken: NATIVE_TOKEN, sellAmount: 1n, buyToken: f.token("USDC"), minBuyAmount: 1n, recipient: f.stranger.account.address,
      deadline: maxUint256, quoteId: `0x${"5e".repeat(32)}`, actions,
    };
    expect("error" in (await send(() => f.stranger.sendTransaction({ to: router, data: encodeSwapNative(sweep), value: 1n }), w))).to.equal(true);
    const rescueArgs = [f.token("USDC"), f.stranger.account.address, stray] as const;
    expect("error" in (await send(() => f.stranger.writeContract({ address: router, abi: takerSwapRouterAbi, functionName: "rescue", args: rescueArgs }), w))).to.equal(true);
    const rescued = await send(() => f.deployer.writeContract({ address: router, abi: takerSwapRouterAbi, functionName: "rescue", args: [f.token("USDC"), f.taker.account.address, stray] }), w);
    expect("error" in rescued, "the administrator's rescue failed").to.equal(false);
  }
  toString = () => `straySweep(router#${this.pick})`;
}

async function checkInvariants(w: World) {
  const { f } = w;
  w.steps++;
  const tokens = [...f.tokens.map((token) => token.address), NATIVE_TOKEN];
  for (const holderOrRouter of [f.contracts.allowanceHolder, ...w.routers["2"], ...w.routers["3"]]) {
    for (const token of tokens) expect(await balanceOf(f, token, holderOrRouter), `${holderOrRouter} holds ${token}`).to.equal(0n);
  }
  const now = (await f.publicClient.getBlock()).timestamp;
  for (const feature of FEATURES) {
    const [previous, current, , paused] = await f.registry.read.getFeature([feature]);
    expect(current).to.not.equal(zeroAddress);
    const closesAt = await f.registry.read.dwellDeadline([feature]);
    let prev: Address | undefined;
    await f.registry.read.prev([feature]).then((router) => (prev = router)).catch(() => undefined);
    const previousRouter = await rawPrevious(w, feature);
    expect(prev !== undefined, `prev(${feature}) answered outside its window or while paused`).to.equal(!paused && previousRouter !== zeroAddress && now < closesAt);
    if (prev !== undefined) expect(previous).to.equal(prev);
    for (const router of w.routers[String(feature) as "2" | "3"]) {
      const abi = feature === 2n ? takerSwapRouterAbi : gaslessSwapRouterAbi;
      const copied = await f.publicClient.readContract({ address: router, abi, functionName: "status" });
      const truth = await f.registry.read.statusOf([feature, router]);
      // A retired router (the registry's answer is "active until 0") is never synced again, so its
      // copy may keep a stale pause flag; what matters is that it can never settle either.
      if (truth[1] === 0n) expect(copied[1], `retired router ${router} could still settle`).to.equal(0n);
      else expect(copied, `router ${router} disagrees with the registry`).to.deep.equal(truth);
    }
  }
  expect(await f.registry.read.admin()).to.equal(w.admin);
  await propAmmApprovals(w, [...w.routers["2"], ...w.routers["3"]]);
}

/** The previous router as stored, whether or not its window is open (statusOf names it when it is). */
async function rawPrevious(w: World, feature: bigint): Promise<Address> {
  for (const router of w.routers[String(feature) as "2" | "3"]) {
    const [, activeUntil] = await w.f.registry.read.statusOf([feature, router]);
    if (activeUntil !== 0n && activeUntil !== 2n ** 64n - 1n) return router;
  }
  return zeroAddress;
}

describe("settlement invariants under random sequences of swaps, migrations, pauses and adversaries", function () {
  this.timeout(600_000);

  it("hold after every step", async () => {
    const feature = fc.constantFrom(2n as const, 3n as const);
    const mixedSwap = fc
      .tuple(fc.nat(), fc.constantFrom<MixedSettlement>("allowance", "permit", "gasless", "batch"), mixedRoutePlan())
      .map(([pick, settlement, plan]) => new MixedRouteSwap(pick, settlement, plan));
    const commands = [
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 20_000 }), fc.constantFrom(0, 25)).map(([pick, amount, fee]) => new AllowanceSwap(pick, amount, fee)),
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 5_000 })).map(([pick, milliEth]) => new NativeSwap(pick, milliEth)),
      fc.tuple(fc.nat(), fc.integer({ min: 1, max: 20_000 }), fc.integer({ min: 0, max: 30_000 }), fc.boolean()).map(([pick, amount, fee, copier]) => new GaslessSwap(pick, amount, fee, copier)),
      fc
        .tuple(fc.nat(), fc.array(fc.constantFrom<BatchOrderKind>("valid", "valid", "repeat", "forged", "expired"), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 5_000 }), fc.boolean())
        .map(([pick, kinds, amount, copier]) => new GaslessBatch(pick, kinds, amount, copier)),
      fc
        .tuple(fc.nat(), fc.constantFrom<ExactOutputSettlement>("permit", "allowance", "native"), fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: -50, max: 800 }))
        .map(([pick, settlement, amount, slackBps]) => new ExactOutputSwap(pick, settlement, amount, slackBps)),
      fc
        .tuple(fc.nat(), fc.integer({ min: 1, max: 3_000 }), fc.integer({ min: 0, max: 30_000 }), fc.integer({ min: -50, max: 800 }), fc.boolean(), fc.constantFrom<GaslessTamper>("buyAmount", "maxSellAmount", "relayerFee", "relayerFeeRecipient"))
        .map(([pick, milliEth, fee, slackBps, copier, tamper]) => new GaslessExactOutputSwap(pick, milliEth, fee, slackBps, copier, tamper)),
      // Twice: the new venues' steps come up as often as the V2 swaps of all kinds.
      mixedSwap,
      mixedSwap,
      feature.map((id) => new Migrate(id)),
      fc.tuple(feature, fc.boolean()).map(([id, byPauser]) => new Pause(id, byPauser)),
      feature.map((id) => new Unpause(id)),
      fc.integer({ min: 1, max: 5_400 }).map((seconds) => new Wait(seconds)),
      feature.map((id) => new StrangerAdministers(id)),
      fc.nat().map((pick) => new StraySweep(pick)),
    ];
    // The opening swap: small (a large route can legitimately run a narrow pool dry and be refused) and
    // not batched (a batch may skip an order it cannot fit), so it settles whatever the draw.
    const opening = fc
      .tuple(fc.nat(), fc.constantFrom<MixedSettlement>("allowance", "permit", "gasless"), mixedRoutePlan(10_000))
      .map(([pick, settlement, plan]) => new MixedRouteSwap(pick, settlement, plan));
    let steps = 0;
    await fc.assert(
      // Every run opens with a mixed-venue swap on the fresh devnet, so the mixed-venue check below does not
      // hang on the draw: some seeds drew no mixed step in any of the runs' random sequences.
      fc.asyncProperty(opening, fc.commands(commands, { maxCommands: 14 }), async (first, sequence) => {
        const { market, ...f } = await loadFixture(setup);
        const world: World = { f, market, routers: { "2": [f.routerAddress], "3": [f.contracts.gaslessSwapRouter] }, admin: f.deployer.account.address, steps: 0 };
        await checkInvariants(world);
        for (const command of [first, ...sequence]) {
          await command.run({}, world);
          await checkInvariants(world);
        }
        steps += world.steps;
      }),
      fuzzRuns(8),
    );
    expect(steps).to.be.greaterThan(8);
    const mixed = mixedRouteOutcomes;
    console.log(`      mixed-venue steps: ${mixed.settled} settled (V3 ${mixed.v3}, propAMM ${mixed.propAmm}, V4 ${mixed.v4}, SPLIT ${mixed.split}), ${mixed.unpriced} unpriced and refused, ${mixed.refusedByRegistry} refused by the registry${mixed.outOfGasUnderCoverage > 0 ? `, ${mixed.outOfGasUnderCoverage} batch orders out of gas under coverage` : ""}`);
    expect(mixed.settled, "mixed-venue routes settled").to.be.greaterThan(0);
  });
});
