import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, maxUint256, zeroAddress, type Address } from "viem";
import { getSqrtRatioAtTick } from "../../sdk/amm/v3/tickMath";
import { liquidityForAmounts } from "../../sdk/amm/v3/liquidityAmounts";
import { V4_HOOK_FLAGS } from "../../sdk/amm/v4/hookPermissions";
import { sortCurrencies, v4PoolId, type V4PoolKey } from "../../sdk/amm/v4/poolKey";
import { uniswapV4PoolManagerAbi } from "../../sdk/abis/uniswapV4Abi";
import type { ManifestUniswapV4, ManifestV4Pool } from "../../sdk/chain/manifest";
import type { DeployedToken } from "./deployLiquidity";
import { amountFor, intendedSqrtPriceX96, positionTicks, type PricedPoolSpec, type PricedToken } from "./deployV3Market";
import { DEV_TOKENS, WETH_USD_PRICE } from "./devnetMarket";
import { DEV_V4_POOLS, type DevV4Hook, type DevV4PoolSpec } from "./devnetV4Market";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { uniswapArtifacts } from "./uniswapArtifacts";
import { deployUniswapV4, initCodeOf, mineHookSalt, uniswapV4Artifacts, type V4Deployment } from "./uniswapV4";
import { deployBytecode, writeAndWait } from "./writeAndWait";

/** The devnet's V4 venue name, as leg names and `excluded_sources` use it. */
export const UNISWAP_V4_VENUE = "uniswap-v4";

/** Each devnet hook's contract and the permission bits its address must carry. */
const HOOKS: Readonly<Record<DevV4Hook, { contract: string; flags: number }>> = {
  observer: { contract: "DevV4SwapObserverHook", flags: V4_HOOK_FLAGS.afterSwap },
  swapFee: { contract: "DevV4SwapFeeHook", flags: V4_HOOK_FLAGS.afterSwap | V4_HOOK_FLAGS.afterSwapReturnsDelta },
};

const ERC20_APPROVE_ABI = [
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "uint256" }], outputs: [{ type: "bool" }] },
] as const;

/**
 * A position's liquidity is rounded down from the amounts, but the pool rounds what it takes up: a
 * position may ask a few wei more than its amounts, so each is funded 1 % over.
 */
function withMargin(amount: bigint): bigint {
  return amount + amount / 100n + 10n;
}

/** A V4 pool spec against the deployed tokens and hooks. */
type ResolvedV4Pool = PricedPoolSpec & Readonly<{ spec: DevV4PoolSpec; key: V4PoolKey }>;

/** The devnet's V4 deployment: the contracts, the hooks by name, and the manifest's record. */
export type DevnetV4 = V4Deployment & Readonly<{ hooks: Readonly<Record<DevV4Hook, Address>>; manifest: ManifestUniswapV4 }>;

/**
 * Deploys each devnet hook by CREATE2 (through a small deployer of ours) at a mined salt, so that its
 * address's low 14 bits are exactly the permissions it implements: the PoolManager refuses a pool
 * whose hook address claims a permission its flags check fails.
 */
async function deployHooks(hre: HardhatRuntimeEnvironment, clients: HardhatClients, deployer: DevWalletClient, poolManager: Address): Promise<Record<DevV4Hook, Address>> {
  const create2Artifact = await hre.artifacts.readArtifact("DevCreate2Deployer");
  const create2 = await deployBytecode(clients, deployer, { abi: create2Artifact.abi, bytecode: create2Artifact.bytecode as `0x${string}` });
  const hooks = {} as Record<DevV4Hook, Address>;
  for (const [name, { contract, flags }] of Object.entries(HOOKS) as [DevV4Hook, (typeof HOOKS)[DevV4Hook]][]) {
    const artifact = await hre.artifacts.readArtifact(contract);
    const { initCode, initCodeHash } = initCodeOf({ abi: artifact.abi, bytecode: artifact.bytecode as `0x${string}` }, [poolManager]);
    const { salt, address } = mineHookSalt(create2, initCodeHash, flags);
    await writeAndWait(clients, deployer, { address: create2, abi: create2Artifact.abi, functionName: "deploy", args: [salt, initCode] });
    hooks[name] = address;
  }
  return hooks;
}

/** DEV_V4_POOLS (or `pools`) against the deployed tokens ("ETH" is native ETH) and hooks; throws on an unknown symbol. */
export function resolveV4Market(tokens: readonly DeployedToken[], hooks: Readonly<Record<DevV4Hook, Address>>, pools: readonly DevV4PoolSpec[] = DEV_V4_POOLS): ResolvedV4Pool[] {
  const usdPrices = new Map<string, number>([["WETH", WETH_USD_PRICE], ["ETH", WETH_USD_PRICE], ...DEV_TOKENS.map((token) => [token.symbol, token.usdPrice] as const)]);
  const token = (symbol: string): PricedToken => {
    const usdPrice = usdPrices.get(symbol);
    if (symbol === "ETH" && usdPrice !== undefined) return { address: zeroAddress, decimals: 18, usdPrice };
    const deployed = tokens.find((candidate) => candidate.symbol === symbol);
    if (deployed === undefined || usdPrice === undefined) throw new Error(`the devnet V4 market names unknown token ${symbol}`);
    return { address: deployed.address, decimals: deployed.decimals, usdPrice };
  };
  return pools.map((spec) => {
    const [a, b] = [token(spec.a), token(spec.b)];
    const [currency0, currency1] = sortCurrencies(a.address, b.address);
    const key: V4PoolKey = { currency0, currency1, fee: spec.fee, tickSpacing: spec.tickSpacing, hooks: spec.hook === undefined ? zeroAddress : hooks[spec.hook] };
    return { spec, tickSpacing: spec.tickSpacing, a, b, key };
  });
}

/**
 * Uniswap V4 on the devnet: the PoolManager, V4Quoter, StateView and v4-core's test routers from
 * their npm build, the two hooks, and DEV_V4_POOLS initialised at their prices with their positions
 * (through PoolModifyLiquidityTest, paid from the deployer: tokens minted, WETH wrapped, native ETH
 * sent as value and the rest refunded). Runs after every other devnet deployment.
 */
export async function deployV4Market(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  tokens: readonly DeployedToken[],
  weth: Address,
  pools: readonly DevV4PoolSpec[] = DEV_V4_POOLS,
): Promise<DevnetV4> {
  const startBlock = Number(await clients.publicClient.getBlockNumber()) + 1;
  const v4 = await deployUniswapV4(clients, deployer);
  const hooks = await deployHooks(hre, clients, deployer, v4.poolManager);
  const resolved = resolveV4Market(tokens, hooks, pools);

  const needed = new Map<Address, bigint>();
  for (const pool of resolved) {
    for (const side of [pool.a, pool.b]) {
      if (side.address === zeroAddress) continue;
      for (const position of pool.spec.positions) needed.set(side.address, (needed.get(side.address) ?? 0n) + withMargin(amountFor(position.usdPerSide, side)));
    }
  }
  const devTokenAbi = (await hre.artifacts.readArtifact("DevToken")).abi;
  for (const [token, amount] of needed) {
    if (token === weth) await writeAndWait(clients, deployer, { address: weth, abi: uniswapArtifacts.weth9().abi, functionName: "deposit", value: amount });
    else await writeAndWait(clients, deployer, { address: token, abi: devTokenAbi, functionName: "mint", args: [deployer.account.address, amount] });
    await writeAndWait(clients, deployer, { address: token, abi: ERC20_APPROVE_ABI, functionName: "approve", args: [v4.modifyLiquidityRouter, maxUint256] });
  }

  const routerAbi = uniswapV4Artifacts.modifyLiquidityRouter().abi;
  const manifestPools: ManifestV4Pool[] = [];
  for (const pool of resolved) {
    const sqrtPriceX96 = intendedSqrtPriceX96(pool);
    await writeAndWait(clients, deployer, { address: v4.poolManager, abi: uniswapV4PoolManagerAbi, functionName: "initialize", args: [pool.key, sqrtPriceX96] });
    const aIsCurrency0 = pool.key.currency0 === pool.a.address;
    for (const position of pool.spec.positions) {
      const { tickLower, tickUpper } = positionTicks(pool, position);
      const [amountA, amountB] = [amountFor(position.usdPerSide, pool.a), amountFor(position.usdPerSide, pool.b)];
      const [amount0, amount1] = aIsCurrency0 ? [amountA, amountB] : [amountB, amountA];
      const liquidity = liquidityForAmounts(sqrtPriceX96, getSqrtRatioAtTick(tickLower), getSqrtRatioAtTick(tickUpper), amount0, amount1);
      // Native ETH is paid as value (ETH is always currency0); the router refunds what the position did not take.
      const value = pool.key.currency0 === zeroAddress ? withMargin(amount0) : 0n;
      await writeAndWait(clients, deployer, {
        address: v4.modifyLiquidityRouter,
        abi: routerAbi,
        functionName: "modifyLiquidity",
        args: [pool.key, { tickLower, tickUpper, liquidityDelta: liquidity, salt: `0x${"0".repeat(64)}` }, "0x"],
        value,
      } as unknown as Parameters<typeof writeAndWait>[2]);
    }
    manifestPools.push({ id: v4PoolId(pool.key), ...pool.key, currency0: getAddress(pool.key.currency0), currency1: getAddress(pool.key.currency1), source: UNISWAP_V4_VENUE });
  }
  const manifest: ManifestUniswapV4 = {
    name: UNISWAP_V4_VENUE,
    poolManager: v4.poolManager,
    v4Quoter: v4.v4Quoter,
    stateView: v4.stateView,
    startBlock,
    pools: manifestPools,
    hooks: Object.entries(hooks).map(([name, address]) => ({ name, address })),
  };
  return { ...v4, hooks, manifest };
}
