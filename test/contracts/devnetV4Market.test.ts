import { loadFixture } from "@nomicfoundation/hardhat-network-helpers";
import { expect } from "chai";
import fc from "fast-check";
import { getAddress, parseEventLogs, parseUnits, zeroAddress, type Address, type Hex } from "viem";
import hre from "hardhat";
import {
  DYNAMIC_FEE_FLAG,
  V4_HOOK_FLAGS,
  applyV4PoolEvents,
  hookFlagsOf,
  isV4PoolRoutable,
  quoteConcentratedExactInput,
  readV4PoolEvents,
  uniswapV4QuoterAbi,
  uniswapV4StateViewAbi,
  v4HookExclusion,
  v4PoolId,
} from "../../sdk";
import type { ManifestV4Pool } from "../../sdk/chain/manifest";
import { DEV_V4_POOLS } from "../../scripts/deploy/devnetV4Market";
import { UNISWAP_V4_VENUE } from "../../scripts/deploy/deployV4Market";
import { legName } from "../../api/quote/venues/venueAdapters";
import { v4MarketFixture, type V4MarketFixture } from "../fixtures/v4Market";
import { fuzzRuns } from "../helpers/fuzzRuns";

async function followed(f: V4MarketFixture) {
  const events = await readV4PoolEvents(f.publicClient, f.v4.poolManager, { fromBlock: BigInt(f.v4.manifest.startBlock), toBlock: await f.publicClient.getBlockNumber() });
  return applyV4PoolEvents(new Map(), events);
}

async function quoteExactIn(f: V4MarketFixture, pool: ManifestV4Pool, zeroForOne: boolean, amount: bigint): Promise<bigint> {
  const { result } = await f.publicClient.simulateContract({
    address: f.v4.v4Quoter,
    abi: uniswapV4QuoterAbi,
    functionName: "quoteExactInputSingle",
    args: [{ poolKey: f.keyOf(pool), zeroForOne, exactAmount: amount, hookData: "0x" }],
  });
  return result[0];
}

function poolWithHook(f: V4MarketFixture, hook: "observer" | "swapFee"): ManifestV4Pool {
  return f.v4.manifest.pools.find((pool) => pool.hooks === f.v4.hooks[hook])!;
}

describe("the devnet's Uniswap V4 market", function () {
  this.timeout(300_000);

  it("runs the real PoolManager, V4Quoter and StateView from v4-periphery's build, and lists every declared pool with its id and key", async () => {
    const f = await loadFixture(v4MarketFixture);
    for (const address of [f.v4.poolManager, f.v4.v4Quoter, f.v4.stateView]) expect(await f.publicClient.getCode({ address })).to.match(/^0x[0-9a-f]{100,}/);
    expect(f.v4.manifest.name).to.equal(UNISWAP_V4_VENUE);
    const declared = f.v4.manifest.pools.slice(0, DEV_V4_POOLS.length);
    expect(declared.map((pool) => [pool.fee, pool.tickSpacing])).to.deep.equal(DEV_V4_POOLS.map((spec) => [spec.fee, spec.tickSpacing]));
    for (const pool of f.v4.manifest.pools) {
      expect(pool.id).to.equal(v4PoolId(f.keyOf(pool)));
      expect(BigInt(pool.currency0) < BigInt(pool.currency1), "currencies sorted").to.equal(true);
      const [sqrtPriceX96] = await f.publicClient.readContract({ address: f.v4.stateView, abi: uniswapV4StateViewAbi, functionName: "getSlot0", args: [pool.id] });
      expect(sqrtPriceX96 > 0n, `${pool.id} initialised`).to.equal(true);
      const liquidity = await f.publicClient.readContract({ address: f.v4.stateView, abi: uniswapV4StateViewAbi, functionName: "getLiquidity", args: [pool.id] });
      expect(liquidity > 0n, `${pool.id} has liquidity at its price`).to.equal(true);
    }
  });

  it("has a native-ETH pool, tick spacings V3 lacks, and positions out of range on both sides", async () => {
    const f = await loadFixture(v4MarketFixture);
    const pools = f.v4.manifest.pools.slice(0, DEV_V4_POOLS.length);
    expect(pools.some((pool) => pool.currency0 === zeroAddress), "a pool holding native ETH").to.equal(true);
    expect(pools.some((pool) => ![1, 10, 60, 200].includes(pool.tickSpacing))).to.equal(true);
    const states = await followed(f);
    let above = 0;
    let below = 0;
    for (const pool of pools) {
      const state = states.get(pool.id.toLowerCase() as Hex)!;
      if (state.ticks.filter((tick) => tick.index > state.tick && tick.liquidityNet > 0n).length > 0) above++;
      if (state.ticks.filter((tick) => tick.index <= state.tick && tick.liquidityNet < 0n).length > 0) below++;
    }
    expect(above, "pools with a position entirely above the price").to.be.greaterThan(0);
    expect(below, "pools with a position entirely below the price").to.be.greaterThan(0);
  });

  it("places each hook at an address whose low 14 bits are exactly its permissions", async () => {
    const f = await loadFixture(v4MarketFixture);
    expect(hookFlagsOf(f.v4.hooks.observer)).to.equal(V4_HOOK_FLAGS.afterSwap);
    expect(hookFlagsOf(f.v4.hooks.swapFee)).to.equal(V4_HOOK_FLAGS.afterSwap | V4_HOOK_FLAGS.afterSwapReturnsDelta);
    expect(f.v4.manifest.hooks?.map((hook) => hook.name)).to.have.members(["observer", "swapFee"]);
  });

  it("routes the observing hook's pool only once its hook is allowlisted (an afterSwap hook runs code in every swap), and then as a plain pool: its swaps return what the curve says, and the hook sees each one", async () => {
    const f = await loadFixture(v4MarketFixture);
    const pool = poolWithHook(f, "observer");
    expect(v4HookExclusion(pool)).to.equal("swap-hook");
    expect(isV4PoolRoutable(pool, new Set())).to.equal(false);
    expect(isV4PoolRoutable(pool, new Set([pool.hooks.toLowerCase()]))).to.equal(true);
    const state = (await followed(f)).get(pool.id.toLowerCase() as Hex)!;
    const amount = parseUnits("2500", f.decimalsOf(pool.currency0));
    const ours = quoteConcentratedExactInput(state, true, amount)!;
    expect(await quoteExactIn(f, pool, true, amount)).to.equal(ours.amountOut);
    const hash = await f.swapExactInput(pool, true, amount);
    const receipt = await f.publicClient.getTransactionReceipt({ hash });
    const observed = parseEventLogs({ abi: (await hre.artifacts.readArtifact("DevV4SwapObserverHook")).abi, logs: receipt.logs, eventName: "SwapObserved" });
    expect(observed).to.have.length(1);
    expect(observed[0]!.args.poolId).to.equal(pool.id);
    expect(-observed[0]!.args.amount0).to.equal(amount);
    expect(observed[0]!.args.amount1).to.equal(ours.amountOut);
  });

  it("leaves the delta-returning hook's pool out unless its hook is allowlisted, because its swaps return less than the pool's curve", async () => {
    const f = await loadFixture(v4MarketFixture);
    const pool = poolWithHook(f, "swapFee");
    expect(v4HookExclusion(pool)).to.equal("returns-delta");
    expect(isV4PoolRoutable(pool, new Set())).to.equal(false);
    expect(isV4PoolRoutable(pool, new Set([pool.hooks.toLowerCase()]))).to.equal(true);
    const state = (await followed(f)).get(pool.id.toLowerCase() as Hex)!;
    for (const zeroForOne of [true, false]) {
      // One whole unit of the input: the pool's currencies are sorted by address, which the deploy order sets.
      const amount = parseUnits("1", f.decimalsOf(zeroForOne ? pool.currency0 : pool.currency1));
      const curve = quoteConcentratedExactInput(state, zeroForOne, amount)!.amountOut;
      // The hook keeps 50 bps of the output: V4Quoter (which runs the hook) sees that, the curve does not.
      expect(await quoteExactIn(f, pool, zeroForOne, amount)).to.equal(curve - (curve * 50n) / 10_000n);
    }
  });

  it("excludes exactly the pools whose hook takes part in swaps (beforeSwap, afterSwap or a swap return-delta flag) unless allowlisted, for any hook address", async () => {
    const addressWith = (flags: number, high: bigint): Address => getAddress(`0x${((high << 14n) | BigInt(flags)).toString(16).padStart(40, "0")}`);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: (1 << 14) - 1 }), fc.bigInt({ min: 1n, max: (1n << 146n) - 1n }), fc.boolean(), fc.integer({ min: 0, max: 1_000_000 }), (flags, high, dynamic, fee) => {
        const key = { fee: dynamic ? DYNAMIC_FEE_FLAG : fee, hooks: addressWith(flags, high) };
        const returnsDelta = (flags & (V4_HOOK_FLAGS.beforeSwapReturnsDelta | V4_HOOK_FLAGS.afterSwapReturnsDelta)) !== 0;
        const overridesFee = dynamic && (flags & V4_HOOK_FLAGS.beforeSwap) !== 0;
        const swapHook = (flags & (V4_HOOK_FLAGS.beforeSwap | V4_HOOK_FLAGS.afterSwap)) !== 0;
        expect(v4HookExclusion(key)).to.equal(returnsDelta ? "returns-delta" : overridesFee ? "unreadable-fee" : swapHook ? "swap-hook" : undefined);
        expect(isV4PoolRoutable(key, new Set())).to.equal(!returnsDelta && !overridesFee && !swapHook);
        expect(isV4PoolRoutable(key, new Set([key.hooks.toLowerCase()]))).to.equal(true);
      }),
      fuzzRuns(200),
    );
  });

  it("names a V4 leg uniswap-v4:chain-<id>:<poolId>:<fee>", async () => {
    const f = await loadFixture(v4MarketFixture);
    const pool = f.v4.manifest.pools[0]!;
    const state = (await followed(f)).get(pool.id.toLowerCase() as Hex)!;
    const routed = { kind: "v4", address: state.address, token0: state.token0, token1: state.token1, source: pool.source, state, revision: 2 };
    expect(legName(routed, 4663)).to.equal(`uniswap-v4:chain-4663:${pool.id.toLowerCase()}:${pool.fee}`);
  });
});
