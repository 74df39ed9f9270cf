import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { concatHex, getAddress, keccak256, zeroAddress, numberToHex, parseEther, parseUnits, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapGaslessBatch,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  getAmountOut,
  NATIVE_TOKEN,
  patchSignature,
  uniswapV2PairAbi,
  v3PoolAddress,
  type RouteAction,
  type SwapOrder,
} from "../../sdk";
import { migrateFeature } from "../../scripts/deploy/deploySettlement";
import { migrateRouter } from "../../scripts/deploy/migrateRouter";
import { uniswapV3Artifacts } from "../../scripts/deploy/uniswapV3";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "../../scripts/deploy/uniswapArtifacts";
import { type SettlementFixture } from "../fixtures/settlementFixture";
import { v3Market, type V3Market } from "../fixtures/v3Market";
import { signedGaslessCalldata, signedGaslessOrder } from "../fixtures/signedGasless";
import { balanceOf } from "../fixtures/testRoute";
import { expectRevert } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"6c".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 9n << 64n;


async function now(f: SettlementFixture): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** QuoterV2's exact-input quote on `venue` at the current state: what the router's hop must pay out. */
async function quoteV3(f: V3Market, venue: V3Market["uniswap"], tokenIn: Address, tokenOut: Address, fee: number, amountIn: bigint): Promise<bigint> {
  const { result } = await f.publicClient.simulateContract({
    address: venue.quoterV2,
    abi: uniswapV3Artifacts.quoterV2().abi,
    functionName: "quoteExactInputSingle",
    args: [{ tokenIn, tokenOut, amountIn, fee, sqrtPriceLimitX96: 0n }],
  });
  return (result as readonly [bigint, bigint, number, bigint])[0];
}

/** The V2 pair's output for `amountIn`, from its reserves now. */
async function quoteV2(f: V3Market, tokenIn: Address, tokenOut: Address, amountIn: bigint): Promise<bigint> {
  const pair = v2Pair(f, tokenIn, tokenOut);
  const [reserve0, reserve1] = await f.publicClient.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" });
  const zeroForOne = tokenIn.toLowerCase() < tokenOut.toLowerCase();
  return getAmountOut(amountIn, zeroForOne ? reserve0 : reserve1, zeroForOne ? reserve1 : reserve0, 30);
}

function v2Pair(f: V3Market, a: Address, b: Address): Address {
  const symbol = (token: Address) => (token === f.contracts.weth ? "WETH" : f.tokens.find((t) => t.address === token)!.symbol);
  return f.pool(symbol(a), symbol(b));
}

function order(f: V3Market, sellToken: Address, sellAmount: bigint, buyToken: Address, minBuyAmount: bigint, actions: RouteAction[] | Hex, deadline: bigint): SwapOrder {
  return { sellToken, sellAmount, buyToken, minBuyAmount, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions: typeof actions === "string" ? actions : encodeRouteActions(actions) };
}

async function sendPermit(f: V3Market, swap: SwapOrder, nonce: bigint) {
  const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router: f.routerAddress, order: swap, nonce: NONCE_BASE + nonce });
  const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
  const { data, signatureOffset } = encodeSwapWithPermit(swap, NONCE_BASE + nonce);
  return f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: patchSignature(data, signatureOffset, signature) }) });
}

/** Nothing of any token the tests trade stays in either router. */
async function expectRoutersEmpty(f: V3Market) {
  for (const router of [f.contracts.takerSwapRouter, f.contracts.gaslessSwapRouter]) {
    for (const token of [f.token("USDC"), f.token("DAI"), f.contracts.weth]) expect(await balanceOf(f, token, router)).to.equal(0n);
  }
}

describe("Uniswap V3 hops (SWAP_V3) in TakerSwapRouterV3 and GaslessBatchSwapRouterV2", () => {
  it("deploys the current routers with the devnet's V3 venues, in venue order", async () => {
    const f = await loadFixture(v3Market);
    for (const router of [f.takerRouter, f.gaslessRouter]) {
      expect(await router.read.v3VenueCount()).to.equal(2n);
      expect(await router.read.v3Venue([0n])).to.deep.equal([f.uniswap.factory, f.uniswap.poolInitCodeHash]);
      expect(await router.read.v3Venue([1n])).to.deep.equal([f.fork.factory, f.fork.poolInitCodeHash]);
      await expectRevert(router.read.v3Venue([2n]), "SwapUnknownV3Venue", [2n, 2n]);
    }
  });

  it("sells USDC for WETH in one V3 hop by permit, paying the recipient exactly what QuoterV2 quotes", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const sellAmount = parseUnits("5000", 6);
    const expected = await quoteV3(f, f.uniswap, usdc, weth, 3000, sellAmount);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const receipt = await sendPermit(f, order(f, usdc, sellAmount, weth, expected, [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }], (await now(f)) + 600n), 0n);
    expect(receipt.status).to.equal("success");
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + expected);
    expect(await balanceOf(f, usdc, f.usdcWeth) > 0n).to.equal(true);
    await expectRoutersEmpty(f);
  });

  it("sells ETH: wraps, swaps WETH→DAI in a V3 hop that hands its output straight to the DAI/USDC V2 pair", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const sellAmount = parseEther("2");
    // ETH → WETH → (V3 0.05 %) DAI, then DAI → (V2) USDC: a V3 hop handing its output straight to a V2 pair.
    const viaV3 = await quoteV3(f, f.uniswap, weth, dai, 500, sellAmount);
    const expected = await quoteV2(f, dai, usdc, viaV3);
    const actions: RouteAction[] = [{ type: "wrap" }, { type: "swapV3", tokenOut: dai, fee: 500, venue: 0 }, { type: "swapV2", pair: v2Pair(f, dai, usdc), tokenOut: usdc, feeBps: 30 }];
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    const swap = order(f, NATIVE_TOKEN, sellAmount, usdc, expected, actions, (await now(f)) + 600n);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(swap), value: sellAmount }) });
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersEmpty(f);
  });

  it("runs two V3 hops back to back (USDC→WETH at 0.30 %, WETH→DAI at 0.05 %) through the allowance holder", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const sellAmount = parseUnits("3000", 6);
    const mid = await quoteV3(f, f.uniswap, usdc, weth, 3000, sellAmount);
    // The second quote must see the first hop's pool untouched: they are different pools, so it does.
    const expected = await quoteV3(f, f.uniswap, weth, dai, 500, mid);
    const actions: RouteAction[] = [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }, { type: "swapV3", tokenOut: dai, fee: 500, venue: 0 }];
    const before = await balanceOf(f, dai, f.recipient.account.address);
    const swap = order(f, usdc, sellAmount, dai, expected, actions, (await now(f)) + 600n);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(swap, f.routerAddress) }) });
    expect(await balanceOf(f, dai, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersEmpty(f);
  });

  it("runs a V2 hop into a V3 hop: the V2 pair pays the router, which pays the V3 pool in its callback", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const sellAmount = parseUnits("4000", 18);
    const viaV2 = await quoteV2(f, dai, weth, sellAmount);
    const expected = await quoteV3(f, f.uniswap, weth, usdc, 3000, viaV2);
    const actions: RouteAction[] = [{ type: "swapV2", pair: v2Pair(f, dai, weth), tokenOut: weth, feeBps: 30 }, { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }];
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    await sendPermit(f, order(f, dai, sellAmount, usdc, expected, actions, (await now(f)) + 600n), 1n);
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersEmpty(f);
  });

  it("splits USDC→WETH across a V2 leg and a V3 leg, and a two-hop leg mixing V3 and V2", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const sellAmount = parseUnits("10000", 6);
    const [legA, legB] = [(sellAmount * 4000n) / 10_000n, sellAmount - (sellAmount * 4000n) / 10_000n];
    const outA = await quoteV2(f, usdc, weth, legA);
    const outB = await quoteV3(f, f.uniswap, usdc, weth, 3000, legB);
    const actions: RouteAction[] = [
      {
        type: "split",
        legs: [
          { shareBps: 4000, hops: [{ type: "swapV2", pair: v2Pair(f, usdc, weth), tokenOut: weth, feeBps: 30 }] },
          { shareBps: 6000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] },
        ],
      },
    ];
    const before = await balanceOf(f, weth, f.recipient.account.address);
    await sendPermit(f, order(f, usdc, sellAmount, weth, outA + outB, actions, (await now(f)) + 600n), 2n);
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + outA + outB);

    // A leg of a V3 hop handing its WETH straight to a V2 pair, beside a plain V2 leg.
    const daiIn = parseUnits("1000", 6);
    const mixedMid = await quoteV3(f, f.uniswap, usdc, weth, 3000, daiIn / 2n);
    const mixedOut = (await quoteV2(f, weth, dai, mixedMid)) + (await quoteV2(f, usdc, dai, daiIn - daiIn / 2n));
    const mixed: RouteAction[] = [
      {
        type: "split",
        legs: [
          { shareBps: 5000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }, { type: "swapV2", pair: v2Pair(f, weth, dai), tokenOut: dai, feeBps: 30 }] },
          { shareBps: 5000, hops: [{ type: "swapV2", pair: v2Pair(f, usdc, dai), tokenOut: dai, feeBps: 30 }] },
        ],
      },
    ];
    const daiBefore = await balanceOf(f, dai, f.recipient.account.address);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(order(f, usdc, daiIn, dai, mixedOut, mixed, (await now(f)) + 600n), f.routerAddress) }) });
    expect(await balanceOf(f, dai, f.recipient.account.address)).to.equal(daiBefore + mixedOut);
    await expectRoutersEmpty(f);
  });

  it("settles gasless V3 orders one by one and in a batch on GaslessBatchSwapRouterV2", async () => {
    const f = await loadFixture(v3Market);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const sellAmount = parseUnits("1000", 6);
    const relayerFee = parseUnits("1", 6);
    const single = order(f, usdc, sellAmount, weth, await quoteV3(f, f.uniswap, usdc, weth, 3000, sellAmount), [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }], (await now(f)) + 600n);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const data = await signedGaslessCalldata(f, { order: single, nonce: NONCE_BASE + 10n, relayerFee, relayerFeeRecipient: f.relayer.account.address });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }) });
    const afterSingle = await balanceOf(f, weth, f.recipient.account.address);
    expect(afterSingle - before).to.equal(single.minBuyAmount);

    // A batch of a V3 order and a split mixing V2 and V3; quotes in batch order (the second sees the first's pool move).
    const first = await quoteV3(f, f.uniswap, usdc, weth, 3000, sellAmount);
    const batchFirst = order(f, usdc, sellAmount, weth, first, [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }], (await now(f)) + 600n);
    const split: RouteAction[] = [{ type: "split", legs: [{ shareBps: 5000, hops: [{ type: "swapV2", pair: v2Pair(f, usdc, weth), tokenOut: weth, feeBps: 30 }] }, { shareBps: 5000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] }] }];
    const batchSecond = order(f, usdc, sellAmount, weth, 1n, split, (await now(f)) + 600n);
    const orders = [
      await signedGaslessOrder(f, { order: batchFirst, nonce: NONCE_BASE + 11n, relayerFee, relayerFeeRecipient: f.relayer.account.address }),
      await signedGaslessOrder(f, { order: batchSecond, nonce: NONCE_BASE + 12n, relayerFee, relayerFeeRecipient: f.relayer.account.address }),
    ];
    const { result } = await f.publicClient.simulateContract({ account: f.relayer.account, address: f.contracts.gaslessSwapRouter, abi: f.gaslessRouter.abi, functionName: "swapGaslessBatch", args: [orders, [1_000_000n, 1_000_000n]] });
    expect(result[0]).to.equal(3n);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessBatch(orders, [1_000_000n, 1_000_000n]) }) });
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(afterSingle + result[1][0]! + result[1][1]!);
    expect(result[1][0]).to.equal(first);
    await expectRoutersEmpty(f);
  });

  it("keeps up to four venues in constructor order, and refuses a fifth or a zero factory", async () => {
    const f = await loadFixture(v3Market);
    const { permit2, allowanceHolder, weth, routerRegistry, uniswapV2Factory } = f.contracts;
    const v2 = { factory: uniswapV2Factory, feeBps: 30, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH };
    const venues = [f.uniswap, f.fork, f.uniswap, f.fork].map(({ factory, poolInitCodeHash }, index) => ({ factory, poolInitCodeHash: index < 2 ? poolInitCodeHash : keccak256(numberToHex(index)) }));
    const client = { client: { public: f.publicClient, wallet: f.deployer } };
    const router = await hre.viem.deployContract("TakerSwapRouterV3", [permit2, allowanceHolder, weth, routerRegistry, v2, venues, zeroAddress, zeroAddress], client);
    expect(await router.read.v3VenueCount()).to.equal(4n);
    for (const [index, venue] of venues.entries()) expect(await router.read.v3Venue([BigInt(index)])).to.deep.equal([venue.factory, venue.poolInitCodeHash]);
    await expectRevert(hre.viem.deployContract("TakerSwapRouterV3", [permit2, allowanceHolder, weth, routerRegistry, v2, [...venues, venues[0]!], zeroAddress, zeroAddress], client), "SwapV3VenueCount", [5n, 4n]);
    await expectRevert(hre.viem.deployContract("GaslessBatchSwapRouterV2", [permit2, weth, routerRegistry, v2, [{ factory: zeroAddress, poolInitCodeHash: f.uniswap.poolInitCodeHash }], zeroAddress, zeroAddress], client), "SwapZeroAddress");
  });

  it("moves a registry running the previous versions to TakerSwapRouterV3 and GaslessBatchSwapRouterV2 through migrateRouter, which keeps the current router's venues when none are given", async () => {
    const f = await loadFixture(v3Market);
    const venues = [f.uniswap, f.fork].map(({ factory, poolInitCodeHash }) => ({ factory, poolInitCodeHash }));
    const previousVersions = [
      { featureId: 2n, previous: await f.newTakerRouter("TakerSwapRouterV2") },
      { featureId: 3n, previous: await f.newGaslessRouter("GaslessBatchSwapRouter") },
    ];
    for (const { featureId, previous } of previousVersions) {
      await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, featureId, previous);
      // The previous version has no V3 venue to copy: the chain's venues are given.
      const upgraded = await migrateRouter(hre, f, f.deployer, f, featureId, venues);
      expect(upgraded.state.current).to.equal(upgraded.router);
      expect(upgraded.state.previous).to.equal(previous);
      const router = await hre.viem.getContractAt("IUniswapV3Venue", upgraded.router);
      expect(await router.read.v3VenueCount()).to.equal(2n);
      // The next migration (no venues given) keeps the running router's.
      const again = await migrateRouter(hre, f, f.deployer, f, featureId);
      const next = await hre.viem.getContractAt("IUniswapV3Venue", again.router);
      expect(await next.read.v3Venue([1n])).to.deep.equal([f.fork.factory, f.fork.poolInitCodeHash]);
    }
    // The migrated feature-2 router settles a V3 route.
    const [, routerAddress] = await f.registry.read.getFeature([2n]);
    const usdc = f.token("USDC");
    const expected = await quoteV3(f, f.uniswap, f.contracts.weth, usdc, 3000, parseEther("1"));
    const swap = order(f, NATIVE_TOKEN, parseEther("1"), usdc, expected, [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }], (await now(f)) + 600n);
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: routerAddress, data: encodeSwapNative(swap), value: swap.sellAmount }) });
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
  });

  it("migrateRouter refuses, before deploying anything, a manifest whose allowance holder or propAMM allowlist is not this build's (a router would mis-route through an earlier holder)", async () => {
    const f = await loadFixture(v3Market);
    const earlier = { ...f.contracts, allowanceHolder: f.contracts.routerRegistry };
    const before = await f.publicClient.getBlockNumber();
    const refusal = (contracts: typeof f.contracts, featureId: bigint) =>
      migrateRouter(hre, f, f.deployer, { contracts }, featureId).then(
        () => "migrated",
        (error: Error) => error.message,
      );
    expect(await refusal(earlier, 2n)).to.match(/the manifest's AllowanceHolder at 0x[0-9a-fA-F]{40} is not this build's.*approve the new holder.*nothing was deployed/);
    expect(await refusal({ ...f.contracts, propAmmAllowlist: f.contracts.allowanceHolder }, 3n)).to.match(/the manifest's PropAmmAllowlist at .* is not this build's/);
    expect(await f.publicClient.getBlockNumber(), "nothing was sent").to.equal(before);
    // Feature 3 has no holder: an earlier holder does not stop its migration.
    expect((await migrateRouter(hre, f, f.deployer, { contracts: earlier }, 3n)).state.current).to.not.equal(zeroAddress);
  });

  describe("refusals", () => {
    async function sendNative(f: V3Market, actions: RouteAction[] | Hex, buyToken: Address) {
      const swap = order(f, NATIVE_TOKEN, parseEther("1"), buyToken, 0n, actions, (await now(f)) + 600n);
      return f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(swap), value: swap.sellAmount });
    }

    it("refuses a pool its venue's factory never deployed (wrong fee tier) and a venue the router does not have", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const missing = v3PoolAddress(f.uniswap.factory, f.uniswap.poolInitCodeHash, weth, usdc, 10_000);
      await expectRevert(sendNative(f, [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 10_000, venue: 0 }], usdc), "SwapV3NoPool", [missing]);
      // Venue 1 has no 0.30 % pool of the pair: the same tier on another venue is another pool.
      const forkMissing = v3PoolAddress(f.fork.factory, f.fork.poolInitCodeHash, weth, usdc, 3000);
      await expectRevert(sendNative(f, [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 1 }], usdc), "SwapV3NoPool", [forkMissing]);
      await expectRevert(sendNative(f, [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 3000, venue: 3 }], usdc), "SwapUnknownV3Venue", [3n, 2n]);
      // Hand-packed: venue byte 0xff, beyond what the SDK encodes.
      const farVenue = concatHex(["0x02", "0x06", usdc, numberToHex(3000, { size: 3 }), "0xff"]);
      await expectRevert(sendNative(f, farVenue, usdc), "SwapUnknownV3Venue", [255n, 2n]);
      // A router of an earlier version has no V3 venue at all.
      const older = await hre.viem.getContractAt("TakerSwapRouterV2", await f.newTakerRouter("TakerSwapRouterV2"));
      expect(await older.read.v3VenueCount()).to.equal(0n);
      // Native in a V3 hop (no WRAP first): pools trade ERC20s only.
      await expectRevert(sendNative(f, [{ type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }], usdc), "SwapUnexpectedToken", [f.contracts.weth, NATIVE_TOKEN]);
    });

    it("refuses SWAP_PROPAMM through a pair the allowlist does not list (a V2 pair here), in a route and in a split leg", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const pair = v2Pair(f, weth, usdc);
      await expectRevert(sendNative(f, [{ type: "wrap" }, { type: "swapPropAmm", pair, tokenOut: usdc }], usdc), "SwapPropAmmNotAllowed", [pair]);
      const split: RouteAction[] = [{ type: "wrap" }, { type: "split", legs: [{ shareBps: 5000, hops: [{ type: "swapV2", pair, tokenOut: usdc, feeBps: 30 }] }, { shareBps: 5000, hops: [{ type: "swapPropAmm", pair, tokenOut: usdc }] }] }];
      await expectRevert(sendNative(f, split, usdc), "SwapPropAmmNotAllowed", [pair]);
    });

    it("refuses the native asset inside a pool hop: a V3 hop paying out ETH, and a split leg's V2 hop selling unwrapped ETH", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const native = getAddress(NATIVE_TOKEN);
      // Hand-packed: WRAP, then SWAP_V3 into the native placeholder.
      const v3ToNative = concatHex(["0x02", "0x06", native, numberToHex(3000, { size: 3 }), "0x00"]);
      await expectRevert(sendNative(f, v3ToNative, native), "SwapUnexpectedToken", [weth, native]);
      // No WRAP: the split's legs start from ETH itself.
      const unwrapped: RouteAction[] = [{ type: "split", legs: [{ shareBps: 5000, hops: [{ type: "swapV2", pair: v2Pair(f, weth, usdc), tokenOut: usdc, feeBps: 30 }] }, { shareBps: 5000, hops: [{ type: "swapV3", tokenOut: usdc, fee: 3000, venue: 0 }] }] }];
      await expectRevert(sendNative(f, unwrapped, usdc), "SwapUnexpectedToken", [weth, native]);
    });

    it("refuses a stranger or a look-alike pool calling uniswapV3SwapCallback outside a hop", async () => {
      const f = await loadFixture(v3Market);
      const usdc = f.token("USDC");
      for (const router of [f.takerRouter, f.gaslessRouter]) {
        await expectRevert(
          router.simulate.uniswapV3SwapCallback([1000n, 0n, concatHex([`0x${usdc.slice(2).padStart(64, "0")}`, numberToHex(1000n, { size: 32 })])], { account: f.stranger.account }),
          "SwapV3CallbackRefused",
          [f.stranger.account.address],
        );
        // Even the real pool is refused when the router is not swapping with it.
        const client = { client: { public: f.publicClient, wallet: f.stranger } };
        const lookAlike = await hre.viem.deployContract("LookAlikeV3Pool", [], client);
        await expectRevert(lookAlike.simulate.claim([router.address, usdc, 1000n], { account: f.stranger.account }), "SwapV3CallbackRefused", [getAddress(lookAlike.address)]);
      }
    });

    it("refuses a V3 hop the pool cannot fill completely: the shallow pool runs out of liquidity", async () => {
      const f = await loadFixture(v3Market);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      // About 2 WETH of depth in a narrow range; 50 WETH pushes the price past it to the limit.
      const swap = order(f, NATIVE_TOKEN, parseEther("50"), usdc, 0n, [{ type: "wrap" }, { type: "swapV3", tokenOut: usdc, fee: 10_000, venue: 1 }], (await now(f)) + 600n);
      const wethInPool = await balanceOf(f, weth, f.shallow);
      await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(swap), value: swap.sellAmount }), "SwapV3PartialFill");
      // Nothing moved: the pool holds what it held.
      expect(await balanceOf(f, weth, f.shallow)).to.equal(wethInPool);
    });
  });
});
