/**
 * What `npm run bench:routing` measures on one market size, apart from HTTP load: how long the pool
 * state takes to catch up with a block that touches a share of the pools, what holding it costs in
 * memory, and what split routes gain over the best single path.
 */
import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { encodeFunctionData, toHex, type Abi, type Address, type PublicClient } from "viem";
import type { DeploymentManifest } from "../../sdk";
import { v2PoolsOf } from "../../sdk";
import { ChainHead } from "../../sdk/chain/chainHead";
import { PoolStateTracker, type PoolSnapshot } from "../../api/quote/market/poolState";
import { searchRoute } from "../../api/quote/routing/prunedRouteSearch";
import { isV2Pool } from "../../api/quote/venues/pricedPool";
import { ASSUMED_PRIORITY_FEE_WEI, bestExecution } from "../../api/quote/routing/splitDecision";
import { uniswapArtifacts } from "../deploy/uniswapArtifacts";
import { seededRandom } from "../market/generateMarket";

export type AbsorbResult = { fraction: number; pools: number; ms: number };
export type SplitResult = { orderOfDepth: number; sellUsdc: string; singleOut: string; splitOut: string; legs: number; gainBps: number };
export type StateResult = { fullReadMs: number; heapMiB: number; absorb: AbsorbResult[]; split: SplitResult[] };

function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** Moves `count` seeded-random pools in one block: DevToken side minted into the pair, then `sync`. */
async function touchPools(hre: HardhatRuntimeEnvironment, snapshot: PoolSnapshot, weth: Address, count: number, seed: number, devTokenAbi: Abi, from: Address): Promise<void> {
  const random = seededRandom(seed);
  const pools = [...snapshot.pools.values()].filter(isV2Pool).map((pool) => ({ pool, order: random() })).sort((a, b) => a.order - b.order).slice(0, count);
  const pairAbi = uniswapArtifacts.pair().abi;
  await hre.network.provider.request({ method: "evm_setAutomine", params: [false] });
  try {
    for (const { pool } of pools) {
      const zeroIsWeth = pool.token0 === weth.toLowerCase();
      const [token, reserve] = zeroIsWeth ? [pool.token1, pool.reserve1] : [pool.token0, pool.reserve0];
      const mint = encodeFunctionData({ abi: devTokenAbi, functionName: "mint", args: [pool.address, reserve / 1000n + 1n] });
      await hre.network.provider.request({ method: "eth_sendTransaction", params: [{ from, to: token, data: mint, gas: toHex(120_000n) }] });
      const sync = encodeFunctionData({ abi: pairAbi, functionName: "sync" });
      await hre.network.provider.request({ method: "eth_sendTransaction", params: [{ from, to: pool.address, data: sync, gas: toHex(120_000n) }] });
    }
    await hre.network.provider.request({ method: "evm_mine" });
  } finally {
    await hre.network.provider.request({ method: "evm_setAutomine", params: [true] });
  }
}

/** Follows the market's pools with a tracker of its own (the API's code, without HTTP around it). */
async function followPools(
  hre: HardhatRuntimeEnvironment,
  client: PublicClient,
  manifest: DeploymentManifest,
  devTokenAbi: Abi,
  from: Address,
): Promise<Omit<StateResult, "heapMiB"> & { held: { tracker?: PoolStateTracker; snapshot?: PoolSnapshot } }> {
  const held: { tracker?: PoolStateTracker; snapshot?: PoolSnapshot } = {};
  const tracker = new PoolStateTracker({ factory: { address: manifest.contracts.uniswapV2Factory, feeBps: 30 }, isSupported: () => true, observeReads: () => undefined });
  const heads = new ChainHead(client);
  let started = performance.now();
  const v2Pools = v2PoolsOf(manifest);
  let snapshot = await tracker.at(client, await heads.fresh(), v2Pools);
  const fullReadMs = performance.now() - started;
  if (snapshot.pools.size !== v2Pools.length) throw new Error(`${v2Pools.length - snapshot.pools.size} pools could not be read`);

  const absorb: AbsorbResult[] = [];
  for (const fraction of [0.01, 0.1, 1]) {
    const count = Math.max(1, Math.round(v2Pools.length * fraction));
    await touchPools(hre, snapshot, manifest.contracts.weth, count, 7 + absorb.length, devTokenAbi, from);
    const head = await heads.fresh();
    started = performance.now();
    snapshot = await tracker.at(client, head, v2Pools);
    absorb.push({ fraction, pools: count, ms: performance.now() - started });
  }

  const usdc = manifest.tokens.find((token) => token.symbol === "USDC")!.address.toLowerCase() as Address;
  const weth = manifest.contracts.weth.toLowerCase() as Address;
  const hub = [...snapshot.pools.values()].filter(isV2Pool).find((pool) => [pool.token0, pool.token1].includes(usdc) && [pool.token0, pool.token1].includes(weth))!;
  const depth = hub.token0 === usdc ? hub.reserve0 : hub.reserve1;
  const gasPrice = snapshot.block.baseFeePerGas + ASSUMED_PRIORITY_FEE_WEI;
  const split: SplitResult[] = [0.001, 0.01, 0.1].map((orderOfDepth) => {
    const amount = (depth * BigInt(orderOfDepth * 1000)) / 1000n;
    // What GET /quote would settle: the best single path, or a split when it pays more after its gas.
    const single = searchRoute(snapshot, usdc, weth, amount)!;
    const found = bestExecution(snapshot, usdc, weth, amount, single, gasPrice, weth);
    const gainBps = Number(((found.amountOut - single.amountOut) * 1_000_000n) / single.amountOut) / 100;
    return { orderOfDepth, sellUsdc: amount.toString(), singleOut: single.amountOut.toString(), splitOut: found.amountOut.toString(), legs: found.legs.length, gainBps };
  });
  return { fullReadMs, absorb, split, held: Object.assign(held, { tracker, snapshot }) };
}

/** `followPools`, and the heap its state holds: the heap with it, less the heap once it is dropped. */
export async function measurePoolState(hre: HardhatRuntimeEnvironment, client: PublicClient, manifest: DeploymentManifest, devTokenAbi: Abi, from: Address): Promise<StateResult> {
  const { held, ...result } = await followPools(hre, client, manifest, devTokenAbi, from);
  const withState = heapUsed();
  delete held.tracker;
  delete held.snapshot;
  return { ...result, heapMiB: (withState - heapUsed()) / 2 ** 20 };
}
