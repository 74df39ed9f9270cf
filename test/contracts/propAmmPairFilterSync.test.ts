import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { encodeFunctionData, getAddress, parseEventLogs, type Address, type Hex } from "viem";
import { GreedyMode, propAmmFixture, swapPropAmmAction, type PropAmmFixture } from "../fixtures/propAmmFixture";
import { expectRevert } from "../helpers/expectRevert";

/**
 * Routers keep a copy of the allowlist's pair filter in their registry-status slot (one warm read on
 * the hot path instead of the allowlist's cold account and slot). These tests prove the copy follows
 * every change, that a pair outside a router's copy is never called by it, and that nothing running
 * inside a settlement can change the copy.
 */

/** The allowlist's 256-bit filter folded to the 128 bits a router keeps (bit `address & 127`). */
const fold = (filter: bigint): bigint => (filter & ((1n << 128n) - 1n)) | (filter >> 128n);

const syncedEventAbi = [{ type: "event", name: "PropAmmPairFilterSynced", inputs: [{ name: "pairFilter", type: "uint128", indexed: false }] }] as const;

/** The routers that copied the filter in the transaction `hash`, with the filter each copied. */
async function filterSyncs(f: PropAmmFixture, hash: Hex): Promise<Map<Address, bigint>> {
  const receipt = await f.publicClient.waitForTransactionReceipt({ hash });
  const events = parseEventLogs({ abi: syncedEventAbi, logs: receipt.logs, eventName: "PropAmmPairFilterSynced" });
  return new Map(events.map((event) => [getAddress(event.address), event.args.pairFilter]));
}

/** A contract from `f.stranger` to allowlist as a pair (a plain token: the allowlist only needs code). */
async function newPairAccount(f: PropAmmFixture): Promise<Address> {
  const token = await hre.viem.deployContract("DevPlainToken", ["Venue", "VEN", 18, f.stranger.account.address], { client: { public: f.publicClient, wallet: f.stranger } });
  return getAddress(token.address);
}

describe("routers' copy of the propAMM pair filter (kept with their registry status)", () => {
  it("every allowlist change makes the current feature-2 and feature-3 routers copy the new filter in the same transaction", async () => {
    const f = await loadFixture(propAmmFixture);
    const pair = await newPairAccount(f);
    const added = await filterSyncs(f, await f.allowlist.write.add([pair, f.token("LINK"), f.token("USDT")]));
    const afterAdd = fold(await f.allowlist.read.pairFilter());
    expect(afterAdd & (1n << (BigInt(pair) & 127n))).to.not.equal(0n);
    expect(added).to.deep.equal(new Map([[f.routerAddress, afterAdd], [getAddress(f.gaslessRouter.address), afterAdd]]));

    const removed = await filterSyncs(f, await f.allowlist.write.remove([pair]));
    const afterRemove = fold(await f.allowlist.read.pairFilter());
    expect(removed).to.deep.equal(new Map([[f.routerAddress, afterRemove], [getAddress(f.gaslessRouter.address), afterRemove]]));
  });

  it("reaches the previous router inside its dwell window too, and a newly activated router copies the filter on activation", async () => {
    const f = await loadFixture(propAmmFixture);
    const outgoing = f.routerAddress;
    const incoming = await f.newTakerRouter();
    await f.publicClient.waitForTransactionReceipt({ hash: await f.registry.write.stage([2n, incoming]) });
    const activation = await filterSyncs(f, await f.registry.write.activate([2n]));
    const current = fold(await f.allowlist.read.pairFilter());
    expect(activation.get(incoming)).to.equal(current);

    const pair = await newPairAccount(f);
    const added = await filterSyncs(f, await f.allowlist.write.add([pair, f.token("LINK"), f.token("USDT")]));
    const afterAdd = fold(await f.allowlist.read.pairFilter());
    expect(added.get(incoming)).to.equal(afterAdd);
    expect(added.get(outgoing)).to.equal(afterAdd);
  });

  it("changes an allowlist whose registry has no routers yet (nothing to sync), as on a chain deployed in that order", async () => {
    const f = await loadFixture(propAmmFixture);
    const client = { public: f.publicClient, wallet: f.deployer };
    const registry = await hre.viem.deployContract("RouterRegistry", [f.deployer.account.address], { client });
    const allowlist = await hre.viem.deployContract("PropAmmAllowlist", [registry.address], { client });
    const pair = await newPairAccount(f);
    const added = await filterSyncs(f, await allowlist.write.add([pair, f.token("LINK"), f.token("USDT")]));
    expect(added.size).to.equal(0);
    expect(await allowlist.read.isPair([pair])).to.equal(true);
    const removed = await filterSyncs(f, await allowlist.write.remove([pair]));
    expect(removed.size).to.equal(0);
    expect(await allowlist.read.isPair([pair])).to.equal(false);
  });

  it("a router whose copy lacks a pair's bit never calls that pair, though allowlisted; after its sync it does", async () => {
    const f = await loadFixture(propAmmFixture);
    // A fresh harness (no registry feature names it, so no change reaches it) has an empty copy.
    const fresh = await hre.viem.deployContract("PropAmmHopsHarness", [f.contracts.weth, f.contracts.routerRegistry, f.allowlist.address], { client: { public: f.publicClient, wallet: f.deployer } });
    const pair = getAddress(f.wethUsdc.address);
    expect(await f.allowlist.read.isPair([pair])).to.equal(true);
    const weth = f.token("WETH");
    await f.publicClient.waitForTransactionReceipt({ hash: await f.taker.writeContract({ address: weth, abi: [{ type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "uint256" }], outputs: [{ type: "bool" }] }], functionName: "approve", args: [fresh.address, 10n ** 18n] }) });
    const swap = () => fresh.simulate.swap([swapPropAmmAction(pair, f.token("USDC")), weth, 10n ** 15n, f.recipient.account.address], { account: f.taker.account });
    await expectRevert(swap(), "SwapPropAmmNotAllowed", [pair]);
    await f.publicClient.waitForTransactionReceipt({ hash: await fresh.write.sync() });
    const { result } = await swap();
    expect(result[0]).to.equal(f.token("USDC"));
    expect(result[1] > 0n).to.equal(true);
  });

  it("cannot be re-synced from inside a settlement (a propAMM calling sync() mid-swap is refused by the lock)", async () => {
    const f = await loadFixture(propAmmFixture);
    const client = { public: f.publicClient, wallet: f.deployer };
    const [usdc, dai] = [f.token("USDC"), f.token("DAI")];
    const greedy = await hre.viem.deployContract("GreedyPropAmm", [usdc, dai], { client });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.allowlist.write.add([greedy.address, usdc, dai]) });
    await f.publicClient.waitForTransactionReceipt({ hash: await f.harness.write.sync() });
    await f.publicClient.waitForTransactionReceipt({ hash: await greedy.write.setMode([GreedyMode.Reenter, f.harnessAddress, encodeFunctionData({ abi: f.harness.abi, functionName: "sync" })]) });
    await expectRevert(f.harness.simulate.swap([swapPropAmmAction(greedy.address, dai), usdc, 1_000n, f.recipient.account.address], { account: f.taker.account }), "SwapReentrantCall");
  });
});
