import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeErrorResult, encodeFunctionData, getAddress, getContractAddress, parseEther, parseEventLogs, size, type Address, type Hex } from "viem";
import { encodeRouteActions, encodeSwapNative, Feature, gaslessSwapRouterAbi, NATIVE_TOKEN } from "../../sdk";
import { propAmmFixture, swapPropAmmAction, type PropAmmFixture } from "../fixtures/propAmmFixture";
import { expectRevert } from "../helpers/expectRevert";

/**
 * Review findings (b) and (c): the allowlist's changes make the propAMM features' routers re-read its
 * pair filter, best-effort. A router whose `sync()` reverts, returns a revert-data bomb or burns its
 * gas never blocks a change (an emergency removal above all); the failure is logged, the other routers
 * still copy the filter, and a router left with a stale copy still keeps the pair rule (its venue call
 * reads the allowlist live). A real chain, the devnet's routers, a test router whose sync fails.
 */

const syncedEventAbi = [{ type: "event", name: "PropAmmPairFilterSynced", inputs: [{ name: "pairFilter", type: "uint128", indexed: false }] }] as const;
const QUOTE_ID: Hex = `0x${"5c".repeat(32)}`;
/** The allowlist's 256-bit filter folded to the 128 bits a router keeps (bit `address & 127`). */
const fold = (filter: bigint): bigint => (filter & ((1n << 128n) - 1n)) | (filter >> 128n);

/** The devnet with a FailingSyncRouter activated as feature 3's current router (the deployed gasless router is its previous one, in its dwell window). */
async function failingRouterFixture() {
  const f = await propAmmFixture();
  const client = { public: f.publicClient, wallet: f.deployer };
  const failing = await hre.viem.deployContract("FailingSyncRouter", [], { client });
  await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.stage([Feature.GaslessSwap, failing.address]) });
  await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.activate([Feature.GaslessSwap]) });
  const [previous, current] = await f.registry.read.getFeature([Feature.GaslessSwap]);
  expect([getAddress(previous), getAddress(current)]).to.deep.equal([getAddress(f.gaslessRouter.address), getAddress(failing.address)]);
  return { ...f, failing, failingAddress: getAddress(failing.address) };
}

/** What the allowlist's change `hash` logged: the routers that copied the filter (with it), and the sync failures (router → reason). */
async function syncOutcome(f: PropAmmFixture, hash: Hex) {
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
  expect(receipt.status).to.equal("success");
  const synced = parseEventLogs({ abi: syncedEventAbi, logs: receipt.logs, eventName: "PropAmmPairFilterSynced" });
  const failed = parseEventLogs({ abi: f.allowlist.abi, logs: receipt.logs, eventName: "PropAmmPairFilterSyncFailed" });
  return {
    receipt,
    synced: new Map(synced.map((event) => [getAddress(event.address), event.args.pairFilter])),
    failed: new Map(failed.map((event) => [getAddress(event.args.router), event.args.reason])),
  };
}

describe("PropAmmAllowlist: routers' filter sync is best-effort, and a stale copy keeps the pair rule", () => {
  it("a removal goes through while feature 3's current router's sync reverts: logged with its revert data, the other routers copy the new filter, and a router whose copy still has the removed pair's bit refuses it as a venue", async () => {
    const f = await loadFixture(failingRouterFixture);
    await f.publicClient.waitForTransactionReceipt({ hash: await f.failing.write.setMode([1]) });
    const pair = getAddress(f.wethUsdc.address);
    const { synced, failed } = await syncOutcome(f, await f.allowlist.write.remove([pair]));
    expect(await f.allowlist.read.isPair([pair])).to.equal(false);
    const filter = fold(await f.allowlist.read.pairFilter());
    expect(synced).to.deep.equal(new Map([[f.routerAddress, filter], [getAddress(f.gaslessRouter.address), filter]]));
    expect(failed).to.deep.equal(new Map([[f.failingAddress, encodeErrorResult({ abi: f.failing.abi, errorName: "FailingSyncRouterRefused", args: [42n] })]]));
    // The harness copied the filter while the pair was listed and was not told of the removal: a
    // stale copy with the pair's bit. Its venue call asks the allowlist live, and is refused.
    const stale = f.harness.simulate.swap([swapPropAmmAction(pair, f.token("USDC")), f.token("WETH"), 10n ** 15n, f.recipient.account.address], { account: f.taker.account });
    await expectRevert(stale, "SwapPropAmmNotAllowed", [pair]);
  });

  it("an addition goes through too, and a router's revert-data bomb or gas burn costs the change only the router's capped share (256 bytes of reason, ROUTER_SYNC_GAS) under viem's own gas estimate", async () => {
    const f = await loadFixture(failingRouterFixture);
    const pair = getAddress(f.wethUsdc.address);
    const [token0, token1] = [await f.wethUsdc.read.token0(), await f.wethUsdc.read.token1()];
    const maxReason = await f.allowlist.read.MAX_SYNC_REASON_BYTES();
    const syncGas = await f.allowlist.read.ROUTER_SYNC_GAS();

    await f.publicClient.waitForTransactionReceipt({ hash: await f.failing.write.setMode([2]) });
    const bombed = await syncOutcome(f, await f.allowlist.write.remove([pair]));
    expect([...bombed.failed.keys()]).to.deep.equal([f.failingAddress]);
    expect(size(bombed.failed.get(f.failingAddress)!)).to.equal(Number(maxReason));
    expect(bombed.synced.size).to.equal(2);

    await f.publicClient.waitForTransactionReceipt({ hash: await f.failing.write.setMode([3]) });
    const burnt = await syncOutcome(f, await f.allowlist.write.add([pair, token0, token1]));
    expect(await f.allowlist.read.isPair([pair])).to.equal(true);
    expect(burnt.failed).to.deep.equal(new Map([[f.failingAddress, "0x"]]));
    const filter = fold(await f.allowlist.read.pairFilter());
    expect(burnt.synced).to.deep.equal(new Map([[f.routerAddress, filter], [getAddress(f.gaslessRouter.address), filter]]));
    expect(burnt.receipt.gasUsed < syncGas + 400_000n, `gas used ${burnt.receipt.gasUsed}`).to.equal(true);

    // Told to sync normally again, anyone's sync() brings the router back in step.
    await f.publicClient.waitForTransactionReceipt({ hash: await f.failing.write.setMode([0]) });
    const again = await syncOutcome(f, await f.allowlist.write.remove([pair]));
    expect(again.failed.size).to.equal(0);
    expect(await f.failing.read.syncs()).to.equal(2n);
  });

  it("ROUTER_SYNC_GAS covers the devnet routers' own sync() at least twice over (a cold registry and allowlist read, one slot written)", async () => {
    const f = await loadFixture(propAmmFixture);
    const syncGas = await f.allowlist.read.ROUTER_SYNC_GAS();
    for (const router of [f.routerAddress, getAddress(f.gaslessRouter.address)]) {
      // The whole transaction's estimate, intrinsic 21,000 included: more than the call itself needs.
      const estimate = await f.publicClient.estimateGas({ account: f.stranger.account, to: router, data: encodeFunctionData({ abi: gaslessSwapRouterAbi, functionName: "sync" }) });
      expect(estimate * 2n < syncGas, `sync() of ${router}: ${estimate} gas`).to.equal(true);
    }
  });

  it("a change sent with less gas than a router's sync needs reverts with PropAmmAllowlistSyncGasShort, never skipping that sync for want of gas", async () => {
    const f = await loadFixture(failingRouterFixture);
    const pair = getAddress(f.wethUsdc.address);
    await expectRevert(f.allowlist.simulate.remove([pair], { gas: 140_000n }), "PropAmmAllowlistSyncGasShort");
    expect(await f.allowlist.read.isPair([pair])).to.equal(true);
  });

  it("folds a pair in the filter's upper half (last byte 0x80 or more) to bit `address & 127` of the routers' copy, and the feature-2 router refuses that pair as a token", async () => {
    const f = await loadFixture(propAmmFixture);
    // A contract at an address whose last byte is in the upper half (from the stranger, at a nonce found for it).
    const from = f.stranger.account.address;
    let nonce = BigInt(await f.publicClient.getTransactionCount({ address: from }));
    const lastByte = (address: Address) => Number(BigInt(address) & 255n);
    while (lastByte(getContractAddress({ from, nonce })) < 0x80 || (await f.allowlist.read.pairFilter()) & (1n << BigInt(lastByte(getContractAddress({ from, nonce })) & 127))) nonce++;
    await hre.network.provider.request({ method: "hardhat_setNonce", params: [from, `0x${nonce.toString(16)}`] });
    const upper = await hre.viem.deployContract("DevPlainToken", ["Upper", "UPP", 18, from], { client: { public: f.publicClient, wallet: f.stranger } });
    const pair = getAddress(upper.address);
    const byte = lastByte(pair);
    const { synced } = await syncOutcome(f, await f.allowlist.write.add([pair, f.token("LINK"), f.token("USDT")]));
    const full = await f.allowlist.read.pairFilter();
    expect([(full >> BigInt(byte)) & 1n, (full >> BigInt(byte - 128)) & 1n]).to.deep.equal([1n, 0n]);
    const copy = synced.get(f.routerAddress)!;
    expect((copy >> BigInt(byte - 128)) & 1n).to.equal(1n);
    expect(copy).to.equal(fold(full));
    const order = {
      sellToken: NATIVE_TOKEN,
      sellAmount: parseEther("1"),
      buyToken: pair,
      minBuyAmount: 1n,
      recipient: f.recipient.account.address,
      deadline: (await f.publicClient.getBlock()).timestamp + 600n,
      quoteId: QUOTE_ID,
      actions: encodeRouteActions([{ type: "wrap" }, { type: "swapV2", pair: f.pool("LINK", "WETH"), tokenOut: pair, feeBps: 30 }]),
    };
    await expectRevert(f.taker.sendTransaction({ to: f.routerAddress, data: encodeSwapNative(order), value: order.sellAmount }), "SwapTokenIsPropAmm", [pair]);
  });
});
