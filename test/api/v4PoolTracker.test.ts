import { expect } from "chai";
import hre from "hardhat";
import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { getAddress, parseUnits, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import { getSqrtRatioAtTick, isV4PoolRoutable, uniswapV4PoolManagerAbi, v4PoolId, readV4PoolState, type ManifestV4Pool, type V4PoolKey, type V4PoolState } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { MAX_DISCOVERED_V4_POOLS, V4PoolTracker } from "../../api/quote/venues/uniswapV4/v4PoolTracker";
import { writeAndWait } from "../../scripts/deploy/writeAndWait";
import { v4MarketFixture, type V4MarketFixture } from "../fixtures/v4Market";

/** The parts of a pool's state a swap is priced from (the tick range read is the tracker's own window). */
const priced = (pool: V4PoolState | undefined) =>
  pool === undefined ? undefined : { sqrtPriceX96: pool.sqrtPriceX96, tick: pool.tick, liquidity: pool.liquidity, fee: pool.fee, protocolFee: pool.protocolFee ?? 0, ticks: pool.ticks };

function trackerOf(f: V4MarketFixture, isSupported: (currency: Address) => boolean = () => true, maxDiscoveredPools?: number, isRoutable?: (key: V4PoolKey) => boolean) {
  const tracker = new V4PoolTracker({ poolManager: f.v4.poolManager, stateView: f.v4.stateView, isSupported, maxDiscoveredPools, isRoutable });
  const client = f.publicClient as PublicClient;
  const heads = new ChainHead(client);
  const list = f.v4.manifest.pools;
  return { tracker, client, snapshot: async () => tracker.at(client, await heads.fresh(), list) };
}

/** Every tracked pool equals a fresh StateView read at the snapshot's block (the ticks the read window holds). */
async function expectAsRead(f: V4MarketFixture, snapshot: Awaited<ReturnType<ReturnType<typeof trackerOf>["snapshot"]>>, pools: readonly ManifestV4Pool[]) {
  for (const pool of pools) {
    const id = pool.id.toLowerCase() as Hex;
    const fresh = await readV4PoolState(f.publicClient as PublicClient, f.v4.stateView, f.keyOf(pool), snapshot.block.number);
    const ours = snapshot.pools.get(id);
    expect(ours, id).to.not.equal(undefined);
    expect({ ...priced(ours), ticks: undefined }, id).to.deep.equal({ ...priced(fresh), ticks: undefined });
    // Ticks the fresh window holds are known to the tracker with the same liquidity.
    for (const tick of fresh.ticks) {
      const known = ours!.ticks.find((candidate) => candidate.index === tick.index);
      if (known !== undefined) expect(known, `${id} tick ${tick.index}`).to.deep.equal(tick);
    }
  }
}

describe("V4 pool tracker (PoolManager events over BlockEventFollower)", function () {
  this.timeout(300_000);

  it("reads every listed pool at the first head, then follows swaps from events: a swapped pool equals a fresh read, the others keep their state objects", async () => {
    const f = await loadFixture(v4MarketFixture);
    const { snapshot } = trackerOf(f);
    const first = await snapshot();
    expect(first.pools.size).to.equal(f.v4.manifest.pools.length);
    await expectAsRead(f, first, f.v4.manifest.pools);

    const swapped = f.v4.manifest.pools.find((pool) => pool.currency0 !== zeroAddress && pool.hooks === zeroAddress)!;
    await f.swapExactInput(swapped, true, parseUnits("1000", f.decimalsOf(swapped.currency0)));
    const next = await snapshot();
    await expectAsRead(f, next, f.v4.manifest.pools);
    const id = swapped.id.toLowerCase() as Hex;
    expect(next.pools.get(id)!.sqrtPriceX96 < first.pools.get(id)!.sqrtPriceX96).to.equal(true);
    for (const pool of f.v4.manifest.pools) if (pool.id !== swapped.id) expect(next.pools.get(pool.id.toLowerCase() as Hex), pool.id).to.equal(first.pools.get(pool.id.toLowerCase() as Hex));
  });

  it("adopts a pool initialised later when both currencies are supported (found by its Initialize event), and ignores one of an unsupported currency", async () => {
    const f = await loadFixture(v4MarketFixture);
    const [a, b] = [f.tokens[0]!.address, f.tokens[1]!.address];
    const [currency0, currency1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
    const unsupported = (currency: Address) => currency !== currency1.toLowerCase();
    const supportedTracker = trackerOf(f);
    const refusingTracker = trackerOf(f, unsupported);
    await supportedTracker.snapshot();
    await refusingTracker.snapshot();
    const key = { currency0, currency1, fee: 4321, tickSpacing: 7, hooks: zeroAddress };
    const deployer = f.deployer;
    await writeAndWait(f, deployer, { address: f.v4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [key, getSqrtRatioAtTick(70)] });
    const id = v4PoolId(key).toLowerCase() as Hex;
    const adopted = await supportedTracker.snapshot();
    expect(adopted.pools.get(id)?.tick).to.equal(70);
    expect(adopted.pools.get(id)?.liquidity).to.equal(0n);
    expect(supportedTracker.tracker.initializedPools.map((pool) => v4PoolId(pool).toLowerCase())).to.deep.equal([id]);
    expect((await refusingTracker.snapshot()).pools.has(id)).to.equal(false);
    expect(refusingTracker.tracker.initializedPools).to.deep.equal([]);
  });

  it("follows at most maxDiscoveredPools pools initialised later (the first ones, in chain order); the listed pools are always followed", async () => {
    expect(MAX_DISCOVERED_V4_POOLS).to.be.greaterThan(0);
    const f = await loadFixture(v4MarketFixture);
    const [a, b] = [f.tokens[0]!.address, f.tokens[1]!.address];
    const [currency0, currency1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
    const capped = trackerOf(f, () => true, 2);
    await capped.snapshot();
    const keys = [4321, 4322, 4323].map((fee) => ({ currency0, currency1, fee, tickSpacing: 7, hooks: zeroAddress }));
    for (const key of keys) {
      await writeAndWait(f, f.deployer, { address: f.v4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [key, getSqrtRatioAtTick(70)] });
    }
    const ids = keys.map((key) => v4PoolId(key).toLowerCase() as Hex);
    const after = await capped.snapshot();
    expect(capped.tracker.initializedPools.map((pool) => v4PoolId(pool).toLowerCase())).to.deep.equal(ids.slice(0, 2));
    expect(after.pools.has(ids[0]!)).to.equal(true);
    expect(after.pools.has(ids[1]!)).to.equal(true);
    expect(after.pools.has(ids[2]!)).to.equal(false);
    expect(after.pools.size).to.equal(f.v4.manifest.pools.length + 2);
    // A later pool stays out on later heads too.
    await writeAndWait(f, f.deployer, { address: f.v4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [{ ...keys[0]!, fee: 4324 }, getSqrtRatioAtTick(70)] });
    expect((await capped.snapshot()).pools.size).to.equal(f.v4.manifest.pools.length + 2);
  });

  it("never follows a later pool the hook rule keeps out of routing, so pools initialised with unlisted swap hooks cannot use up the cap", async () => {
    const f = await loadFixture(v4MarketFixture);
    const [a, b] = [f.tokens[0]!.address, f.tokens[1]!.address];
    const [currency0, currency1] = BigInt(a) < BigInt(b) ? [a, b] : [b, a];
    const tracked = trackerOf(f, () => true, 1, (key) => isV4PoolRoutable(key, new Set()));
    await tracked.snapshot();
    // An address whose low bits carry afterSwap (1 << 6) only: anyone may initialise pools naming it.
    const swapHook = getAddress(`0x${"00".repeat(19)}40`);
    const hooked = [5321, 5322].map((fee) => ({ currency0, currency1, fee, tickSpacing: 7, hooks: swapHook }));
    const plain = { currency0, currency1, fee: 5323, tickSpacing: 7, hooks: zeroAddress };
    for (const key of [...hooked, plain]) {
      await writeAndWait(f, f.deployer, { address: f.v4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [key, getSqrtRatioAtTick(70)] });
    }
    const after = await tracked.snapshot();
    expect(tracked.tracker.initializedPools.map((pool) => v4PoolId(pool).toLowerCase())).to.deep.equal([v4PoolId(plain).toLowerCase()]);
    for (const key of hooked) expect(after.pools.has(v4PoolId(key).toLowerCase() as Hex)).to.equal(false);
  });

  it("after a reorg (evm_revert past a swap) re-reads the pools it touched: the tracked state is the chain's again", async () => {
    const f = await loadFixture(v4MarketFixture);
    const { snapshot } = trackerOf(f);
    const before = await snapshot();
    const pool = f.v4.manifest.pools.find((candidate) => candidate.currency0 !== zeroAddress && candidate.hooks === zeroAddress)!;
    const id = pool.id.toLowerCase() as Hex;
    const checkpoint = (await hre.network.provider.request({ method: "evm_snapshot" })) as Hex;
    await f.swapExactInput(pool, false, parseUnits("500", f.decimalsOf(pool.currency1)));
    const moved = await snapshot();
    expect(moved.pools.get(id)!.sqrtPriceX96 > before.pools.get(id)!.sqrtPriceX96).to.equal(true);
    await hre.network.provider.request({ method: "evm_revert", params: [checkpoint] });
    // A different block at the same height: the swap is gone.
    await hre.network.provider.request({ method: "evm_mine" });
    await hre.network.provider.request({ method: "evm_mine" });
    const reverted = await snapshot();
    expect(reverted.pools.get(id)!.sqrtPriceX96).to.equal(before.pools.get(id)!.sqrtPriceX96);
    await expectAsRead(f, reverted, f.v4.manifest.pools);
  });
});
