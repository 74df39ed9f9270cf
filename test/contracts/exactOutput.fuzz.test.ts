import { expect } from "chai";
import fc from "fast-check";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, erc20Abi, getAddress, maxUint256, padHex, parseEther, parseEventLogs, sliceHex, zeroAddress, type Address, type Hex, type TransactionReceipt } from "viem";
import {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapExactOutputWithPermit,
  encodeSwapGaslessExactOutput,
  encodeRouteActions,
  decodeRouteActions,
  gaslessExactOutputRouterAbi,
  getAmountOut,
  NATIVE_TOKEN,
  patchSignature,
  takerExactOutputRouterAbi,
  uniswapV2PairAbi,
  type ExactOutputOrder,
  type RelayerFee,
  swapV4Hop,
} from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { exactOutputOrderFor, exactOutputTestRoute } from "../fixtures/exactOutputRoute";
import { gasSpentSince } from "../fixtures/gasSpent";
import { balanceOf } from "../fixtures/testRoute";
import { fundTakerForMixedRoutes, mixedRoute, mixedRoutePlan, mixedVenueMarket } from "../fixtures/mixedVenueRoutes";
import { revertOf } from "../helpers/expectRevert";
import { fuzzRuns } from "../helpers/fuzzRuns";

/**
 * Fuzzing exact-output settlement with fast-check (random seed printed; replay with FUZZ_SEED):
 * random outputs, from nothing to more than the pool holds, and maxima around the input the route
 * needs, through each settlement (Permit2, allowance holder, ETH, gasless), with each settlement's
 * own bookkeeping measured (the ERC20 allowance Permit2 or the holder spends, the ETH refunded); and a
 * signed order with any one field changed by whoever submits it.
 */

const NONCE_BASE = 25n << 64n;
let nonceCounter = 0n;
const nextNonce = () => NONCE_BASE + nonceCounter++;
const QUOTE_ID: Hex = `0x${"f5".repeat(32)}`;
const FEE: RelayerFee = { relayerFee: 1_500_000n, relayerFeeRecipient: "0x00000000000000000000000000000000000fee25" };

type Settlement = "permit" | "allowance" | "native" | "gasless";

async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** The reserves (of `tokenIn`, of `tokenOut`) of their pool: an output can only approach the second. */
async function reservesOf(f: SettlementFixture, tokenIn: Address, tokenOut: Address): Promise<[bigint, bigint]> {
  const [reserve0, reserve1] = await f.publicClient.readContract({ address: f.pool(symbolOf(f, tokenIn), symbolOf(f, tokenOut)), abi: uniswapV2PairAbi, functionName: "getReserves" });
  return tokenIn.toLowerCase() < tokenOut.toLowerCase() ? [reserve0, reserve1] : [reserve1, reserve0];
}

function symbolOf(f: SettlementFixture, token: Address): string {
  return getAddress(token) === getAddress(f.contracts.weth) ? "WETH" : f.tokens.find((candidate) => getAddress(candidate.address) === getAddress(token))!.symbol;
}

/**
 * What an order must come to, from its numbers alone: the refusal expected (the pool cannot pay the
 * output; the need exceeds the maximum; the needed input buys nothing, as for a zero output whose one
 * unit of input is worth less than a unit of output; the taker cannot pay), or settled.
 */
function expectedOutcome(settlement: Settlement, paysOut: bigint, needed: bigint | undefined, maximum: bigint, fee: bigint, balance: bigint): string {
  if (needed === undefined) return "V2SwapMathInsufficientLiquidity";
  if (needed > maximum) return "SwapExcessiveInput";
  if (paysOut === 0n) return "UniswapV2: INSUFFICIENT_OUTPUT_AMOUNT";
  if (needed + fee > balance) return settlement === "allowance" ? "ERC20InsufficientBalance" : "TRANSFER_FROM_FAILED";
  return "settled";
}

/** Signs and encodes `order` for the settlement; returns who sends it, where, and with what value. */
async function submission(f: SettlementFixture, settlement: Settlement, order: ExactOutputOrder): Promise<{ from: typeof f.taker; to: Address; data: Hex; value: bigint }> {
  const signer = f.signerOf(f.taker.account.address);
  if (settlement === "permit") {
    const nonce = nextNonce();
    const signature = await signer.signTypedData(buildExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order, nonce }));
    const { data, signatureOffset } = encodeSwapExactOutputWithPermit(order, nonce);
    return { from: f.taker, to: f.routerAddress, data: patchSignature(data, signatureOffset, signature), value: 0n };
  }
  if (settlement === "gasless") {
    const nonce = nextNonce();
    const router = f.contracts.gaslessSwapRouter;
    const signature = await signer.signTypedData(buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order, nonce, ...FEE }));
    const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, f.taker.account.address, FEE, nonce);
    return { from: f.relayer, to: router, data: patchSignature(data, signatureOffset, signature), value: 0n };
  }
  if (settlement === "native") return { from: f.taker, to: f.routerAddress, data: encodeSwapExactOutputNative(order), value: order.maxSellAmount };
  return { from: f.taker, to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(order, f.routerAddress), value: 0n };
}

describe("exact-output fuzzing", function () {
  this.timeout(600_000);

  it("random outputs (none to more than the pool holds) and maxima around the need, through each settlement: at least buyAmount out, exactly the needed input and at most the maximum in, Permit2 and the holder spend only that, the unspent ETH comes back; or one of the routers' errors and nothing moved", async () => {
    const outcomes = { settled: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Settlement>("permit", "allowance", "native", "gasless"),
        fc.oneof(fc.integer({ min: 0, max: 1_100_000 }), fc.constantFrom(0, 1, 999_999, 1_000_000, 1_000_001)),
        fc.integer({ min: -100, max: 2_000 }),
        async (settlement, millionths, slackBps) => {
          const f = await loadFixture(settlementFixture);
          const native = settlement === "native";
          const symbols = (native ? ["ETH", "USDC"] : ["USDC", "WETH"]) as [string, string];
          const [tokenIn, tokenOut] = native ? [getAddress(f.contracts.weth), f.token("USDC")] : [f.token("USDC"), getAddress(f.contracts.weth)];
          const [reserveIn, reserve] = await reservesOf(f, tokenIn, tokenOut);
          // Millionths of the output reserve; the edge values hit 1 unit, the reserve less one, the reserve and past it.
          const buyAmount = millionths === 1 ? 1n : millionths === 999_999 ? reserve - 1n : (reserve * BigInt(millionths)) / 1_000_000n;
          const route = await exactOutputTestRoute(f, [symbols], buyAmount).catch(() => undefined);
          const needed = route?.amountIn;
          const maximum = needed === undefined ? 10n ** 21n : needed + (needed * BigInt(slackBps)) / 10_000n;
          // An ETH value beyond the taker's balance is the node's refusal, not the router's.
          if (native) fc.pre(maximum <= 10n ** 23n);
          const shape = route ?? (await exactOutputTestRoute(f, [symbols], 1n));
          const order = exactOutputOrderFor(shape, buyAmount, maximum, f.recipient.account.address, await now(f), QUOTE_ID);
          const fee = settlement === "gasless" ? FEE.relayerFee : 0n;
          // Finite approvals of exactly the most the order may take, so what Permit2 or the holder spent shows in the allowance left.
          const spender = settlement === "allowance" ? f.contracts.allowanceHolder : f.contracts.permit2;
          if (!native) await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [spender, order.maxSellAmount + fee] }) });
          const taker = f.taker.account.address;
          const allowance = () => f.publicClient.readContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "allowance", args: [taker, spender] });
          const before = { block: await f.publicClient.getBlockNumber(), sell: await balanceOf(f, order.sellToken, taker), buy: await balanceOf(f, order.buyToken, order.recipient), allowance: native ? 0n : await allowance() };
          const paysOut = needed === undefined ? 0n : getAmountOut(needed, reserveIn, reserve, 30);
          const expected = expectedOutcome(settlement, paysOut, needed, maximum, fee, before.sell);
          const { from, to, data, value } = await submission(f, settlement, order);
          let receipt: TransactionReceipt | undefined;
          let failure: unknown;
          try {
            receipt = await f.publicClient.waitForTransactionReceipt({ hash: await from.sendTransaction({ to, data, value }) });
          } catch (error) {
            failure = error;
          }
          const gas = native ? await gasSpentSince(f, taker, before.block) : 0n;
          const spent = before.sell - (await balanceOf(f, order.sellToken, taker)) - gas;
          const received = (await balanceOf(f, order.buyToken, order.recipient)) - before.buy;
          if (receipt === undefined) {
            outcomes.refused++;
            const { errorName, args } = await revertOf(failure);
            const reason = errorName === "Error" ? String(args[0]) : errorName;
            expect(reason, `buy ${buyAmount}, need ${needed}, max ${maximum}`).to.equal(expected);
            expect([spent, received], "a refused order moved nothing").to.deep.equal([0n, 0n]);
            return;
          }
          outcomes.settled++;
          expect(expected, "only a payable output within the maximum settles").to.equal("settled");
          expect(received >= buyAmount, "never less than buyAmount out").to.equal(true);
          expect(spent, "exactly the needed input (plus the relayer fee, on top)").to.equal(needed! + fee);
          expect(spent <= order.maxSellAmount + fee, "never more than maxSellAmount in").to.equal(true);
          if (native) {
            const refunds = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapInputRefunded" });
            expect(refunds.map((log) => log.args.amount), "the unspent ETH, to the wei").to.deep.equal(maximum === needed ? [] : [maximum - needed!]);
          } else {
            expect(before.allowance - (await allowance()), `${settlement === "allowance" ? "the holder" : "Permit2"} spent only the needed input`).to.equal(needed! + fee);
          }
          expect(await balanceOf(f, order.sellToken, to), "nothing stays where the order was sent").to.equal(0n);
          expect(await balanceOf(f, order.buyToken, to), "nothing of the output stays either").to.equal(0n);
        },
      ),
      fuzzRuns(30),
    );
    expect(outcomes.settled > 0 && outcomes.refused > 0, `both outcomes were reached (${JSON.stringify(outcomes)})`).to.equal(true);
  });

  it("a signed order with any one field changed by whoever submits it (a relayer, a copier) never settles, and never moves the taker's tokens", async () => {
    const f = await loadFixture(settlementFixture);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
    const buyAmount = 10n ** 17n;
    const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], buyAmount);
    const order = exactOutputOrderFor(route, buyAmount, route.amountIn + 5_000_000n, f.recipient.account.address, await now(f), QUOTE_ID);
    const nonce = nextNonce();
    const router = f.contracts.gaslessSwapRouter;
    const signature = await f.signerOf(f.taker.account.address).signTypedData(buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order, nonce, ...FEE }));
    const permitNonce = nextNonce();
    const permitSignature = await f.signerOf(f.taker.account.address).signTypedData(buildExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order, nonce: permitNonce }));
    const stranger = f.stranger.account.address;
    type Change = { field: string; order?: Partial<ExactOutputOrder>; fee?: Partial<RelayerFee>; taker?: Address; nonce?: bigint };
    const change = fc.oneof(
      fc.bigInt({ min: 0n, max: buyAmount - 1n }).map((value): Change => ({ field: "buyAmount", order: { buyAmount: value } })),
      fc.bigInt({ min: order.maxSellAmount + 1n, max: maxUint256 - FEE.relayerFee }).map((value): Change => ({ field: "maxSellAmount", order: { maxSellAmount: value } })),
      fc.constant<Change>({ field: "recipient", order: { recipient: stranger } }),
      fc.bigInt({ min: order.deadline + 1n, max: maxUint256 }).map((value): Change => ({ field: "deadline", order: { deadline: value } })),
      fc.constant<Change>({ field: "quoteId", order: { quoteId: `0x${"0b".repeat(32)}` } }),
      fc.constant<Change>({ field: "actions", order: { actions: concatHex([order.actions, "0x02"]) } }),
      fc.constant<Change>({ field: "sellToken", order: { sellToken: f.token("USDT") } }),
      fc.bigInt({ min: 0n, max: FEE.relayerFee * 10n }).filter((value) => value !== FEE.relayerFee).map((value): Change => ({ field: "relayerFee", fee: { relayerFee: value } })),
      fc.constant<Change>({ field: "relayerFeeRecipient", fee: { relayerFeeRecipient: stranger } }),
      fc.constant<Change>({ field: "taker", taker: stranger }),
      fc.constant<Change>({ field: "nonce", nonce: nonce + 1n }),
    );
    const takerBalance = () => balanceOf(f, f.token("USDC"), f.taker.account.address);
    const balanceBefore = await takerBalance();
    await fc.assert(
      fc.asyncProperty(change, fc.boolean(), async (changed, copier) => {
        const submitter = copier ? f.stranger : f.relayer;
        const tampered = { ...order, ...changed.order };
        const { data, signatureOffset } = encodeSwapGaslessExactOutput(tampered, changed.taker ?? f.taker.account.address, { ...FEE, ...changed.fee }, changed.nonce ?? nonce);
        let refused = false;
        await submitter.sendTransaction({ to: router, data: patchSignature(data, signatureOffset, signature) }).catch(() => (refused = true));
        expect(refused, `a changed ${changed.field} settled`).to.equal(true);
        // The same change to a permit order: and a copier cannot send the taker's own permit calldata at all.
        if (changed.order !== undefined) {
          const permit = encodeSwapExactOutputWithPermit(tampered, permitNonce);
          let permitRefused = false;
          await f.taker.sendTransaction({ to: f.routerAddress, data: patchSignature(permit.data, permit.signatureOffset, permitSignature) }).catch(() => (permitRefused = true));
          expect(permitRefused, `a permit order with a changed ${changed.field} settled`).to.equal(true);
        }
        expect(await takerBalance()).to.equal(balanceBefore);
      }),
      fuzzRuns(25),
    );
    const permit = encodeSwapExactOutputWithPermit(order, permitNonce);
    const permitData = patchSignature(permit.data, permit.signatureOffset, permitSignature);
    let copied = false;
    await f.stranger.sendTransaction({ to: f.routerAddress, data: permitData }).catch(() => (copied = true));
    expect(copied, "a copier sent the taker's permit order").to.equal(true);
    // Unchanged, both settle.
    const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, f.taker.account.address, FEE, nonce);
    const relayed = await f.publicClient.waitForTransactionReceipt({ hash: await f.stranger.sendTransaction({ to: router, data: patchSignature(data, signatureOffset, signature) }) });
    expect(parseEventLogs({ abi: gaslessExactOutputRouterAbi, logs: relayed.logs, eventName: "SwapSettled" })).to.have.length(1);
    const own = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: permitData }) });
    expect(own.status).to.equal("success");
  });

  it("a gasless exact-output order whose maxSellAmount + relayerFee exceeds 2^256 reverts before any token moves", async () => {
    const f = await loadFixture(settlementFixture);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [f.contracts.permit2, maxUint256] }) });
    const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], 1000n);
    await fc.assert(
      fc.asyncProperty(fc.bigInt({ min: route.amountIn, max: maxUint256 }), fc.bigInt({ min: 1n, max: maxUint256 }), async (maxSellAmount, extra) => {
        const relayerFee = maxUint256 - maxSellAmount + 1n + (extra % maxSellAmount);
        fc.pre(relayerFee <= maxUint256);
        const order = exactOutputOrderFor(route, 1000n, maxSellAmount, f.recipient.account.address, await now(f), QUOTE_ID);
        const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, f.taker.account.address, { relayerFee, relayerFeeRecipient: FEE.relayerFeeRecipient }, 1n);
        const signed = concatHex([sliceHex(data, 0, signatureOffset), padHex("0x1b", { size: 65, dir: "left" }), sliceHex(data, signatureOffset + 65)]);
        let reverted: unknown;
        await f.publicClient.call({ account: f.relayer.account.address, to: f.contracts.gaslessSwapRouter, data: signed }).catch((error: unknown) => (reverted = error));
        expect(reverted, "an overflowing permit amount must revert").to.not.equal(undefined);
        expect((reverted as Error).message).to.match(/overflow|0x11|Panic/i);
      }),
      fuzzRuns(15),
    );
  });

  it("an exact-output route holding a SWAP_PROPAMM hop anywhere (alone, after or before V2 and V3 hops, in any SPLIT leg) is refused with SwapExactOutputRoute and moves nothing: propAMMs are exact input only", async () => {
    const f = await loadFixture(settlementFixture);
    const market = mixedVenueMarket(f);
    await fundTakerForMixedRoutes(f, market);
    const withPropAmm = mixedRoutePlan().filter((plan) => mixedRoute(market, plan, f.feeRecipient.account.address).venues.has("propAmm"));
    await fc.assert(
      fc.asyncProperty(withPropAmm, fc.constantFrom<Settlement>("permit", "allowance", "gasless"), async (plan, settlement) => {
        const route = mixedRoute(market, plan, f.feeRecipient.account.address);
        const order: ExactOutputOrder = {
          sellToken: route.sellToken, maxSellAmount: route.sellAmount, buyToken: route.buyToken, buyAmount: 1_000n, recipient: f.recipient.account.address,
          deadline: (await now(f)) + 600n, quoteId: QUOTE_ID, actions: route.encoded,
        };
        const balances = () => Promise.all([balanceOf(f, route.sellToken, f.taker.account.address), balanceOf(f, route.buyToken, f.recipient.account.address)]);
        const before = await balances();
        const { from, to, data, value } = await submission(f, settlement, order);
        let reverted: unknown;
        await from.sendTransaction({ to, data, value }).catch((error: unknown) => (reverted = error));
        expect(reverted, `an exact-output route through a propAMM settled: ${JSON.stringify(plan)}`).to.not.equal(undefined);
        expect((await revertOf(reverted)).errorName).to.equal("SwapExactOutputRoute");
        expect(await balances(), "nothing moved").to.deep.equal(before);
      }),
      fuzzRuns(10),
    );
  });

  it("an exact-output route through V4 pools (alone, a run of them, beside V2 and V3 hops, in any SPLIT leg, through the native-ETH pool) settles at least buyAmount, within the maximum, leaving nothing in the routers, when its V4 hops lead their path; one with a V4 hop after another venue's is refused with SwapExactOutputRoute and moves nothing", async () => {
    const f = await loadFixture(settlementFixture);
    const market = mixedVenueMarket(f);
    await fundTakerForMixedRoutes(f, market);
    const usdc = f.token("USDC");
    const nativePool = f.uniswapV4.pools.find((pool) => pool.currency0 === zeroAddress && pool.currency1 === usdc)!;
    const nativeHop = swapV4Hop(nativePool, usdc);
    type Drawn = { sellToken: Address; maxSellAmount: bigint; buyToken: Address; actions: Hex; settlement: Settlement; plan: string };
    const throughV4 = mixedRoutePlan()
      .map((plan) => ({ plan, route: mixedRoute(market, plan, f.feeRecipient.account.address, { disjointLegs: true }) }))
      .filter(({ route }) => route.venues.has("v4") && !route.venues.has("propAmm"));
    const drawn: fc.Arbitrary<Drawn> = fc.oneof(
      fc.tuple(throughV4, fc.constantFrom<Settlement>("permit", "allowance", "gasless")).map(([{ plan, route }, settlement]) => ({
        sellToken: route.sellToken, maxSellAmount: route.sellAmount, buyToken: route.buyToken, actions: route.encoded, settlement, plan: JSON.stringify(plan),
      })),
      // Native ETH sold straight into the ETH/USDC pool, alone or before a V2 hop.
      fc.tuple(fc.bigInt({ min: parseEther("0.001"), max: parseEther("20") }), fc.boolean()).map(([maxSellAmount, thenV2]) => ({
        sellToken: NATIVE_TOKEN, maxSellAmount, buyToken: thenV2 ? f.contracts.weth : usdc, settlement: "native" as const, plan: `native ETH → USDC${thenV2 ? " → WETH" : ""}`,
        actions: encodeRouteActions(thenV2 ? [nativeHop, { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: f.contracts.weth, feeBps: 30 }] : [nativeHop]),
      })),
    );
    /** Whether every path (the route's, or each SPLIT leg's) runs its V4 hops before any other venue's: what the routers run backwards. */
    const v4Leads = (actions: Hex) => {
      const decoded = decodeRouteActions(actions);
      const paths = [decoded.filter((action) => action.type.startsWith("swap")), ...decoded.flatMap((action) => (action.type === "split" ? action.legs.map((leg) => leg.hops) : []))];
      return paths.every((hops: readonly { type: string }[]) => !hops.some((hop, index) => hop.type === "swapV4" && hops.slice(0, index).some((before) => before.type !== "swapV4")));
    };
    const holders = [f.routerAddress, f.contracts.gaslessSwapRouter];
    const outcomes = { settled: 0, refused: 0 };
    const buyAmount = 1_000n;
    await fc.assert(
      fc.asyncProperty(drawn, async ({ sellToken, maxSellAmount, buyToken, actions, settlement, plan }) => {
        const order: ExactOutputOrder = { sellToken, maxSellAmount, buyToken, buyAmount, recipient: f.recipient.account.address, deadline: (await now(f)) + 600n, quoteId: QUOTE_ID, actions };
        const held = () => Promise.all(holders.flatMap((holder) => [sellToken, buyToken, NATIVE_TOKEN, f.contracts.weth].map((token) => balanceOf(f, token, holder))));
        const [takerBefore, recipientBefore, heldBefore, block] = await Promise.all([
          balanceOf(f, sellToken, f.taker.account.address),
          balanceOf(f, buyToken, f.recipient.account.address),
          held(),
          f.publicClient.getBlockNumber(),
        ]);
        const { from, to, data, value } = await submission(f, settlement, order);
        let reverted: unknown;
        await from.sendTransaction({ to, data, value }).catch((error: unknown) => (reverted = error));
        let spent = takerBefore - (await balanceOf(f, sellToken, f.taker.account.address));
        // A taker selling ETH pays the transaction's gas too.
        if (sellToken === NATIVE_TOKEN) spent -= await gasSpentSince(f, f.taker.account.address, block);
        // A gasless taker pays the relayer's fee in the sell token beside the trade.
        if (settlement === "gasless" && reverted === undefined) spent -= FEE.relayerFee;
        const received = (await balanceOf(f, buyToken, f.recipient.account.address)) - recipientBefore;
        expect(await held(), `nothing left in the routers: ${plan}`).to.deep.equal(heldBefore);
        if (!v4Leads(actions)) {
          expect(reverted, `a V4 hop after another venue's settled: ${plan}`).to.not.equal(undefined);
          expect((await revertOf(reverted)).errorName).to.equal("SwapExactOutputRoute");
          expect([spent, received], "nothing moved").to.deep.equal([0n, 0n]);
          outcomes.refused++;
          return;
        }
        expect(reverted, `${plan}: ${reverted === undefined ? "" : (await revertOf(reverted)).errorName}`).to.equal(undefined);
        expect(received >= buyAmount, `${plan}: ${received} out`).to.equal(true);
        expect(spent > 0n && spent <= maxSellAmount, `${plan}: ${spent} in of at most ${maxSellAmount}`).to.equal(true);
        outcomes.settled++;
      }),
      fuzzRuns(16),
    );
    console.log(`      ${outcomes.settled} settled, ${outcomes.refused} refused`);
    expect(outcomes.settled).to.be.greaterThan(0);
  });
});
