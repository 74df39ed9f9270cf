import { expect } from "chai";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodePacked, parseEther, parseEventLogs, parseUnits, type Address, type Hex } from "viem";
import {
  buildExactOutputPermitTypedData,
  buildGaslessExactOutputPermitTypedData,
  encodeRouteActions,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapExactOutputWithPermit,
  encodeSwapGaslessExactOutput,
  encodeSwapNative,
  getAmountIn,
  NATIVE_TOKEN,
  patchSignature,
  takerExactOutputRouterAbi,
  uniswapV2PairAbi,
  type ExactOutputOrder,
  type RouteAction,
} from "../../sdk";
import { uniswapV3Artifacts } from "../../scripts/deploy/uniswapV3";
import { balanceOf } from "../fixtures/testRoute";
import { v3Market, type V3Market } from "../fixtures/v3Market";
import { expectRevert } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"7d".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 13n << 64n;

type Venue = V3Market["uniswap"];

async function now(f: V3Market): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** QuoterV2's exact-output quote along `path` (tokens from the input to the output, one fee between each two): the input the router must take. */
async function quoteExactOutput(venue: Venue, f: V3Market, tokens: readonly Address[], fees: readonly number[], amountOut: bigint): Promise<bigint> {
  // QuoterV2 reads an exact-output path from the output back to the input.
  const types: ("address" | "uint24")[] = [];
  const values: (Address | number)[] = [];
  for (let index = tokens.length - 1; index >= 0; index--) {
    types.push("address");
    values.push(tokens[index]!);
    if (index > 0) {
      types.push("uint24");
      values.push(fees[index - 1]!);
    }
  }
  const { result } = await f.publicClient.simulateContract({
    address: venue.quoterV2,
    abi: uniswapV3Artifacts.quoterV2().abi,
    functionName: "quoteExactOutput",
    args: [encodePacked(types, values), amountOut],
  });
  return (result as readonly [bigint, ...unknown[]])[0];
}

/** The V2 pair's exact-output input for `amountOut`, from its reserves now. */
async function v2AmountIn(f: V3Market, tokenIn: Address, tokenOut: Address, amountOut: bigint): Promise<bigint> {
  const [reserve0, reserve1] = await f.publicClient.readContract({ address: v2Pair(f, tokenIn, tokenOut), abi: uniswapV2PairAbi, functionName: "getReserves" });
  const zeroForOne = tokenIn.toLowerCase() < tokenOut.toLowerCase();
  const amountIn = getAmountIn(amountOut, zeroForOne ? reserve0 : reserve1, zeroForOne ? reserve1 : reserve0, 30);
  if (amountIn === undefined) throw new Error("the V2 pair cannot pay that output");
  return amountIn;
}

function v2Pair(f: V3Market, a: Address, b: Address): Address {
  const symbol = (token: Address) => (token === f.contracts.weth ? "WETH" : f.tokens.find((t) => t.address === token)!.symbol);
  return f.pool(symbol(a), symbol(b));
}

function exactOrder(f: V3Market, sellToken: Address, maxSellAmount: bigint, buyToken: Address, buyAmount: bigint, actions: RouteAction[] | Hex, deadline: bigint): ExactOutputOrder {
  return { sellToken, maxSellAmount, buyToken, buyAmount, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions: typeof actions === "string" ? actions : encodeRouteActions(actions) };
}

async function permitCalldata(f: V3Market, order: ExactOutputOrder, nonce: bigint): Promise<Hex> {
  const typedData = buildExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order, nonce: NONCE_BASE + nonce });
  const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
  const { data, signatureOffset } = encodeSwapExactOutputWithPermit(order, NONCE_BASE + nonce);
  return patchSignature(data, signatureOffset, signature);
}

/** Sends `data` from the taker; returns what the taker spent of the sell token (net of gas for ETH), what the recipient got, and the SwapSettled and SwapInputRefunded events. */
async function settle(f: V3Market, order: ExactOutputOrder, to: Address, data: Hex, value = 0n) {
  const taker = f.taker.account.address;
  const [sellBefore, buyBefore] = [await balanceOf(f, order.sellToken, taker), await balanceOf(f, order.buyToken, order.recipient)];
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to, data, value }) });
  const gasCost = order.sellToken === NATIVE_TOKEN ? receipt.gasUsed * receipt.effectiveGasPrice : 0n;
  const [settled] = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapSettled" });
  const refunds = parseEventLogs({ abi: takerExactOutputRouterAbi, logs: receipt.logs, eventName: "SwapInputRefunded" });
  return {
    spent: sellBefore - (await balanceOf(f, order.sellToken, taker)) - gasCost,
    received: (await balanceOf(f, order.buyToken, order.recipient)) - buyBefore,
    settled: settled!.args,
    refunded: refunds.map((log) => log.args.amount).reduce((sum, amount) => sum + amount, 0n),
  };
}

/** Nothing of any token the tests trade stays in either router. */
async function expectRoutersEmpty(f: V3Market) {
  for (const router of [f.contracts.takerSwapRouter, f.contracts.gaslessSwapRouter]) {
    for (const token of [f.token("USDC"), f.token("DAI"), f.contracts.weth]) expect(await balanceOf(f, token, router)).to.equal(0n);
    expect(await f.publicClient.getBalance({ address: router })).to.equal(0n);
  }
}

describe("Exact output over Uniswap V3 (SWAP_V3 hops run backwards) in TakerSwapRouterV3 and GaslessBatchSwapRouterV2", () => {
  it("permit: buys exactly 2 WETH in one V3 hop, takes exactly QuoterV2's exact-output input and refunds the rest of the maximum", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const buyAmount = parseEther("2");
    const expected = await quoteExactOutput(f.uniswap, f, [usdc, weth], [3000], buyAmount);
    const maxSellAmount = expected + parseUnits("50", 6);
    const order = exactOrder(f, usdc, maxSellAmount, weth, buyAmount, [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }], (await now(f)) + 600n);
    const result = await settle(f, order, f.routerAddress, await permitCalldata(f, order, 0n));
    expect(result.received).to.equal(buyAmount);
    expect(result.spent).to.equal(expected);
    expect(result.settled.sellAmount).to.equal(expected);
    expect(result.settled.buyAmount).to.equal(buyAmount);
    expect(result.refunded).to.equal(maxSellAmount - expected);
    await expectRoutersEmpty(f);
  });

  it("allowance holder: buys DAI through two V3 hops (USDC→WETH 0.30 %, WETH→DAI 0.05 %), each pool paid in its callback by the hop before it", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const buyAmount = parseUnits("7500", 18);
    const expected = await quoteExactOutput(f.uniswap, f, [usdc, weth, dai], [3000, 500], buyAmount);
    const actions: RouteAction[] = [
      { type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 },
      { type: "swapV3", tokenOut: dai, fee: 500, venue: 0 },
    ];
    const order = exactOrder(f, usdc, expected * 2n, dai, buyAmount, actions, (await now(f)) + 600n);
    const result = await settle(f, order, f.contracts.allowanceHolder, encodeSwapExactOutputWithAllowance(order, f.routerAddress));
    expect(result.received).to.equal(buyAmount);
    expect(result.spent).to.equal(expected);
    expect(await balanceOf(f, usdc, f.contracts.allowanceHolder)).to.equal(0n);
    await expectRoutersEmpty(f);
  });

  it("native: wraps only the ETH the V3 pool asks for in its callback, refunds the rest of the value, and buys exactly the USDC", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const buyAmount = parseUnits("3000", 6);
    const expected = await quoteExactOutput(f.uniswap, f, [weth, usdc], [3000], buyAmount);
    const order = exactOrder(f, NATIVE_TOKEN, parseEther("5"), usdc, buyAmount, [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }], (await now(f)) + 600n);
    const result = await settle(f, order, f.routerAddress, encodeSwapExactOutputNative(order), order.maxSellAmount);
    expect(result.received).to.equal(buyAmount);
    expect(result.spent).to.equal(expected);
    expect(result.refunded).to.equal(order.maxSellAmount - expected);
    await expectRoutersEmpty(f);
  });

  it("mixes venues in one run: a V2 hop paying a V3 pool's callback, and a V3 hop funding a V2 pair before its swap", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    // DAI →(V2) USDC →(V3) WETH: the V3 pool asks for USDC, which the V2 pair pays it.
    const wethOut = parseEther("1.5");
    const usdcNeeded = await quoteExactOutput(f.uniswap, f, [usdc, weth], [3000], wethOut);
    const daiNeeded = await v2AmountIn(f, dai, usdc, usdcNeeded);
    const intoV3: RouteAction[] = [
      { type: "swapV2", pair: v2Pair(f, dai, usdc), tokenOut: usdc, feeBps: 30 },
      { type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 },
    ];
    const first = exactOrder(f, dai, daiNeeded + parseEther("10"), weth, wethOut, intoV3, (await now(f)) + 600n);
    const one = await settle(f, first, f.routerAddress, await permitCalldata(f, first, 1n));
    expect(one.received).to.equal(wethOut);
    expect(one.spent).to.equal(daiNeeded);

    // USDC →(V3) WETH →(V2) DAI: the V2 pair's input is the V3 pool's exact output.
    const daiOut = parseUnits("1200", 18);
    const wethNeeded = await v2AmountIn(f, weth, dai, daiOut);
    const usdcIn = await quoteExactOutput(f.uniswap, f, [usdc, weth], [3000], wethNeeded);
    const fromV3: RouteAction[] = [
      { type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 },
      { type: "swapV2", pair: v2Pair(f, weth, dai), tokenOut: dai, feeBps: 30 },
    ];
    const second = exactOrder(f, usdc, usdcIn * 2n, dai, daiOut, fromV3, (await now(f)) + 600n);
    const two = await settle(f, second, f.routerAddress, await permitCalldata(f, second, 2n));
    expect(two.received).to.equal(daiOut);
    expect(two.spent).to.equal(usdcIn);
    await expectRoutersEmpty(f);
  });

  it("splits the output across a V3 leg and a V2 leg, takes a platform fee after the split, and unwraps to ETH", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const buyAmount = parseEther("3");
    const feeBps = 25;
    // The forward FEE keeps floor(gross * (10000 - bps) / 10000); the router grosses the output up so that at least buyAmount is left.
    const gross = (buyAmount * 10_000n + BigInt(10_000 - feeBps - 1)) / BigInt(10_000 - feeBps);
    const v3Out = (gross * 6000n) / 10_000n;
    const v3In = await quoteExactOutput(f.uniswap, f, [usdc, weth], [3000], v3Out);
    const v2In = await v2AmountIn(f, usdc, weth, gross - v3Out);
    const actions: RouteAction[] = [
      {
        type: "split",
        legs: [
          { shareBps: 6000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] },
          { shareBps: 4000, hops: [{ type: "swapV2", pair: v2Pair(f, usdc, weth), tokenOut: weth, feeBps: 30 }] },
        ],
      },
      { type: "unwrap" },
      { type: "fee", bps: feeBps, recipient: f.feeRecipient.account.address },
    ];
    const order = exactOrder(f, usdc, v3In + v2In + parseUnits("100", 6), NATIVE_TOKEN, buyAmount, actions, (await now(f)) + 600n);
    const feeBefore = await balanceOf(f, NATIVE_TOKEN, f.feeRecipient.account.address);
    const result = await settle(f, order, f.routerAddress, await permitCalldata(f, order, 3n));
    expect(result.spent).to.equal(v3In + v2In);
    expect(result.received >= buyAmount, "at least the signed output").to.equal(true);
    expect(result.received).to.equal(gross - (gross * BigInt(feeBps)) / 10_000n);
    expect((await balanceOf(f, NATIVE_TOKEN, f.feeRecipient.account.address)) - feeBefore).to.equal((gross * BigInt(feeBps)) / 10_000n);
    await expectRoutersEmpty(f);
  });

  it("gasless: the relayer's fee on top, the V3 pool paid from the router, the unused maximum back to the taker", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const buyAmount = parseEther("0.75");
    const expected = await quoteExactOutput(f.uniswap, f, [usdc, weth], [3000], buyAmount);
    const order = exactOrder(f, usdc, expected + parseUnits("20", 6), weth, buyAmount, [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }], (await now(f)) + 600n);
    const fee = { relayerFee: parseUnits("2", 6), relayerFeeRecipient: f.relayer.account.address };
    const nonce = NONCE_BASE + 4n;
    const router = f.contracts.gaslessSwapRouter;
    const signature = await f.signerOf(f.taker.account.address).signTypedData(buildGaslessExactOutputPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order, nonce, ...fee }));
    const { data, signatureOffset } = encodeSwapGaslessExactOutput(order, f.taker.account.address, fee, nonce);
    const takerBefore = await balanceOf(f, usdc, f.taker.account.address);
    const recipientBefore = await balanceOf(f, weth, order.recipient);
    const relayerBefore = await balanceOf(f, usdc, f.relayer.account.address);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: router, data: patchSignature(data, signatureOffset, signature) }) });
    expect((await balanceOf(f, weth, order.recipient)) - recipientBefore).to.equal(buyAmount);
    expect(takerBefore - (await balanceOf(f, usdc, f.taker.account.address))).to.equal(expected + fee.relayerFee);
    expect((await balanceOf(f, usdc, f.relayer.account.address)) - relayerBefore).to.equal(fee.relayerFee);
    await expectRoutersEmpty(f);
  });

  describe("refusals", () => {
    it("a maximum below what the V3 pool asks is refused in its callback (SwapExcessiveInput), and nothing moves", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const buyAmount = parseEther("1");
      const expected = await quoteExactOutput(f.uniswap, f, [usdc, weth], [3000], buyAmount);
      const order = exactOrder(f, usdc, expected - 1n, weth, buyAmount, [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }], (await now(f)) + 600n);
      const takerBefore = await balanceOf(f, usdc, f.taker.account.address);
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(order, f.routerAddress) }), "SwapExcessiveInput", [expected, expected - 1n]);
      expect(await balanceOf(f, usdc, f.taker.account.address)).to.equal(takerBefore);
    });

    it("an output the pool cannot fill completely is refused (SwapV3PartialFill): the shallow pool runs dry", async () => {
      const f = await loadFixture(v3Market);
      const usdc = f.token("USDC");
      const order = exactOrder(f, NATIVE_TOKEN, parseEther("100"), usdc, parseUnits("50000", 6), [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 10_000, venue: 1 }], (await now(f)) + 600n);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapExactOutputNative(order), value: order.maxSellAmount }), "SwapV3PartialFill");
    });

    it("propAMMs stay exact-input only: SWAP_PROPAMM is refused in an exact-output route and in a split leg", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const propAmm: RouteAction = { type: "swapPropAmm", pair: v2Pair(f, usdc, weth), tokenOut: weth };
      const alone = exactOrder(f, usdc, parseUnits("1000", 6), weth, parseEther("0.1"), [propAmm], (await now(f)) + 600n);
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(alone, f.routerAddress) }), "SwapExactOutputRoute", [0n]);
      const split: RouteAction[] = [{ type: "split", legs: [{ shareBps: 5000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] }, { shareBps: 5000, hops: [propAmm] }] }];
      const inLeg = exactOrder(f, usdc, parseUnits("1000", 6), weth, parseEther("0.1"), split, (await now(f)) + 600n);
      // In a split leg, the offset is the hop's within its leg (the V3 leg runs first; the revert undoes it).
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(inLeg, f.routerAddress) }), "SwapExactOutputRoute", [0n]);
    });

    it("swaps of a route run backwards must be one run after at most a WRAP: a V3 hop after an UNWRAP–WRAP detour is refused", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const actions: RouteAction[] = [
        { type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 },
        { type: "unwrap" },
        { type: "wrap" },
        { type: "swapV2", pair: v2Pair(f, weth, usdc), tokenOut: usdc, feeBps: 30 },
      ];
      const order = exactOrder(f, usdc, parseUnits("1000", 6), usdc, parseUnits("10", 6), actions, (await now(f)) + 600n);
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(order, f.routerAddress) }), "SwapExactOutputRoute", [27n]);
    });
  });
});

describe("A V3 hop that pays nothing is refused (SwapV3ZeroOutput), alone and in a split leg", () => {
  it("refuses a wei of WETH into the USDC pool (all of it the pool's fee) rather than passing zero on", async () => {
    const f = await loadFixture(v3Market);
    const usdc = f.token("USDC");
    const deadline = (await now(f)) + 600n;
    const swap = (actions: RouteAction[], sellAmount: bigint) => ({ sellToken: NATIVE_TOKEN, sellAmount, buyToken: usdc, minBuyAmount: 0n, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions: encodeRouteActions(actions) });
    const { result } = await f.publicClient.simulateContract({ address: f.uniswap.quoterV2, abi: uniswapV3Artifacts.quoterV2().abi, functionName: "quoteExactInputSingle", args: [{ tokenIn: f.contracts.weth, tokenOut: usdc, amountIn: 1n, fee: 3000, sqrtPriceLimitX96: 0n }] });
    expect((result as readonly [bigint, ...unknown[]])[0], "the pool pays nothing for a wei").to.equal(0n);
    const alone = swap([{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }], 1n);
    await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(alone), value: alone.sellAmount }), "SwapV3ZeroOutput", [f.usdcWeth, 1n]);
    // A split whose V3 leg gets one wei of its share (1 bps of 10,000 wei) and pays nothing for it.
    const legs: RouteAction[] = [
      { type: "wrap" },
      {
        type: "split",
        legs: [
          { shareBps: 1, hops: [{ type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }] },
          { shareBps: 9999, hops: [{ type: "swapV2", pair: v2Pair(f, f.contracts.weth, usdc), tokenOut: usdc, feeBps: 30 }] },
        ],
      },
    ];
    const split = swap(legs, 10_000n);
    await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(split), value: split.sellAmount }), "SwapV3ZeroOutput", [f.usdcWeth, split.sellAmount / 10_000n]);
  });
});
