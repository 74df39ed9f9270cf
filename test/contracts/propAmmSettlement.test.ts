import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { erc20Abi, getContract, maxUint256, parseAbi, parseEther, parseUnits, type Address, type Hex } from "viem";
import {
  buildSwapPermitTypedData,
  encodeRouteActions,
  encodeSwapExactOutputNative,
  encodeSwapGaslessBatch,
  encodeSwapNative,
  encodeSwapWithAllowance,
  encodeSwapWithPermit,
  NATIVE_TOKEN,
  patchSignature,
  type RouteAction,
  type RouteHopAction,
  type SwapOrder,
} from "../../sdk";
import { propAmmAllowlistAbi } from "../../sdk/abis/propAmmAllowlistAbi";
import { migrateFeature } from "../../scripts/deploy/deploySettlement";
import { settlementFixture } from "../fixtures/settlementFixture";
import { signedGaslessCalldata, signedGaslessOrder } from "../fixtures/signedGasless";
import { balanceOf } from "../fixtures/testRoute";
import { quoteV2, quoteV3 } from "../fixtures/venueQuotes";
import { expectRevert } from "../helpers/expectRevert";

const QUOTE_ID: Hex = `0x${"7a".repeat(32)}`;
/** Permit2's nonce bitmaps outlive a fixture's first build; this file signs in its own range. */
const NONCE_BASE = 11n << 64n;
const wethAbi = parseAbi(["function deposit() payable"]);

/**
 * The devnet as deployed (current routers with the propAMM allowlist, the V3 market, the allowlisted
 * WETH/USDC `dev-propamm`), the taker holding WETH and having approved Permit2 and the allowance
 * holder for WETH, USDC and DAI.
 */
async function propAmmMarket() {
  const f = await settlementFixture();
  const propAmm = f.propAmms.find((candidate) => candidate.name === "dev-propamm");
  if (propAmm === undefined) throw new Error("expected the devnet's dev-propamm");
  await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: f.contracts.weth, abi: wethAbi, functionName: "deposit", value: parseEther("100") }) });
  for (const token of [f.contracts.weth, f.token("USDC"), f.token("DAI")]) {
    for (const spender of [f.contracts.permit2, f.contracts.allowanceHolder]) {
      await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: token, abi: erc20Abi, functionName: "approve", args: [spender, maxUint256] }) });
    }
  }
  const venue = f.v3Venues[0];
  if (venue === undefined) throw new Error("expected the uniswap-v3 venue");
  const allowlist = f.contracts.propAmmAllowlist;
  if (allowlist === undefined) throw new Error("expected the devnet's propAMM allowlist");
  const client = { client: { public: f.publicClient, wallet: f.deployer } };
  return {
    ...f,
    propAmm,
    venue,
    amm: await hre.viem.getContractAt("DevPropAmm", propAmm.address, client),
    allowlist: getContract({ address: allowlist, abi: propAmmAllowlistAbi, client: { public: f.publicClient, wallet: f.deployer } }),
  };
}

type PropAmmMarket = Awaited<ReturnType<typeof propAmmMarket>>;

async function now(f: PropAmmMarket): Promise<bigint> {
  return (await f.publicClient.getBlock()).timestamp;
}

/** What the propAMM says it pays for `amountIn` of `tokenIn` now (its price does not depend on balances). */
async function quoteProp(f: PropAmmMarket, tokenIn: Address, amountIn: bigint): Promise<bigint> {
  const out = await f.amm.read.getAmountOut([tokenIn === f.propAmm.token0, amountIn]);
  expect(out > 0n).to.equal(true);
  return out;
}

function order(f: PropAmmMarket, sellToken: Address, sellAmount: bigint, buyToken: Address, minBuyAmount: bigint, actions: RouteAction[], deadline: bigint): SwapOrder {
  return { sellToken, sellAmount, buyToken, minBuyAmount, recipient: f.recipient.account.address, deadline, quoteId: QUOTE_ID, actions: encodeRouteActions(actions) };
}

async function sendPermit(f: PropAmmMarket, swap: SwapOrder, nonce: bigint, router: Address = f.routerAddress) {
  const typedData = buildSwapPermitTypedData({ chainId: 4663, permit2: f.contracts.permit2, router, order: swap, nonce: NONCE_BASE + nonce });
  const signature = await f.signerOf(f.taker.account.address).signTypedData(typedData);
  const { data, signatureOffset } = encodeSwapWithPermit(swap, NONCE_BASE + nonce);
  return f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: router, data: patchSignature(data, signatureOffset, signature) }) });
}

/** Neither router keeps any token the tests trade, nor any allowance to the propAMM. */
async function expectRoutersClean(f: PropAmmMarket) {
  for (const router of [f.contracts.takerSwapRouter, f.contracts.gaslessSwapRouter]) {
    for (const token of [f.token("USDC"), f.token("DAI"), f.contracts.weth]) {
      expect(await balanceOf(f, token, router)).to.equal(0n);
      expect(await f.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "allowance", args: [router, f.propAmm.address] })).to.equal(0n);
    }
    expect(await f.publicClient.getBalance({ address: router })).to.equal(0n);
  }
}

const hop = (f: PropAmmMarket, tokenOut: Address): RouteHopAction => ({ type: "swapPropAmm", pair: f.propAmm.address, tokenOut });

describe("propAMM hops (SWAP_PROPAMM) settle through TakerSwapRouterV3 and GaslessBatchSwapRouterV2", () => {
  it("sells WETH for USDC through dev-propamm by Permit2, paying the recipient exactly the propAMM's getAmountOut", async () => {
    const f = await loadFixture(propAmmMarket);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const sellAmount = parseEther("3");
    const expected = await quoteProp(f, weth, sellAmount);
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    const inventory = await balanceOf(f, weth, f.propAmm.address);
    const receipt = await sendPermit(f, order(f, weth, sellAmount, usdc, expected, [hop(f, usdc)], (await now(f)) + 600n), 0n);
    expect(receipt.status).to.equal("success");
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
    expect(await balanceOf(f, weth, f.propAmm.address)).to.equal(inventory + sellAmount);
    await expectRoutersClean(f);
  });

  it("sells USDC for WETH through dev-propamm via the allowance holder (the pair's other direction)", async () => {
    const f = await loadFixture(propAmmMarket);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const sellAmount = parseUnits("4500", 6);
    const expected = await quoteProp(f, usdc, sellAmount);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const swap = order(f, usdc, sellAmount, weth, expected, [hop(f, weth)], (await now(f)) + 600n);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(swap, f.routerAddress) }) });
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersClean(f);
  });

  it("sells native ETH: wraps, then sells the WETH to dev-propamm", async () => {
    const f = await loadFixture(propAmmMarket);
    const usdc = f.token("USDC");
    const sellAmount = parseEther("1.5");
    const expected = await quoteProp(f, f.contracts.weth, sellAmount);
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    const swap = order(f, NATIVE_TOKEN, sellAmount, usdc, expected, [{ type: "wrap" }, hop(f, usdc)], (await now(f)) + 600n);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(swap), value: sellAmount }) });
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersClean(f);
  });

  it("settles gasless propAMM orders alone (swapGasless) and in a batch of both directions (swapGaslessBatch)", async () => {
    const f = await loadFixture(propAmmMarket);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const relayerFee = parseUnits("1", 6);
    const sellAmount = parseUnits("2000", 6);
    const single = order(f, usdc, sellAmount, weth, await quoteProp(f, usdc, sellAmount), [hop(f, weth)], (await now(f)) + 600n);
    const before = await balanceOf(f, weth, f.recipient.account.address);
    const data = await signedGaslessCalldata(f, { order: single, nonce: NONCE_BASE + 10n, relayerFee, relayerFeeRecipient: f.relayer.account.address });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data }) });
    const afterSingle = await balanceOf(f, weth, f.recipient.account.address);
    expect(afterSingle - before).to.equal(single.minBuyAmount);
    await expectRoutersClean(f);

    // A batch: USDC→WETH then WETH→USDC, both through dev-propamm.
    const wethIn = parseEther("0.5");
    const [wethOut, usdcOut] = [await quoteProp(f, usdc, sellAmount), await quoteProp(f, weth, wethIn)];
    const usdcBefore = await balanceOf(f, usdc, f.recipient.account.address);
    const orders = [
      await signedGaslessOrder(f, { order: order(f, usdc, sellAmount, weth, wethOut, [hop(f, weth)], (await now(f)) + 600n), nonce: NONCE_BASE + 11n, relayerFee, relayerFeeRecipient: f.relayer.account.address }),
      await signedGaslessOrder(f, { order: order(f, weth, wethIn, usdc, usdcOut, [hop(f, usdc)], (await now(f)) + 600n), nonce: NONCE_BASE + 12n, relayerFee: 1000n, relayerFeeRecipient: f.relayer.account.address }),
    ];
    const { result } = await f.publicClient.simulateContract({ account: f.relayer.account, address: f.contracts.gaslessSwapRouter, abi: f.gaslessRouter.abi, functionName: "swapGaslessBatch", args: [orders, [1_000_000n, 1_000_000n]] });
    expect(result[0]).to.equal(3n);
    expect(result[1]).to.deep.equal([wethOut, usdcOut]);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.relayer.sendTransaction({ to: f.contracts.gaslessSwapRouter, data: encodeSwapGaslessBatch(orders, [1_000_000n, 1_000_000n]) }) });
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(afterSingle + wethOut);
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(usdcBefore + usdcOut);
    await expectRoutersClean(f);
  });

  it("runs a V2 hop into a propAMM hop: the V2 pair pays the router, which then sells to dev-propamm", async () => {
    const f = await loadFixture(propAmmMarket);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const pair = f.pool("DAI", "WETH");
    const sellAmount = parseUnits("3000", 18);
    const viaV2 = await quoteV2(f, pair, dai, weth, sellAmount);
    const expected = await quoteProp(f, weth, viaV2);
    const before = await balanceOf(f, usdc, f.recipient.account.address);
    await sendPermit(f, order(f, dai, sellAmount, usdc, expected, [{ type: "swapV2", pair, tokenOut: weth, feeBps: 30 }, hop(f, usdc)], (await now(f)) + 600n), 1n);
    expect(await balanceOf(f, usdc, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersClean(f);
  });

  it("runs a propAMM hop into a V2 hop: dev-propamm pays the router, which pays the V2 pair", async () => {
    const f = await loadFixture(propAmmMarket);
    const [usdc, weth, dai] = [f.token("USDC"), f.contracts.weth, f.token("DAI")];
    const pair = f.pool("USDC", "DAI");
    const sellAmount = parseEther("2");
    const viaProp = await quoteProp(f, weth, sellAmount);
    const expected = await quoteV2(f, pair, usdc, dai, viaProp);
    const before = await balanceOf(f, dai, f.recipient.account.address);
    await sendPermit(f, order(f, weth, sellAmount, dai, expected, [hop(f, usdc), { type: "swapV2", pair, tokenOut: dai, feeBps: 30 }], (await now(f)) + 600n), 2n);
    expect(await balanceOf(f, dai, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersClean(f);
  });

  it("splits USDC→WETH across a V2 leg, a V3 leg (uniswap-v3 0.30 %) and a propAMM leg", async () => {
    const f = await loadFixture(propAmmMarket);
    const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
    const sellAmount = parseUnits("9000", 6);
    const [legV2, legV3] = [(sellAmount * 3000n) / 10_000n, (sellAmount * 3000n) / 10_000n];
    const legProp = sellAmount - legV2 - legV3;
    const pair = f.pool("USDC", "WETH");
    const expected = (await quoteV2(f, pair, usdc, weth, legV2)) + (await quoteV3(f, f.venue.quoterV2, usdc, weth, 3000, legV3)) + (await quoteProp(f, usdc, legProp));
    const actions: RouteAction[] = [
      {
        type: "split",
        legs: [
          { shareBps: 3000, hops: [{ type: "swapV2", pair, tokenOut: weth, feeBps: 30 }] },
          { shareBps: 3000, hops: [{ type: "swapV3", tokenOut: weth, fee: 3000, venue: 0 }] },
          { shareBps: 4000, hops: [{ type: "swapPropAmm", pair: f.propAmm.address, tokenOut: weth }] },
        ],
      },
    ];
    const before = await balanceOf(f, weth, f.recipient.account.address);
    await sendPermit(f, order(f, usdc, sellAmount, weth, expected, actions, (await now(f)) + 600n), 3n);
    expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + expected);
    await expectRoutersClean(f);
  });

  describe("refusals", () => {
    async function sendNative(f: PropAmmMarket, to: Address, actions: RouteAction[]) {
      const swap = order(f, NATIVE_TOKEN, parseEther("1"), f.token("USDC"), 1n, actions, (await now(f)) + 600n);
      return f.taker.sendTransaction({ to, data: encodeSwapNative(swap), value: swap.sellAmount });
    }

    it("keeps propAMM hops out of exact-output routes, alone and in a split leg", async () => {
      const f = await loadFixture(propAmmMarket);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      const send = async (actions: RouteAction[]) => {
        const data = encodeSwapExactOutputNative({ sellToken: NATIVE_TOKEN, maxSellAmount: parseEther("1"), buyToken: usdc, buyAmount: parseUnits("100", 6), recipient: f.recipient.account.address, deadline: (await now(f)) + 600n, quoteId: QUOTE_ID, actions: encodeRouteActions(actions) });
        return f.taker.sendTransaction({ to: f.routerAddress, data, value: parseEther("1") });
      };
      await expectRevert(send([{ type: "wrap" }, hop(f, usdc)]), "SwapExactOutputRoute", [1n]);
      const split: RouteAction[] = [{ type: "wrap" }, { type: "split", legs: [{ shareBps: 5000, hops: [hop(f, usdc)] }, { shareBps: 5000, hops: [{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }] }] }];
      // In a split leg, the offset is the hop's within its leg.
      await expectRevert(send(split), "SwapExactOutputRoute", [0n]);
      expect(await balanceOf(f, weth, f.propAmm.address) > 0n).to.equal(true);
    });

    it("refuses dev-propamm once the registry admin removes it from the allowlist, and settles it before", async () => {
      const f = await loadFixture(propAmmMarket);
      const usdc = f.token("USDC");
      const before = await balanceOf(f, usdc, f.recipient.account.address);
      await f.publicClient.waitForTransactionReceipt({ hash: await sendNative(f, f.routerAddress, [{ type: "wrap" }, hop(f, usdc)]) });
      expect((await balanceOf(f, usdc, f.recipient.account.address)) > before).to.equal(true);
      // Only the registry admin may remove it.
      await expectRevert(f.allowlist.write.remove([f.propAmm.address], { account: f.stranger.account }), "PropAmmAllowlistUnauthorized", [f.stranger.account.address]);
      await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.remove([f.propAmm.address], { account: f.deployer.account }) });
      await expectRevert(sendNative(f, f.routerAddress, [{ type: "wrap" }, hop(f, usdc)]), "SwapPropAmmNotAllowed", [f.propAmm.address]);
      await expectRevert(
        sendNative(f, f.routerAddress, [{ type: "wrap" }, { type: "split", legs: [{ shareBps: 5000, hops: [{ type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }] }, { shareBps: 5000, hops: [hop(f, usdc)] }] }]),
        "SwapPropAmmNotAllowed",
        [f.propAmm.address],
      );
      await expectRoutersClean(f);
    });

    it("refuses a propAMM hop whose tokens are not the pair's, from either of its tokens or from neither", async () => {
      const f = await loadFixture(propAmmMarket);
      const dai = f.token("DAI");
      await expectRevert(sendNative(f, f.routerAddress, [{ type: "wrap" }, hop(f, dai)]), "SwapPropAmmTokenMismatch", [f.propAmm.address, f.contracts.weth, dai]);
      // From the pair's token1 (USDC) to a token that is not its token0, and from a token the pair does not trade.
      const usdc = f.token("USDC");
      const weth = f.contracts.weth;
      const fromUsdc = order(f, usdc, parseUnits("10", 6), dai, 1n, [hop(f, dai)], (await now(f)) + 600n);
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(fromUsdc, f.routerAddress) }), "SwapPropAmmTokenMismatch", [f.propAmm.address, usdc, dai]);
      const fromDai = order(f, dai, parseUnits("10", 18), weth, 1n, [hop(f, weth)], (await now(f)) + 600n);
      await expectRevert(f.taker.sendTransaction({ to: f.contracts.allowanceHolder, data: encodeSwapWithAllowance(fromDai, f.routerAddress) }), "SwapPropAmmTokenMismatch", [f.propAmm.address, dai, weth]);
    });

    it("skips a propAMM split leg whose share rounds to nothing, and settles the other leg", async () => {
      const f = await loadFixture(propAmmMarket);
      const [usdc, weth] = [f.token("USDC"), f.contracts.weth];
      // 9,999 raw USDC: the 1 bp leg gets 9,999 / 10,000 = 0 and is not traded.
      const sellAmount = 9_999n;
      const pair = f.pool("USDC", "WETH");
      const expected = await quoteV2(f, pair, usdc, weth, sellAmount);
      const actions: RouteAction[] = [{ type: "split", legs: [{ shareBps: 1, hops: [hop(f, weth)] }, { shareBps: 9_999, hops: [{ type: "swapV2", pair, tokenOut: weth, feeBps: 30 }] }] }];
      const inventory = await balanceOf(f, usdc, f.propAmm.address);
      const before = await balanceOf(f, weth, f.recipient.account.address);
      await sendPermit(f, order(f, usdc, sellAmount, weth, expected, actions, (await now(f)) + 600n), 4n);
      expect(await balanceOf(f, weth, f.recipient.account.address)).to.equal(before + expected);
      expect(await balanceOf(f, usdc, f.propAmm.address)).to.equal(inventory);
      await expectRoutersClean(f);
    });

    it("refuses SWAP_PROPAMM in an earlier router version (TakerSwapRouterV2 has no allowlist)", async () => {
      const f = await loadFixture(propAmmMarket);
      const usdc = f.token("USDC");
      const older = await f.newTakerRouter("TakerSwapRouterV2");
      await migrateFeature(hre, f, f.deployer, f.contracts.routerRegistry, 2n, older);
      await expectRevert(sendNative(f, older, [{ type: "wrap" }, hop(f, usdc)]), "SwapPropAmmNotAllowed", [f.propAmm.address]);
      // The same router settles a V2 route: the refusal is the propAMM hop's.
      const before = await balanceOf(f, usdc, f.recipient.account.address);
      await f.publicClient.waitForTransactionReceipt({ hash: await sendNative(f, older, [{ type: "wrap" }, { type: "swapV2", pair: f.pool("WETH", "USDC"), tokenOut: usdc, feeBps: 30 }]) });
      expect((await balanceOf(f, usdc, f.recipient.account.address)) > before).to.equal(true);
    });
  });
});
