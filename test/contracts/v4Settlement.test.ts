import { expect } from "chai";
import hre from "hardhat";
import { loadFixture, impersonateAccount, setBalance } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, encodeFunctionData, erc20Abi, getAddress, getContractAddress, maxUint256, parseAbi, parseEventLogs, parseEther, parseUnits, toFunctionSelector, zeroAddress, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapExactOutputNative,
  encodeSwapExactOutputWithAllowance,
  encodeSwapGaslessBatch,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  NATIVE_TOKEN,
  getSqrtRatioAtTick,
  liquidityForAmounts,
  patchSignature,
  sortCurrencies,
  swapV4Hop,
  takerExactOutputRouterAbi,
  uniswapV4PoolManagerAbi,
  uniswapV4StateViewAbi,
  V4_HOOK_FLAGS,
  v4PoolId,
  type SwapOrder,
} from "../../sdk";
import type { ManifestV4Pool } from "../../sdk/chain/manifest";
import { migrateFeature } from "../../scripts/deploy/deploySettlement";
import { initCodeOf, mineHookSalt, uniswapV4Artifacts } from "../../scripts/deploy/uniswapV4";
import { deployBytecode, writeAndWait } from "../../scripts/deploy/writeAndWait";
import { v3Market, type V3Market } from "../fixtures/v3Market";
import { signedGaslessCalldata, signedGaslessOrder } from "../fixtures/signedGasless";
import { balanceOf } from "../fixtures/testRoute";
import { swapV4 } from "../fixtures/v4Route";
import { quoteV2, quoteV3, quoteV4 as quoteVenueV4 } from "../fixtures/venueQuotes";
import { expectRevert, revertDataOf } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"4f".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 44n << 64n;

const now = async (f: V3Market) => (await f.publicClient.getBlock()).timestamp;

/** The devnet's V4 pool of `a` and `b` (NATIVE_TOKEN for native ETH), with `hooks` if named. */
function v4Pool(f: V3Market, a: Address, b: Address, hooks: Address = zeroAddress): ManifestV4Pool {
  const currency = (token: Address) => (token === NATIVE_TOKEN ? zeroAddress : token);
  const [x, y] = [currency(a), currency(b)];
  const found = f.uniswapV4.pools.find((pool) => pool.hooks === hooks && ((pool.currency0 === x && pool.currency1 === y) || (pool.currency0 === y && pool.currency1 === x)));
  if (found === undefined) throw new Error(`no devnet V4 pool ${a}/${b} with hooks ${hooks}`);
  return found;
}

/** The devnet's V4 hook named `name`. */
function hookAddress(f: V3Market, name: string): Address {
  const found = f.uniswapV4.hooks?.find((hook) => hook.name === name);
  if (found === undefined) throw new Error(`no devnet V4 hook ${name}`);
  return found.address;
}

/** V4Quoter's exact-input quote through `pool` from `tokenIn`, at the current state. */
const quoteV4 = (f: V3Market, pool: ManifestV4Pool, tokenIn: Address, amountIn: bigint) => quoteVenueV4(f, f.uniswapV4.v4Quoter, pool, tokenIn, amountIn);

function order(f: V3Market, sellToken: Address, sellAmount: bigint, buyToken: Address, minBuyAmount: bigint, actions: Hex, deadline: bigint): SwapOrder {
  return { sellToken, sellAmount, buyToken, minBuyAmount, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions };
}

async function permitCalldata(f: V3Market, swap: SwapOrder, nonce: bigint): Promise<Hex> {
  const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: swap, nonce: NONCE_BASE + nonce });
  const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
  const { data, signatureOffset } = encodeSwapWithPermit(swap, NONCE_BASE + nonce);
  return patchSignature(data, signatureOffset, signature);
}

async function send(f: V3Market, to: Address, data: Hex, value = 0n, from = f.taker) {
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash: await from.sendTransaction({ to, data, value }) });
  expect(receipt.status).to.equal("success");
  return receipt;
}

const ethBalance = (f: V3Market, account: Address) => f.publicClient.getBalance({ address: account });

/** Nothing of any token the tests trade (nor ether) stays in either router. */
async function expectRoutersEmpty(f: V3Market) {
  for (const router of [f.contracts.takerSwapRouter, f.contracts.gaslessSwapRouter]) {
    for (const token of [f.token("USDC"), f.token("DAI"), f.token("USDT"), f.token("WBTC"), f.contracts.weth]) expect(await balanceOf(f, token, router)).to.equal(0n);
    expect(await ethBalance(f, router)).to.equal(0n);
  }
}

/** ERC20 transfers of `token` from `from` to `to` in a receipt's logs. */
function transfers(receipt: { logs: readonly { address: Address; topics: readonly Hex[]; data: Hex }[] }, token: Address, from: Address, to: Address) {
  return parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs as never }).filter((log) => getAddress(log.address) === token && getAddress(log.args.from) === from && getAddress(log.args.to) === to);
}

describe("Uniswap V4 hops (SWAP_V4) in TakerSwapRouterV3 and GaslessBatchSwapRouterV2", () => {
  it("deploys the current routers with the devnet's PoolManager (poolManager(), v4Revision() 2); earlier versions, and the current one deployed without it, have none (v4Revision() 0) and refuse SWAP_V4 as an unknown action, a signed V4-first sell too", async () => {
    const f = await loadFixture(v3Market);
    expect(await f.takerRouter.read.poolManager()).to.equal(f.uniswapV4.poolManager);
    expect(await f.gaslessRouter.read.poolManager()).to.equal(f.uniswapV4.poolManager);
    expect(await f.takerRouter.read.v4Revision()).to.equal(2n);
    expect(await f.gaslessRouter.read.v4Revision()).to.equal(2n);
    const earlier = await hre.viem.getContractAt("TakerSwapRouterV3", await f.newTakerRouter("TakerSwapRouterV2"));
    expect(await earlier.read.poolManager()).to.equal(zeroAddress);
    expect(await earlier.read.v4Revision()).to.equal(0n);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, 2n, earlier.address);
    const swap = order(f, usdc, parseUnits("10", 6), weth, 1n, swapV4(v4Pool(f, weth, usdc), weth), (await now(f)) + 600n);
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(swap, earlier.address) }), "SwapUnknownAction", [8, 0n]);

    // The current version deployed without a PoolManager: a signed V4-first sell syncs no PoolManager
    // (its destination stays the router), and SWAP_V4 is refused.
    const withoutV4 = await hre.viem.getContractAt("TakerSwapRouterV3", await f.newTakerRouter(undefined, ["poolManager"]));
    expect(await withoutV4.read.poolManager()).to.equal(zeroAddress);
    expect(await withoutV4.read.v4Revision()).to.equal(0n);
    await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, 2n, withoutV4.address);
    const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: withoutV4.address, order: swap, nonce: NONCE_BASE + 9n });
    const { data, signatureOffset } = encodeSwapWithPermit(swap, NONCE_BASE + 9n);
    const signed = patchSignature(data, signatureOffset, await f.signerOf(f.taker.account.address).signTypedData(typedData));
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: withoutV4.address, data: signed }), "SwapUnknownAction", [8, 0n]);
  });

  it("sells USDC for WETH in one V4 hop by permit, paying exactly V4Quoter's quote: Permit2 pays the taker's USDC straight into the synced PoolManager (one transfer in, none through the router) and one out", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const pool = v4Pool(f, weth, usdc);
    const sellAmount = parseUnits("5000", 6);
    const expected = await quoteV4(f, pool, usdc, sellAmount);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const receipt = await send(f, f.routerAddress, await permitCalldata(f, order(f, usdc, sellAmount, weth, expected, swapV4(pool, weth), (await now(f)) + 600n), 0n));
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + expected);
    expect(transfers(receipt, usdc, f.taker.account.address, f.uniswapV4.poolManager)).to.have.length(1);
    const usdcMoves = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter((log) => getAddress(log.address) === usdc);
    expect(usdcMoves).to.have.length(1);
    expect(transfers(receipt, weth, f.uniswapV4.poolManager, f.recipient.account.address)).to.have.length(1);
    await expectRoutersEmpty(f);
  });

  it("settles a signed V4-first sell through a pool whose hook syncs the sell currency during the swap: the payment is settled before any swap runs (after it, the hook's sync would leave nothing to settle)", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const clients = f;
    // The hook at a mined CREATE2 address carrying AFTER_SWAP only, as the devnet deploys its own.
    const create2 = await hre.viem.deployContract("DevCreate2Deployer", [], { client: { public: f.publicClient, wallet: f.deployer } });
    const hookArtifact = await hre.artifacts.readArtifact("V4SyncingHook");
    const { initCode, initCodeHash } = initCodeOf({ abi: hookArtifact.abi, bytecode: hookArtifact.bytecode as Hex }, [f.uniswapV4.poolManager]);
    const { salt, address: hook } = mineHookSalt(create2.address, initCodeHash, V4_HOOK_FLAGS.afterSwap);
    await writeAndWait(clients, f.deployer, { address: create2.address, abi: create2.abi, functionName: "deploy", args: [salt, initCode] });
    // Its USDC/WETH pool at the plain pool's price, with full-range liquidity.
    const [currency0, currency1] = sortCurrencies(usdc, weth);
    const key = { currency0, currency1, fee: 3000, tickSpacing: 60, hooks: hook };
    const [sqrtPriceX96] = await f.publicClient.readContract({ address: f.uniswapV4.stateView, abi: uniswapV4StateViewAbi, functionName: "getSlot0", args: [v4PoolId(v4Pool(f, weth, usdc))] });
    await writeAndWait(clients, f.deployer, { address: f.uniswapV4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [key, sqrtPriceX96] });
    const liquidityRouter = await deployBytecode(clients, f.deployer, uniswapV4Artifacts.modifyLiquidityRouter(), [f.uniswapV4.poolManager]);
    const [amountUsdc, amountWeth] = [parseUnits("2000000", 6), parseEther("1000")];
    const usdcToken = await hre.viem.getContractAt("DevToken", usdc, { client: { public: f.publicClient, wallet: f.deployer } });
    await f.publicClient.waitForTransactionReceipt({ hash: await usdcToken.write.mint([f.deployer.account.address, amountUsdc]) });
    await writeAndWait(clients, f.deployer, { address: weth, abi: parseAbi(["function deposit() payable"]), functionName: "deposit", value: amountWeth });
    for (const token of [usdc, weth]) await writeAndWait(clients, f.deployer, { address: token, abi: erc20Abi, functionName: "approve", args: [liquidityRouter, maxUint256] });
    const [tickLower, tickUpper] = [-887220, 887220];
    const [amount0, amount1] = currency0 === usdc ? [amountUsdc, amountWeth] : [amountWeth, amountUsdc];
    const liquidity = liquidityForAmounts(sqrtPriceX96, getSqrtRatioAtTick(tickLower), getSqrtRatioAtTick(tickUpper), amount0, amount1);
    await writeAndWait(clients, f.deployer, {
      address: liquidityRouter,
      abi: uniswapV4Artifacts.modifyLiquidityRouter().abi,
      functionName: "modifyLiquidity",
      args: [key, { tickLower, tickUpper, liquidityDelta: liquidity, salt: `0x${"0".repeat(64)}` }, "0x"],
    } as unknown as Parameters<typeof writeAndWait>[2]);

    const sellAmount = parseUnits("3000", 6);
    const pool = { ...key, id: v4PoolId(key), source: "uniswap-v4" } as ManifestV4Pool;
    const expected = await quoteV4(f, pool, usdc, sellAmount);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const receipt = await send(f, f.routerAddress, await permitCalldata(f, order(f, usdc, sellAmount, weth, expected, swapV4(pool, weth), (await now(f)) + 600n), 11n));
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + expected);
    expect(transfers(receipt, usdc, f.taker.account.address, f.uniswapV4.poolManager)).to.have.length(1);
    const synced = parseEventLogs({ abi: hookArtifact.abi, eventName: "V4SyncingHookSynced", logs: receipt.logs });
    expect(synced.map((log) => getAddress((log.args as { currency: Address }).currency))).to.deep.equal([usdc]);
    await expectRoutersEmpty(f);
  });

  it("runs two V4 hops (USDC→WETH→WBTC) in one unlock through the allowance holder: the WETH between them never leaves the PoolManager", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, wbtc] = [f.token("USDC"), f.contracts.weth, f.token("WBTC")];
    const [first, second] = [v4Pool(f, weth, usdc), v4Pool(f, wbtc, weth)];
    const sellAmount = parseUnits("3000", 6);
    const expected = await quoteV4(f, second, weth, await quoteV4(f, first, usdc, sellAmount));
    const before = await balanceOf(f, wbtc, f.recipient.account.address);
    const swap = order(f, usdc, sellAmount, wbtc, expected, concatHex([swapV4(first, weth), swapV4(second, wbtc)]), (await now(f)) + 600n);
    const receipt = await send(f, f.contracts.allowanceHolder, encodeSwapWithAllowance(swap, f.routerAddress));
    expect(await balanceOf(f, wbtc, f.recipient.account.address)).to.equal(before + expected);
    // The holder delivers to the router (`inputDestination` is a view: it cannot sync the PoolManager), which pays it in.
    expect(transfers(receipt, usdc, f.routerAddress, f.uniswapV4.poolManager)).to.have.length(1);
    const wethMoves = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter((log) => getAddress(log.address) === weth);
    expect(wethMoves).to.deep.equal([]);
    await expectRoutersEmpty(f);
  });

  it("sells native ETH into the ETH/USDC pool without wrapping (value settled to the PoolManager), and buys native ETH back, paid by settlement", async () => {
    const f = await loadFixture(v3Market);
    const usdc = f.token("USDC");
    const pool = v4Pool(f, NATIVE_TOKEN, usdc);
    const sellAmount = parseEther("1.5");
    const expected = await quoteV4(f, pool, NATIVE_TOKEN, sellAmount);
    const managerEth = await ethBalance(f, f.uniswapV4.poolManager);
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    const receipt = await send(f, f.routerAddress, encodeSwapNative(order(f, NATIVE_TOKEN, sellAmount, usdc, expected, swapV4(pool, usdc), (await now(f)) + 600n)), sellAmount);
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
    expect(await ethBalance(f, f.uniswapV4.poolManager)).to.equal(managerEth + sellAmount);
    expect(parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).filter((log) => getAddress(log.address) === f.contracts.weth)).to.deep.equal([]);

    const usdcIn = parseUnits("2500", 6);
    const ethOut = await quoteV4(f, pool, usdc, usdcIn);
    const ethBefore = await ethBalance(f, f.recipient.account.address);
    await send(f, f.routerAddress, await permitCalldata(f, order(f, usdc, usdcIn, NATIVE_TOKEN, ethOut, swapV4(pool, NATIVE_TOKEN), (await now(f)) + 600n), 1n));
    expect(await ethBalance(f, f.recipient.account.address)).to.equal(ethBefore + ethOut);
    await expectRoutersEmpty(f);
  });

  it("hands a V3 hop's output to a V4 hop in one route (USDC→WETH on V3, WETH→WBTC on V4), paying both quoters' amounts; a V4 hop that pays nothing is refused with SwapV4ZeroOutput", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, wbtc] = [f.token("USDC"), f.contracts.weth, f.token("WBTC")];
    const sellAmount = parseUnits("2000", 6);
    const pool = v4Pool(f, wbtc, weth);
    const expected = await quoteV4(f, pool, weth, await quoteV3(f, f.uniswap.quoterV2, usdc, weth, 3000, sellAmount));
    const actions = concatHex([encodeRouteActions([{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }]), swapV4(pool, wbtc)]);
    const before = await balanceOf(f, wbtc, f.recipient.account.address);
    await send(f, f.contracts.allowanceHolder, encodeSwapWithAllowance(order(f, usdc, sellAmount, wbtc, expected, actions, (await now(f)) + 600n), f.routerAddress));
    expect(await balanceOf(f, wbtc, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersEmpty(f);

    // One wei of ETH buys less than a unit of USDC: the pool keeps it as its fee and pays nothing out.
    const dust = order(f, NATIVE_TOKEN, 1n, usdc, 0n, swapV4(v4Pool(f, NATIVE_TOKEN, usdc), usdc), (await now(f)) + 600n);
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: f.routerAddress, data: encodeSwapNative(dust), value: 1n }), "SwapV4ZeroOutput", [usdc, 1n]);
  });

  it("splits USDC→WETH across a V4 leg, a V3 leg and a V2 leg; a V4 leg may end in a V2 hop", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const pool = v4Pool(f, weth, usdc);
    const sellAmount = parseUnits("9000", 6);
    const legs = [(sellAmount * 5000n) / 10_000n, (sellAmount * 3000n) / 10_000n];
    const outV4 = await quoteV4(f, pool, usdc, legs[0]!);
    const outV3 = await quoteV3(f, f.uniswap.quoterV2, usdc, weth, 3000, legs[1]!);
    const v2Pair = f.pool("USDC", "WETH");
    const actions = encodeRouteActions([{ type: "split", legs: [
      { shareBps: 5000, hops: [swapV4Hop(pool, weth)] },
      { shareBps: 3000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] },
      { shareBps: 2000, hops: [{ type: "swapV2", pair: v2Pair, tokenOut: weth, feeBps: 30 }] },
    ] }]);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const outV2 = await quoteV2(f, v2Pair, usdc, weth, sellAmount - legs[0]! - legs[1]!);
    await send(f, f.routerAddress, await permitCalldata(f, order(f, usdc, sellAmount, weth, outV4 + outV3 + outV2, actions, (await now(f)) + 600n), 2n));
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + outV4 + outV3 + outV2);

    // A leg of a V4 hop handing its WETH to a V2 hop (the router pays the pair), beside a leg through
    // the observer-hook pool; both end in DAI, paid to the recipient directly.
    const dai = f.token("DAI");
    const observed = v4Pool(f, usdc, dai, hookAddress(f, "observer"));
    const half = parseUnits("400", 6);
    const viaWeth = await quoteV4(f, pool, usdc, half);
    const expected = (await quoteV2(f, f.pool("WETH", "DAI"), weth, dai, viaWeth)) + (await quoteV4(f, observed, usdc, half));
    const mixed = encodeRouteActions([{ type: "split", legs: [
      { shareBps: 5000, hops: [swapV4Hop(pool, weth), { type: "swapV2", pair: f.pool("WETH", "DAI"), tokenOut: dai, feeBps: 30 }] },
      { shareBps: 5000, hops: [swapV4Hop(observed, dai)] },
    ] }]);
    const daiBefore = await balanceOf(f, dai, f.recipient.account.address);
    await send(f, f.contracts.allowanceHolder, encodeSwapWithAllowance(order(f, usdc, half * 2n, dai, expected, mixed, (await now(f)) + 600n), f.routerAddress));
    expect(await balanceOf(f, dai, f.recipient.account.address)).to.equal(daiBefore + expected);
    await expectRoutersEmpty(f);
  });

  it("settles gasless V4 orders one by one and in a batch (a V4 order and a V4 + V3 split) on GaslessBatchSwapRouterV2", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const pool = v4Pool(f, weth, usdc);
    const sellAmount = parseUnits("1000", 6);
    const relayerFee = parseUnits("1", 6);
    const single = order(f, usdc, sellAmount, weth, await quoteV4(f, pool, usdc, sellAmount), swapV4(pool, weth), (await now(f)) + 600n);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    await send(f, f.contracts.gaslessSwapRouter, await signedGaslessCalldata(f, { order: single, nonce: NONCE_BASE + 10n, relayerFee, relayerFeeRecipient: f.relayer.account.address }), 0n, f.relayer);
    const afterSingle = await balanceOf(f, weth, f.recipient.account.address);
    expect(afterSingle - before).to.equal(single.minBuyAmount);

    const first = await quoteV4(f, pool, usdc, sellAmount);
    const split = encodeRouteActions([{ type: "split", legs: [{ shareBps: 5000, hops: [swapV4Hop(pool, weth)] }, { shareBps: 5000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] }] }]);
    const orders = [
      await signedGaslessOrder(f, { order: order(f, usdc, sellAmount, weth, first, swapV4(pool, weth), (await now(f)) + 600n), nonce: NONCE_BASE + 11n, relayerFee, relayerFeeRecipient: f.relayer.account.address }),
      await signedGaslessOrder(f, { order: order(f, usdc, sellAmount, weth, 1n, split, (await now(f)) + 600n), nonce: NONCE_BASE + 12n, relayerFee, relayerFeeRecipient: f.relayer.account.address }),
    ];
    const { result } = await f.publicClient.simulateContract({ account: f.relayer.account, address: f.contracts.gaslessSwapRouter, abi: f.gaslessRouter.abi, functionName: "swapGaslessBatch", args: [orders, [1_000_000n, 1_000_000n]] });
    expect(result[0]).to.equal(3n);
    expect(result[1][0]).to.equal(first);
    await send(f, f.contracts.gaslessSwapRouter, encodeSwapGaslessBatch(orders, [1_000_000n, 1_000_000n]), 0n, f.relayer);
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(afterSingle + result[1][0]! + result[1][1]!);
    await expectRoutersEmpty(f);
  });

  it("routes the observer-hook pool as a plain pool (the hook sees the swap), and the delta-hook pool pays the curve minus the hook's 50 bps, as measured from the swap's delta", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, dai, weth, usdt] = [f.token("USDC"), f.token("DAI"), f.contracts.weth, f.token("USDT")];
    const hook = (name: string) => hookAddress(f, name);
    const observed = v4Pool(f, usdc, dai, hook("observer"));
    const sellAmount = parseUnits("700", 6);
    const expected = await quoteV4(f, observed, usdc, sellAmount);
    const receipt = await send(f, f.contracts.allowanceHolder, encodeSwapWithAllowance(order(f, usdc, sellAmount, dai, expected, swapV4(observed, dai), (await now(f)) + 600n), f.routerAddress));
    expect(receipt.logs.some((log) => getAddress(log.address) === hook("observer"))).to.equal(true);

    // USDC → WETH (plain) → USDT (the hook keeps 50 bps of the output): one unlock, two pools.
    const [plain, taxed] = [v4Pool(f, weth, usdc), v4Pool(f, weth, usdt, hook("swapFee"))];
    const mid = await quoteV4(f, plain, usdc, sellAmount);
    const out = await quoteV4(f, taxed, weth, mid);
    const [hookBefore, before] = [await balanceOf(f, usdt, hook("swapFee")), await balanceOf(f, usdt, f.recipient.account.address)];
    await send(f, f.routerAddress, await permitCalldata(f, order(f, usdc, sellAmount, usdt, out, concatHex([swapV4(plain, weth), swapV4(taxed, usdt)]), (await now(f)) + 600n), 3n));
    const received = (await balanceOf(f, usdt, f.recipient.account.address)) - before;
    const kept = (await balanceOf(f, usdt, hook("swapFee"))) - hookBefore;
    expect(received).to.equal(out);
    expect(kept > 0n).to.equal(true);
    // The curve paid received + kept; the hook kept floor(50 bps) of it.
    expect(kept).to.equal(((received + kept) * 50n) / 10_000n);
    await expectRoutersEmpty(f);
  });

  it("refuses the callback from a stranger, from the PoolManager outside the router's own unlock, and on the module called directly", async () => {
    const f = await loadFixture(v3Market);
    const data: Hex = concatHex([f.token("USDC"), `0x${"00".repeat(31)}01`, f.stranger.account.address]);
    for (const router of [f.takerRouter, f.gaslessRouter]) {
      await expectRevert(f.publicClient.simulateContract({ account: f.stranger.account, address: router.address, abi: router.abi, functionName: "unlockCallback", args: [data] }), "SwapV4CallbackRefused", [f.stranger.account.address]);
      await impersonateAccount(f.uniswapV4.poolManager);
      await setBalance(f.uniswapV4.poolManager, parseEther("1000"));
      await expectRevert(f.publicClient.call({ account: f.uniswapV4.poolManager, to: router.address, data: encodeFunctionData({ abi: router.abi, functionName: "unlockCallback", args: [data] }) }), "SwapV4CallbackRefused", [f.uniswapV4.poolManager]);
    }
    // The module's address is the router's first CREATE (nonce 1).
    const module = getContractAddress({ from: f.routerAddress, nonce: 1n });
    const moduleAbi = parseAbi(["function unlockCallback(bytes) returns (bytes)", "function swapV4Run() returns (uint256)"]);
    await expectRevert(f.publicClient.call({ account: f.uniswapV4.poolManager, to: module, data: encodeFunctionData({ abi: moduleAbi, functionName: "unlockCallback", args: [data] }) }), "SwapV4CallbackRefused");
    await expectRevert(f.publicClient.call({ account: f.stranger.account, to: module, data: encodeFunctionData({ abi: moduleAbi, functionName: "swapV4Run" }) }), "SwapV4CallbackRefused");
  });

  it("refuses a pool key nobody initialised, a partial fill, a ninth action in a V4 run, a cut-short SWAP_V4, an amount below the minimum, and a SWAP_V4 after another venue's hop in an exact-output route; nothing moves", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, wbtc] = [f.token("USDC"), f.contracts.weth, f.token("WBTC")];
    const pool = v4Pool(f, weth, usdc);
    const deadline = (await now(f)) + 600n;
    const simulate = (swap: SwapOrder) => f.publicClient.call({ account: f.taker.account, to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(swap, f.routerAddress) });
    // Wrong fee or hooks: the PoolManager has no such pool.
    for (const overrides of [{ fee: 501 }, { hooks: hookAddress(f, "observer") }]) {
      const failed = await simulate(order(f, usdc, parseUnits("10", 6), weth, 1n, swapV4(pool, weth, overrides), deadline)).then(() => undefined, (error: unknown) => error);
      expect(revertDataOf(failed)?.slice(0, 10)).to.equal(toFunctionSelector("PoolNotInitialized()"));
    }
    // The WBTC/WETH pool holds one narrow position: 10,000 WBTC's worth of USDC runs it dry.
    const route = concatHex([swapV4(pool, weth), swapV4(v4Pool(f, wbtc, weth), wbtc)]);
    await f.deployer.writeContract({ address: usdc, abi: parseAbi(["function mint(address,uint256)"]), functionName: "mint", args: [f.taker.account.address, parseUnits("500000000", 6)] });
    await expectRevert(simulate(order(f, usdc, parseUnits("400000000", 6), wbtc, 1n, route, deadline)), "SwapV4PartialFill");
    // A pool initialised with no liquidity at all takes nothing and pays nothing: a partial fill of zero.
    const [currency0, currency1] = sortCurrencies(usdc, weth);
    const empty = { currency0, currency1, fee: 2500, tickSpacing: 50, hooks: zeroAddress } as const;
    await writeAndWait(f, f.deployer, { address: f.uniswapV4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [empty, getSqrtRatioAtTick(0)] });
    await expectRevert(simulate(order(f, usdc, parseUnits("10", 6), weth, 1n, swapV4(pool, weth, { fee: 2500, tickSpacing: 50 }), deadline)), "SwapV4PartialFill", [parseUnits("10", 6), 0n]);
    // Each SWAP_V4 of a run counts toward the 8 actions; a cut-short one is refused by its width, named
    // by the offset of the run it ends (the run is checked as one).
    const back = swapV4(pool, usdc);
    const nine = concatHex([swapV4(pool, weth), back, swapV4(pool, weth), back, swapV4(pool, weth), back, swapV4(pool, weth), back, swapV4(pool, weth)]);
    await expectRevert(simulate(order(f, usdc, parseUnits("10", 6), weth, 1n, nine, deadline)), "SwapTooManyActions", [8n]);
    const eight = concatHex([swapV4(pool, weth), back, swapV4(pool, weth), back, swapV4(pool, weth), back, swapV4(pool, weth), back]);
    await simulate(order(f, usdc, parseUnits("10", 6), usdc, 1n, eight, deadline));
    await expectRevert(simulate(order(f, usdc, parseUnits("10", 6), wbtc, 1n, concatHex([swapV4(pool, weth), swapV4(pool, weth).slice(0, 60) as Hex]), deadline)), "SwapTruncatedAction", [0n]);
    const sellAmount = parseUnits("100", 6);
    const expected = await quoteV4(f, pool, usdc, sellAmount);
    await expectRevert(simulate(order(f, usdc, sellAmount, weth, expected + 1n, swapV4(pool, weth), deadline)), "SwapInsufficientOutput", [expected, expected + 1n]);
    // Exact output runs a V4 hop backwards only with V4 hops before it: a V3 hop first is named (offset 0).
    const v3ThenV4 = encodeRouteActions([{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }, swapV4Hop(v4Pool(f, wbtc, weth), wbtc)]);
    const exactOutput = { sellToken: usdc, maxSellAmount: sellAmount, buyToken: wbtc, buyAmount: 1000n, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions: v3ThenV4 };
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(exactOutput, f.routerAddress) }), "SwapExactOutputRoute", [0n]);
    // A V2 hop first, and a V3 hop between two V4 hops (the module meets it at offset 47, after one SWAP_V4).
    const v2ThenV4 = encodeRouteActions([{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: weth, feeBps: 30 }, swapV4Hop(v4Pool(f, wbtc, weth), wbtc)]);
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance({ ...exactOutput, actions: v2ThenV4 }, f.routerAddress) }), "SwapExactOutputRoute", [0n]);
    const v4v3v4 = encodeRouteActions([swapV4Hop(pool, weth), { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }, swapV4Hop(pool, weth)]);
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance({ ...exactOutput, buyToken: weth, actions: v4v3v4 }, f.routerAddress) }), "SwapExactOutputRoute", [47n]);
    await expectRoutersEmpty(f);
  });

  it("settles exact output over V4 backwards: one hop for exactly V4Quoter's input, a run of two in one unlock, native ETH in (the rest refunded) and out, ETH wrapped first, and a V4 leg beside a V3 one; refuses a pool that cannot pay the output; nothing stays in the routers", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, wbtc] = [f.token("USDC"), f.contracts.weth, f.token("WBTC")];
    const deadline = (await now(f)) + 600n;
    const pool = v4Pool(f, weth, usdc);
    const exact = (sellToken: Address, maxSellAmount: bigint, buyToken: Address, buyAmount: bigint, actions: Hex) => ({ sellToken, maxSellAmount, buyToken, buyAmount, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions });
    const viaHolder = (order: ReturnType<typeof exact>) => send(f, f.contracts.allowanceHolder, encodeSwapExactOutputWithAllowance(order, f.routerAddress));
    const settled = (receipt: Awaited<ReturnType<typeof send>>) => parseEventLogs({ abi: takerExactOutputRouterAbi, eventName: "SwapSettled", logs: receipt.logs })[0]!.args;
    await f.taker.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [f.contracts.allowanceHolder, maxUint256] });

    // One hop: the taker pays exactly what V4Quoter says the output needs, the recipient gets exactly the output.
    const buyAmount = parseEther("0.01");
    const needed = await quoteVenueV4(f, f.uniswapV4.v4Quoter, pool, usdc, buyAmount, "exactOutput");
    const [usdcBefore, wethBefore] = await Promise.all([balanceOf(f, usdc, f.taker.account.address), balanceOf(f, weth, f.recipient.account.address)]);
    const one = settled(await viaHolder(exact(usdc, needed * 2n, weth, buyAmount, swapV4(pool, weth))));
    expect([one.sellAmount, one.buyAmount]).to.deep.equal([needed, buyAmount]);
    expect(usdcBefore - (await balanceOf(f, usdc, f.taker.account.address))).to.equal(needed);
    expect((await balanceOf(f, weth, f.recipient.account.address)) - wethBefore).to.equal(buyAmount);

    // Two V4 hops, USDC → WETH → WBTC, in one unlock: two pool swaps, exactly the WBTC out.
    const wbtcOut = 10_000n;
    const run = await viaHolder(exact(usdc, parseUnits("1000", 6), wbtc, wbtcOut, concatHex([swapV4(pool, weth), swapV4(v4Pool(f, wbtc, weth), wbtc)])));
    expect(settled(run).buyAmount).to.equal(wbtcOut);
    expect(parseEventLogs({ abi: uniswapV4PoolManagerAbi, eventName: "Swap", logs: run.logs })).to.have.length(2);

    // Native ETH into the ETH/USDC pool: exactly the USDC out, the unused ETH back to the taker.
    const nativePool = v4Pool(f, NATIVE_TOKEN, usdc);
    const usdcOut = parseUnits("25", 6);
    const ethNeeded = await quoteVenueV4(f, f.uniswapV4.v4Quoter, nativePool, NATIVE_TOKEN, usdcOut, "exactOutput");
    const ethBefore = await ethBalance(f, f.taker.account.address);
    const nativeOrder = exact(NATIVE_TOKEN, parseEther("1"), usdc, usdcOut, swapV4(nativePool, usdc));
    const native = await send(f, f.routerAddress, encodeSwapExactOutputNative(nativeOrder), parseEther("1"));
    expect(settled(native).sellAmount).to.equal(ethNeeded);
    expect(ethBefore - (await ethBalance(f, f.taker.account.address))).to.equal(ethNeeded + native.gasUsed * native.effectiveGasPrice);

    // ETH wrapped first, into the WETH/USDC pool: the WETH is deposited as the run pays it.
    const wethNeeded = await quoteVenueV4(f, f.uniswapV4.v4Quoter, pool, weth, usdcOut, "exactOutput");
    const ethBeforeWrap = await ethBalance(f, f.taker.account.address);
    const wrapped = await send(f, f.routerAddress, encodeSwapExactOutputNative(exact(NATIVE_TOKEN, parseEther("1"), usdc, usdcOut, encodeRouteActions([{ type: "wrap" }, swapV4Hop(pool, usdc)]))), parseEther("1"));
    expect([settled(wrapped).sellAmount, settled(wrapped).buyAmount]).to.deep.equal([wethNeeded, usdcOut]);
    expect(ethBeforeWrap - (await ethBalance(f, f.taker.account.address))).to.equal(wethNeeded + wrapped.gasUsed * wrapped.effectiveGasPrice);
    // USDC for exactly 0.01 native ETH out of the ETH pool: taken into the router and paid on, no balance measured.
    const recipientEth = await ethBalance(f, f.recipient.account.address);
    await viaHolder(exact(usdc, parseUnits("1000", 6), NATIVE_TOKEN, buyAmount, swapV4(nativePool, NATIVE_TOKEN)));
    expect((await ethBalance(f, f.recipient.account.address)) - recipientEth).to.equal(buyAmount);
    // More WBTC than the narrow pool holds: the pool pays less than asked, and the run is refused.
    const tooMuch = exact(usdc, parseUnits("1000", 6), wbtc, parseUnits("1000000", 8), concatHex([swapV4(pool, weth), swapV4(v4Pool(f, wbtc, weth), wbtc)]));
    await expectRevert(f.publicClient.call({ account: f.taker.account, to: f.contracts.allowanceHolder, data: encodeSwapExactOutputWithAllowance(tooMuch, f.routerAddress) }), "SwapV4PartialFill");

    // A SPLIT whose V4 leg runs beside a V3 leg: the recipient gets the whole output.
    const split = encodeRouteActions([{ type: "split", legs: [{ shareBps: 6000, hops: [swapV4Hop(pool, weth)] }, { shareBps: 4000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] }] }]);
    expect(settled(await viaHolder(exact(usdc, parseUnits("1000", 6), weth, buyAmount, split))).buyAmount).to.equal(buyAmount);
    await expectRoutersEmpty(f);
  });
});
