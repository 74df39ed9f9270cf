import { getAddress, maxUint256, type Address, type Hex } from "viem";
import { sortTokens, v3PoolAddress } from "../../sdk/amm/v3/poolAddress";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { loadNpmArtifact as load } from "./uniswapArtifacts";
import { deployBytecode, writeAndWait } from "./writeAndWait";

/**
 * Uniswap V3's contracts from their published npm builds, deployed unchanged: the pool's creation code
 * is byte for byte the canonical one, so pool addresses (`UNISWAP_V3_POOL_INIT_CODE_HASH`) are the
 * ones Uniswap's own SDK computes.
 */
export const uniswapV3Artifacts = {
  factory: () => load("@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json"),
  pool: () => load("@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json"),
  positionManager: () => load("@uniswap/v3-periphery/artifacts/contracts/NonfungiblePositionManager.sol/NonfungiblePositionManager.json"),
  quoterV2: () => load("@uniswap/v3-periphery/artifacts/contracts/lens/QuoterV2.sol/QuoterV2.json"),
  swapRouter02: () => load("@uniswap/swap-router-contracts/artifacts/contracts/SwapRouter02.sol/SwapRouter02.json"),
};

/** keccak256 of UniswapV3Pool's creation code: the init-code hash of every canonical V3 deployment. */
export const UNISWAP_V3_POOL_INIT_CODE_HASH: Hex = "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";

/** A fee tier: the pool fee in hundredths of a bip (3000 = 0.3 %) and its tick spacing. */
export type V3FeeTier = Readonly<{ fee: number; tickSpacing: number }>;

/** The tiers a freshly deployed UniswapV3Factory enables itself. */
export const UNISWAP_V3_DEFAULT_FEE_TIERS: readonly V3FeeTier[] = [
  { fee: 500, tickSpacing: 10 },
  { fee: 3000, tickSpacing: 60 },
  { fee: 10000, tickSpacing: 200 },
];

/** A V3 venue on chain: its factory, the position manager that mints into its pools, and a QuoterV2 over it. */
export type V3Deployment = Readonly<{
  factory: Address;
  positionManager: Address;
  quoterV2: Address;
  poolInitCodeHash: Hex;
  feeTiers: readonly V3FeeTier[];
}>;

/**
 * Deploys a V3 factory with its position manager and QuoterV2. `extraFeeTiers` are enabled on top of
 * the factory's defaults (a fork venue with tiers of its own). The position manager's token descriptor
 * only renders NFT metadata, which nothing here reads: it is the zero address.
 */
export async function deployUniswapV3(
  clients: HardhatClients,
  deployer: DevWalletClient,
  weth: Address,
  extraFeeTiers: readonly V3FeeTier[] = [],
): Promise<V3Deployment> {
  const factoryArtifact = uniswapV3Artifacts.factory();
  const factory = await deployBytecode(clients, deployer, factoryArtifact);
  for (const tier of extraFeeTiers) {
    await writeAndWait(clients, deployer, { address: factory, abi: factoryArtifact.abi, functionName: "enableFeeAmount", args: [tier.fee, tier.tickSpacing] });
  }
  const positionManager = await deployBytecode(clients, deployer, uniswapV3Artifacts.positionManager(), [factory, weth, "0x0000000000000000000000000000000000000000"]);
  const quoterV2 = await deployBytecode(clients, deployer, uniswapV3Artifacts.quoterV2(), [factory, weth]);
  return {
    factory: getAddress(factory),
    positionManager: getAddress(positionManager),
    quoterV2: getAddress(quoterV2),
    poolInitCodeHash: UNISWAP_V3_POOL_INIT_CODE_HASH,
    feeTiers: [...UNISWAP_V3_DEFAULT_FEE_TIERS, ...extraFeeTiers],
  };
}

/** SwapRouter02 over a V2 factory and a V3 deployment: a peer for the gas bench and a reference in tests. */
export async function deploySwapRouter02(clients: HardhatClients, deployer: DevWalletClient, v2Factory: Address, v3: V3Deployment, weth: Address): Promise<Address> {
  return getAddress(await deployBytecode(clients, deployer, uniswapV3Artifacts.swapRouter02(), [v2Factory, v3.factory, v3.positionManager, weth]));
}

/** sqrt(price) in Q64.96 for a price of token1 per token0 given in raw units (`amount1 / amount0`). */
export function sqrtPriceX96Of(amount1: bigint, amount0: bigint): bigint {
  return sqrtBigInt((amount1 << 192n) / amount0);
}

function sqrtBigInt(value: bigint): bigint {
  if (value < 2n) return value;
  let x = value;
  let y = (x + 1n) >> 1n;
  while (y < x) {
    x = y;
    y = (x + value / x) >> 1n;
  }
  return x;
}

/** Creates (if needed) and initialises the pool of (tokenA, tokenB, fee) at `sqrtPriceX96`; returns its address. */
export async function createV3Pool(
  clients: HardhatClients,
  deployer: DevWalletClient,
  v3: V3Deployment,
  tokenA: Address,
  tokenB: Address,
  fee: number,
  sqrtPriceX96: bigint,
): Promise<Address> {
  const [token0, token1] = sortTokens(tokenA, tokenB);
  await writeAndWait(clients, deployer, {
    address: v3.positionManager,
    abi: uniswapV3Artifacts.positionManager().abi,
    functionName: "createAndInitializePoolIfNecessary",
    args: [token0, token1, fee, sqrtPriceX96],
  });
  return v3PoolAddress(v3.factory, v3.poolInitCodeHash, token0, token1, fee);
}

/** A concentrated position: ticks (multiples of the tier's spacing) and the most of each token it may take. */
export type V3PositionSpec = Readonly<{
  tokenA: Address;
  tokenB: Address;
  fee: number;
  tickLower: number;
  tickUpper: number;
  /** Most of tokenA / tokenB the position may take; what is used depends on where the price sits. */
  amountA: bigint;
  amountB: bigint;
}>;

const ERC20_APPROVE_ABI = [
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "uint256" }], outputs: [{ type: "bool" }] },
] as const;

/**
 * Mints a position through the position manager, from `deployer`'s balances (which must hold the
 * amounts; the manager is approved for them without limit). Returns the position's token id.
 */
export async function mintV3Position(clients: HardhatClients, deployer: DevWalletClient, v3: V3Deployment, position: V3PositionSpec): Promise<bigint> {
  const [token0, token1] = sortTokens(position.tokenA, position.tokenB);
  const aIsToken0 = getAddress(position.tokenA) === token0;
  const [amount0, amount1] = aIsToken0 ? [position.amountA, position.amountB] : [position.amountB, position.amountA];
  for (const token of [token0, token1]) {
    await writeAndWait(clients, deployer, { address: token, abi: ERC20_APPROVE_ABI, functionName: "approve", args: [v3.positionManager, maxUint256] });
  }
  const manager = uniswapV3Artifacts.positionManager();
  const args = [
    {
      token0,
      token1,
      fee: position.fee,
      tickLower: position.tickLower,
      tickUpper: position.tickUpper,
      amount0Desired: amount0,
      amount1Desired: amount1,
      amount0Min: 0n,
      amount1Min: 0n,
      recipient: deployer.account.address,
      deadline: maxUint256,
    },
  ] as const;
  const { result } = await clients.publicClient.simulateContract({ account: deployer.account, address: v3.positionManager, abi: manager.abi, functionName: "mint", args });
  // An in-range mint writes the pool's oracle observation only in a block with a new timestamp: an estimate
  // made in the pool's own second falls short by that write when the mint lands a second later (on Anvil,
  // whose blocks take the wall clock), so the limit carries a margin for it.
  const estimate = await clients.publicClient.estimateContractGas({ account: deployer.account, address: v3.positionManager, abi: manager.abi, functionName: "mint", args });
  await writeAndWait(clients, deployer, { address: v3.positionManager, abi: manager.abi, functionName: "mint", args, gas: estimate + 50_000n });
  return (result as readonly [bigint, bigint, bigint, bigint])[0];
}

/** The tick of a price given as sqrtPriceX96, rounded down to a multiple of `tickSpacing`. */
export function alignedTick(sqrtPriceX96: bigint, tickSpacing: number): number {
  // log_{1.0001}(price) with price = (sqrtPriceX96 / 2^96)^2; floating point is exact enough to pick a range.
  const price = (Number(sqrtPriceX96) / 2 ** 96) ** 2;
  const tick = Math.floor(Math.log(price) / Math.log(1.0001));
  return Math.floor(tick / tickSpacing) * tickSpacing;
}
