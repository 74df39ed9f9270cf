import { expect } from "chai";
import fc from "fast-check";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, encodeFunctionData, erc20Abi, getAddress, hashStruct, maxUint256, parseEther, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  encodeRouteActions,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapExactOutputWithPermit,
  encodeSwapGaslessExactOutput,
  exactOutputPermitTypes,
  gaslessExactOutputRouterAbi,
  getAmountIn,
  NATIVE_TOKEN,
  patchSignature,
  takerExactOutputRouterAbi,
  type ExactOutputOrder,
  type RouteAction,
} from "../../sdk";
import { settlementFixture, type SettlementFixture } from "../fixtures/settlementFixture";
import { exactOutputOrderFor, exactOutputTestRoute } from "../fixtures/exactOutputRoute";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";
import { fuzzRuns } from "../helpers/fuzzRuns";

const QUOTE_ID: Hex = `0x${"e0".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 11n << 64n;
let nonceCounter = 0n;
const nextNonce = () => NONCE_BASE + nonceCounter++;

const USDC_TO_WETH = [
  ["USDC", "WETH"],
  ["USDC", "USDT", "WETH"],
  ["USDC", "DAI", "WETH"],
] as const;

async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** The devnet with the taker's USDC approved to Permit2 and to the allowance holder. */
async function exactOutputReady() {
  const f = await settlementFixture();
  for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
    await f.publicClient.waitForTransactionReceipt({
      hash: await f.taker.writeContract({ address: f.token("USDC"), abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }),
    });
  }
  const client = { client: { public: f.publicClient, wallet: f.deployer } };
  const harness = await hre.viem.deployContract("SettlementHarness", [], client);
  // Feature 3's gasless exact-output swaps run on the router the devnet deploys and activates.
  return { ...f, harness, gaslessExactOutputRouter: getAddress(f.contracts.gaslessSwapRouter) };
}
type Ready = Awaited<ReturnType<typeof exactOutputReady>>;

async function permitCalldata(f: Ready, order: ExactOutputOrder, nonce: bigint, signedOrder: ExactOutputOrder = order): Promise<Hex> {
  const typedData = buildExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: signedOrder, nonce });
  const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
  const { data, signatureOffset } = encodeSwapExactOutputWithPermit(order, nonce);
  return patchSignature(data, signatureOffset, signature);
}

async function send(f: Ready, to: Address, data: Hex, value = 0n) {
  return f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to, data, value }) });
}

function settledOf(logs: Parameters<typeof parseEventLogs>[0]["logs"]) {
  const [settled] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs, eventName: "SwapSettled" });
  return settled!.args;
}

/** Sends `data` from the taker and measures what the taker spent of `sellToken` and what the recipient got of `buyToken`. */
async function measured(f: Ready, order: ExactOutputOrder, send: () => Promise<{ gasUsed: bigint; effectiveGasPrice: bigint; logs: Parameters<typeof parseEventLogs>[0]["logs"] }>) {
  const taker = f.taker.account.address;
  const recipient = order.recipient;
  const [sellBefore, buyBefore] = [await balanceOf(f, order.sellToken, taker), await balanceOf(f, order.buyToken, recipient)];
  const receipt = await send();
  const gasCost = order.sellToken === NATIVE_TOKEN ? receipt.gasUsed * receipt.effectiveGasPrice : 0n;
  return {
    spent: sellBefore - (await balanceOf(f, order.sellToken, taker)) - gasCost,
    received: (await balanceOf(f, order.buyToken, recipient)) - buyBefore,
    receipt,
  };
}

describe("Exact-output swaps (TakerSwapRouterV2, and GaslessBatchSwapRouter's GaslessExactOutput)", () => {
  describe("properties: never less than buy_amount out, never more than max_sell_amount in, only the needed input taken", () => {
    it("permit: for any output and slack, the recipient gets at least buyAmount and the taker pays exactly the input priced from reserves", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 1n, max: parseEther("50") }),
          fc.integer({ min: 0, max: 500 }),
          fc.constantFrom<readonly string[]>(["USDC", "WETH"], ["USDC", "USDT", "WETH"], ["USDC", "DAI", "WETH", "LINK"]),
          async (buyAmount, slackBps, path) => {
            const f = await loadFixture(exactOutputReady);
            const route = await exactOutputTestRoute(f, [path], buyAmount);
            const max = route.amountIn + (route.amountIn * BigInt(slackBps)) / 10_000n;
            const order = exactOutputOrderFor(route, buyAmount, max, f.recipient.account.address, await now(f), QUOTE_ID);
            const data = await permitCalldata(f, order, nextNonce());
            const { spent, received, receipt } = await measured(f, order, () => send(f, f.routerAddress, data));
            expect(received >= buyAmount, "at least").to.equal(true);
            expect(spent).to.equal(route.amountIn);
            expect(spent <= max, "at most").to.equal(true);
            expect(settledOf(receipt.logs)).to.include({ sellAmount: spent, buyAmount: received });
          },
        ),
        fuzzRuns(6),
      );
    });

    it("allowance: the holder moves only the input the route needs, and the platform fee comes out of the gross, not the signed output", async () => {
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: parseEther("20") }), fc.integer({ min: 1, max: 300 }), async (buyAmount, feeBps) => {
          const f = await loadFixture(exactOutputReady);
          const fee = { bps: feeBps, recipient: f.feeRecipient.account.address };
          const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], buyAmount, { fee });
          const order = exactOutputOrderFor(route, buyAmount, route.amountIn * 2n, f.recipient.account.address, await now(f), QUOTE_ID);
          const feeBefore = await balanceOf(f, order.buyToken, fee.recipient);
          const { spent, received } = await measured(f, order, () => send(f, f.contracts.allowanceHolder, encodeSwapExactOutputWithAllowance(order, f.routerAddress)));
          expect(received >= buyAmount, "at least").to.equal(true);
          expect(spent).to.equal(route.amountIn);
          expect((await balanceOf(f, order.buyToken, fee.recipient)) - feeBefore > 0n, "fee paid").to.equal(true);
          // Nothing is left with the holder or the router.
          expect(await balanceOf(f, order.sellToken, f.contracts.allowanceHolder)).to.equal(0n);
          expect(await balanceOf(f, order.sellToken, f.routerAddress)).to.equal(0n);
        }),
        fuzzRuns(5),
      );
    });

    it("native: the unspent ETH is refunded to the taker in the same transaction, to the wei", async () => {
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: parseUnits("50000", 6) }), fc.integer({ min: 0, max: 2_000 }), async (buyAmount, slackBps) => {
          const f = await loadFixture(exactOutputReady);
          const route = await exactOutputTestRoute(f, [["ETH", "USDC"]], buyAmount);
          const max = route.amountIn + (route.amountIn * BigInt(slackBps)) / 10_000n;
          const order = exactOutputOrderFor(route, buyAmount, max, f.recipient.account.address, await now(f), QUOTE_ID);
          const { spent, received, receipt } = await measured(f, order, () => send(f, f.routerAddress, encodeSwapExactOutputNative(order), max));
          expect(received >= buyAmount, "at least").to.equal(true);
          expect(spent).to.equal(route.amountIn);
          const refunds = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapInputRefunded" });
          if (max === route.amountIn) expect(refunds).to.have.length(0);
          else expect(refunds[0]!.args).to.include({ taker: f.taker.account.address, token: NATIVE_TOKEN, amount: max - route.amountIn });
          expect(await f.publicClient.getBalance({ address: f.routerAddress })).to.equal(0n);
        }),
        fuzzRuns(5),
      );
    });

    it("split: each leg produces its share of the output with the input it needs, priced backwards per leg", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.bigInt({ min: 1n, max: parseEther("200") }),
          fc.constantFrom([6000, 2000, 2000], [3334, 3333, 3333], [9998, 1, 1]),
          async (buyAmount, shares) => {
            const f = await loadFixture(exactOutputReady);
            const route = await exactOutputTestRoute(f, USDC_TO_WETH, buyAmount, { sharesBps: shares });
            const order = exactOutputOrderFor(route, buyAmount, route.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
            const data = await permitCalldata(f, order, nextNonce());
            const { spent, received } = await measured(f, order, () => send(f, f.routerAddress, data));
            expect(received >= buyAmount, "at least").to.equal(true);
            expect(spent).to.equal(route.amountIn);
          },
        ),
        fuzzRuns(5),
      );
    });

    it("a native split buying native after a fee: wraps only the needed ETH, refunds the rest, and pays out ETH", async () => {
      const f = await loadFixture(exactOutputReady);
      const buyAmount = parseUnits("25000", 6);
      const route = await exactOutputTestRoute(f, [["ETH", "USDC"], ["ETH", "USDT", "USDC"]], buyAmount, { sharesBps: [7000, 3000], fee: { bps: 25, recipient: f.feeRecipient.account.address } });
      const order = exactOutputOrderFor(route, buyAmount, route.amountIn + parseEther("1"), f.recipient.account.address, await now(f), QUOTE_ID);
      const { spent, received } = await measured(f, order, () => send(f, f.routerAddress, encodeSwapExactOutputNative(order), order.maxSellAmount));
      expect(spent).to.equal(route.amountIn);
      expect(received >= buyAmount, "at least").to.equal(true);

      const out = parseEther("2");
      const toEth = await exactOutputTestRoute(f, [["USDC", "ETH"]], out, { fee: { bps: 50, recipient: f.feeRecipient.account.address } });
      const sell = exactOutputOrderFor(toEth, out, toEth.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
      const bought = await measured(f, sell, async () => send(f, f.routerAddress, await permitCalldata(f, sell, nextNonce())));
      expect(bought.received >= out, "at least").to.equal(true);
      expect(bought.spent).to.equal(toEth.amountIn);
    });

    it("gasless: the relayer's fee is on top of the input, the taker's debit is input plus fee, and the relayer cannot change the output or the maximum", async () => {
      const f = await loadFixture(exactOutputReady);
      const buyAmount = parseEther("3");
      const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], buyAmount);
      const order = exactOutputOrderFor(route, buyAmount, route.amountIn + 1_000_000n, f.recipient.account.address, await now(f), QUOTE_ID);
      const fee = { relayerFee: 2_500_000n, relayerFeeRecipient: f.feeRecipient.account.address };
      const nonce = nextNonce();
      const router = f.gaslessExactOutputRouter;
      const signature = await f.signerOf(f.taker.account.address).signTypedData(
        buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order, nonce, ...fee }),
      );
      const calldata = (signed: ExactOutputOrder) => {
        const { data, signatureOffset } = encodeSwapGaslessExactOutput(signed, f.taker.account.address, fee, nonce);
        return patchSignature(data, signatureOffset, signature);
      };
      const relay = (data: Hex) => f.relayer.sendTransaction({ to: router, data });
      await expectRevert(relay(calldata({ ...order, buyAmount: buyAmount / 2n })), "InvalidSigner");
      await expectRevert(relay(calldata({ ...order, maxSellAmount: order.maxSellAmount * 2n })), "InvalidSigner");
      const feeBefore = await balanceOf(f, order.sellToken, fee.relayerFeeRecipient);
      const { spent, received, receipt } = await measured(f, order, async () => f.publicClient.waitForTransactionReceipt({ hash: await relay(calldata(order)) }));
      expect(received >= buyAmount, "at least").to.equal(true);
      expect(spent).to.equal(route.amountIn + fee.relayerFee);
      expect((await balanceOf(f, order.sellToken, fee.relayerFeeRecipient)) - feeBefore).to.equal(fee.relayerFee);
      const [paid] = parseEventLogs({ abi: gaslessExactOutputRouterAbi, logs: receipt.logs, eventName: "RelayerFeePaid" });
      expect(paid!.args).to.include({ submitter: f.relayer.account.address, amount: fee.relayerFee });
    });

    it("a leg whose share of a tiny output rounds to nothing is given nothing, and the others still deliver", async () => {
      const f = await loadFixture(exactOutputReady);
      const route = await exactOutputTestRoute(f, USDC_TO_WETH, 3n, { sharesBps: [2000, 2000, 6000] });
      const order = exactOutputOrderFor(route, 3n, route.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
      const { spent, received } = await measured(f, order, async () => send(f, f.routerAddress, await permitCalldata(f, order, nextNonce())));
      expect(received >= 3n, "at least").to.equal(true);
      expect(spent).to.equal(route.amountIn);
    });
  });

  describe("differential: the SDK's arithmetic and typed data equal the contracts'", () => {
    it("getAmountIn equals V2SwapMath.getAmountIn, and is the least input whose getAmountOut pays the output, or one above it when the division is exact", async () => {
      const f = await loadFixture(exactOutputReady);
      await fc.assert(
        fc.asyncProperty(fc.bigInt({ min: 1n, max: (1n << 100n) - 1n }), fc.bigInt({ min: 2n, max: (1n << 100n) - 1n }), fc.bigInt({ min: 0n, max: (1n << 99n) }), async (reserveIn, reserveOut, out) => {
          const amountOut = out % reserveOut;
          const expected = getAmountIn(amountOut, reserveIn, reserveOut, 30)!;
          expect(await f.harness.read.getAmountIn([amountOut, reserveIn, reserveOut, 30n])).to.equal(expected);
          const paid = await f.harness.read.getAmountOut([expected, reserveIn, reserveOut, 30n]);
          expect(paid >= amountOut, "at least").to.equal(true);
          // Uniswap's formula is floor(n / d) + 1: the least input when d does not divide n, one above it when it does.
          const exact = (amountOut * reserveIn * 10_000n) % ((reserveOut - amountOut) * 9_970n) === 0n;
          const least = exact ? expected - 1n : expected;
          if (least > 0n) expect((await f.harness.read.getAmountOut([least - 1n, reserveIn, reserveOut, 30n])) < amountOut, "least").to.equal(true);
        }),
        fuzzRuns(40),
      );
      await expectRevert(f.harness.read.getAmountIn([5n, 10n, 5n, 30n]), "V2SwapMathInsufficientLiquidity", [5n, 5n]);
      await expectRevert(f.harness.read.getAmountIn([5n, 0n, 50n, 30n]), "V2SwapMathInsufficientLiquidity", [5n, 50n]);
      await expectRevert(f.harness.read.getAmountIn([5n, 1n << 112n, 50n, 30n]), "V2SwapMathOutOfRange");
    });

    it("the ExactOutputWitness struct hash of the SDK's typed data equals the router's", async () => {
      const f = await loadFixture(exactOutputReady);
      const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], 10n ** 18n);
      const order = exactOutputOrderFor(route, 10n ** 18n, 123_456_789n, f.recipient.account.address, 1_700_000_000n, QUOTE_ID);
      const typed = buildExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order, nonce: 1n });
      expect(await f.harness.read.hashExactOutputWitness([order])).to.equal(hashStruct({ types: exactOutputPermitTypes, primaryType: "ExactOutputWitness", data: typed.message.witness }));
      expect(typed.message.permitted.amount).to.equal(order.maxSellAmount);
    });
  });

  describe("refusals", () => {
    async function permitOrder(f: Ready, actions: RouteAction[] | Hex, overrides: Partial<ExactOutputOrder> = {}): Promise<ExactOutputOrder> {
      const encoded = typeof actions === "string" ? actions : encodeRouteActions(actions);
      return { sellToken: f.token("USDC"), maxSellAmount: parseUnits("100000", 6), buyToken: f.token("WETH"), buyAmount: parseEther("1"), recipient: f.recipient.account.address, deadline: (await now(f)) + 3600n, quoteId: QUOTE_ID, actions: encoded, ...overrides };
    }
    const simulatePermit = async (f: Ready, order: ExactOutputOrder) => f.publicClient.call({ account: f.taker.account.address, to: f.routerAddress, data: await permitCalldata(f, order, nextNonce()) });

    it("a maximum below the input the route needs is refused before anything moves (SwapExcessiveInput)", async () => {
      const f = await loadFixture(exactOutputReady);
      const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], parseEther("1"));
      const order = exactOutputOrderFor(route, parseEther("1"), route.amountIn - 1n, f.recipient.account.address, await now(f), QUOTE_ID);
      await expectRevert(simulatePermit(f, order), "SwapExcessiveInput", [route.amountIn, route.amountIn - 1n]);
      await expectRevert(send(f, f.contracts.allowanceHolder, encodeSwapExactOutputWithAllowance(order, f.routerAddress)), "SwapExcessiveInput");
    });

    it("routes that cannot be priced backwards are refused: two splits, a split beside a swap, anything but a WRAP before a split", async () => {
      const f = await loadFixture(exactOutputReady);
      const split = (await exactOutputTestRoute(f, USDC_TO_WETH.slice(0, 2), 10n ** 18n, { sharesBps: [5000, 5000] })).actions[0]!;
      const swap = (await exactOutputTestRoute(f, [["WETH", "LINK"]], 10n ** 18n)).actions[0]!;
      const fee: RouteAction = { type: "fee", bps: 10, recipient: f.feeRecipient.account.address };
      await expectRevert(simulatePermit(f, await permitOrder(f, [split, split])), "SwapExactOutputRoute");
      await expectRevert(simulatePermit(f, await permitOrder(f, [split, swap], { buyToken: f.token("LINK") })), "SwapExactOutputRoute");
      await expectRevert(simulatePermit(f, await permitOrder(f, [fee, split])), "SwapExactOutputRoute", [23n]);
      await expectRevert(simulatePermit(f, await permitOrder(f, [{ type: "unwrap" }, split])), "SwapExactOutputRoute", [0n]);
      // A WRAP before a split, in an order selling an ERC20: priced, then refused when the running token is not ETH.
      const ethSplit = await exactOutputTestRoute(f, [["ETH", "USDC"], ["ETH", "USDT", "USDC"]], 1000n, { sharesBps: [5000, 5000] });
      await expectRevert(simulatePermit(f, await permitOrder(f, ethSplit.actions, { buyToken: f.token("USDC"), buyAmount: 1000n, maxSellAmount: maxUint256 })), "SwapUnexpectedToken", [NATIVE_TOKEN, f.token("USDC")]);
    });

    it("malformed routes are refused as exact-input ones are", async () => {
      const f = await loadFixture(exactOutputReady);
      const swap = (await exactOutputTestRoute(f, [["USDC", "WETH"]], 10n ** 18n)).actions;
      const encodedSwap = encodeRouteActions(swap);
      const fees = encodeRouteActions(Array.from({ length: 8 }, () => ({ type: "fee", bps: 1, recipient: f.feeRecipient.account.address }) as const));
      await expectRevert(simulatePermit(f, await permitOrder(f, [...swap, { type: "fee", bps: 10_000, recipient: f.feeRecipient.account.address }])), "SwapFeeTooHigh", [10_000n]);
      await expectRevert(simulatePermit(f, await permitOrder(f, concatHex([encodedSwap, "0x09"]))), "SwapUnknownAction", [9, 43n]);
      await expectRevert(simulatePermit(f, await permitOrder(f, encodedSwap.slice(0, -2) as Hex)), "SwapTruncatedAction", [0n]);
      await expectRevert(simulatePermit(f, await permitOrder(f, concatHex([encodedSwap, fees]))), "SwapTooManyActions", [8n]);
      await expectRevert(simulatePermit(f, await permitOrder(f, swap, { buyAmount: parseEther("1000000") })), "V2SwapMathInsufficientLiquidity");
      // Legs that end in different tokens (packed by hand: the SDK refuses to), and a route that does not end in the buy token.
      const leg = (pair: Address, tokenOut: Address) => concatHex(["0x138801", "0x01", pair, tokenOut, "0x001e"]);
      const mixed = concatHex(["0x0502", leg(f.pool("USDC", "WETH"), f.token("WETH")), leg(f.pool("USDC", "USDT"), f.token("USDT"))]);
      // A split runs backwards from the whole maximum taken into the router: a maximum the taker holds.
      await expectRevert(simulatePermit(f, await permitOrder(f, mixed, { buyAmount: 10n ** 9n, maxSellAmount: parseUnits("1000", 6) })), "SwapUnexpectedToken", [f.token("WETH"), f.token("USDT")]);
      await expectRevert(simulatePermit(f, await permitOrder(f, swap, { buyToken: f.token("DAI"), maxSellAmount: maxUint256 })), "SwapUnexpectedToken");
    });

    it("each entry point checks its own settlement: holder only, value equal to the maximum, ERC20 by permit, ETH by value, 65-byte signatures", async () => {
      const f = await loadFixture(exactOutputReady);
      const route = await exactOutputTestRoute(f, [["ETH", "USDC"]], parseUnits("100", 6));
      const order = exactOutputOrderFor(route, parseUnits("100", 6), route.amountIn * 2n, f.recipient.account.address, await now(f), QUOTE_ID);
      const router = { address: f.routerAddress, abi: takerExactOutputRouterAbi } as const;
      await expectRevert(f.taker.writeContract({ ...router, functionName: "swapExactOutputWithAllowance", args: [order] }), "SwapOnlyAllowanceHolder", [f.taker.account.address]);
      await expectRevert(f.taker.writeContract({ ...router, functionName: "swapExactOutputNative", args: [order], value: order.maxSellAmount - 1n }), "SwapNativeValueMismatch", [order.maxSellAmount, order.maxSellAmount - 1n]);
      await expectRevert(f.taker.writeContract({ ...router, functionName: "swapExactOutputNative", args: [{ ...order, sellToken: f.token("USDC") }], value: order.maxSellAmount }), "SwapUnexpectedToken");
      await expectRevert(f.taker.writeContract({ ...router, functionName: "swapExactOutputWithPermit", args: [order, 1n, `0x${"11".repeat(65)}`] }), "SwapNativeSellNeedsValue");
      const erc20Order = await permitOrder(f, (await exactOutputTestRoute(f, [["USDC", "WETH"]], 1n)).actions);
      await expectRevert(f.taker.writeContract({ ...router, functionName: "swapExactOutputWithPermit", args: [erc20Order, 1n, `0x${"11".repeat(64)}`] }), "SwapInvalidSignatureLength", [64n]);
      const gasless = { address: f.gaslessExactOutputRouter, abi: gaslessExactOutputRouterAbi } as const;
      const taker = f.taker.account.address;
      await expectRevert(f.relayer.writeContract({ ...gasless, functionName: "swapGaslessExactOutput", args: [order, taker, 0n, taker, 1n, `0x${"11".repeat(65)}`] }), "SwapNativeSellNotGasless");
      await expectRevert(f.relayer.writeContract({ ...gasless, functionName: "swapGaslessExactOutput", args: [erc20Order, taker, 1n, "0x0000000000000000000000000000000000000000", 1n, `0x${"11".repeat(65)}`] }), "SwapZeroAddress");
    });

    it("the allowance holder's transient allowance: only inside the exec, only to its operator, only the taker's sell token, only up to the order's maximum, never re-entered", async () => {
      const f = await loadFixture(exactOutputReady);
      const usdc = f.token("USDC");
      const taker = f.taker.account.address;
      await expectRevert(f.stranger.writeContract({ address: f.contracts.allowanceHolder, abi: f.holder.abi, functionName: "transferFrom", args: [usdc, taker, f.stranger.account.address, 1n] }), "AllowanceHolderNoAllowance");
      const order = await permitOrder(f, (await exactOutputTestRoute(f, [["USDC", "WETH"]], 1n)).actions, { maxSellAmount: 1_000n });
      // Modes: draw past the maximum, re-enter exec, draw from another owner, draw another token.
      for (const [mode, error] of [[0, "AllowanceHolderAllowanceExceeded"], [1, "AllowanceHolderReentrantExec"], [2, "AllowanceHolderNoAllowance"], [3, "AllowanceHolderNoAllowance"]] as const) {
        const greedy = await hre.viem.deployContract("GreedyOperator", [f.contracts.allowanceHolder, mode], { client: { public: f.publicClient, wallet: f.deployer } });
        await expectRevert(send(f, f.contracts.allowanceHolder, encodeSwapExactOutputWithAllowance(order, greedy.address)), error);
      }
      // After an exec the allowance is gone: the operator cannot draw in a later transaction.
      const route = await exactOutputTestRoute(f, [["USDC", "WETH"]], 10n ** 15n);
      const ok = exactOutputOrderFor(route, 10n ** 15n, route.amountIn, f.recipient.account.address, await now(f), QUOTE_ID);
      await send(f, f.contracts.allowanceHolder, encodeSwapExactOutputWithAllowance(ok, f.routerAddress));
      await expectRevert(f.stranger.writeContract({ address: f.contracts.allowanceHolder, abi: f.holder.abi, functionName: "transferFrom", args: [usdc, taker, f.stranger.account.address, 1n] }), "AllowanceHolderNoAllowance");
      expect(encodeFunctionData({ abi: takerExactOutputRouterAbi, functionName: "swapExactOutputWithAllowance", args: [ok] }).slice(0, 10)).to.not.equal("0x");
    });
  });
});
