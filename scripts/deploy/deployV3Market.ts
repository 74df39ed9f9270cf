import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { encodeFunctionData, maxUint256, parseUnits, type Address, type Hex } from "viem";
import type { ManifestV3Pool } from "../../sdk/chain/manifest";
import type { DeployedToken } from "./deployLiquidity";
import { DEV_TOKENS, WETH_USD_PRICE } from "./devnetMarket";
import { DEV_V3_POOLS, type DevV3PoolSpec, type DevV3PositionSpec } from "./devnetV3Market";
import type { DevnetV3Venue } from "./devnetV3Venues";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { uniswapArtifacts } from "./uniswapArtifacts";
import { sortTokens, v3PoolAddress } from "../../sdk/amm/v3/poolAddress";
import { sqrtPriceX96Of, uniswapV3Artifacts } from "./uniswapV3";
import { writeAndWait } from "./writeAndWait";

/** The outermost ticks a V3 pool accepts (TickMath.MIN_TICK / MAX_TICK). */
const MIN_TICK = -887_272;
const MAX_TICK = 887_272;

export type PricedToken = Readonly<{ address: Address; decimals: number; usdPrice: number }>;

/** `usd` worth of `token` in its base units, at the devnet's reference price. */
export function amountFor(usd: number, token: PricedToken): bigint {
  return parseUnits((usd / token.usdPrice).toFixed(Math.min(token.decimals, 12)), token.decimals);
}

/** A pool spec resolved against the deployed tokens and venues. */
export type ResolvedPool = Readonly<{ spec: DevV3PoolSpec; venue: DevnetV3Venue; tickSpacing: number; a: PricedToken; b: PricedToken }>;

/** What pricing a pool and placing its positions need of it (a V4 pool has these too, without a V3 venue). */
export type PricedPoolSpec = Readonly<{ spec: Pick<DevV3PoolSpec, "priceOffsetBps">; tickSpacing: number; a: PricedToken; b: PricedToken }>;

/**
 * The pool's price as raw amounts: `usd` worth of `a`, and what it buys of `b` at the reference
 * price moved by `priceOffsetBps`. A large `usd` keeps the ratio exact to far below a bp.
 */
function priceAmounts(pool: PricedPoolSpec): { amountA: bigint; amountB: bigint } {
  const usd = 1_000_000;
  return { amountA: amountFor(usd, pool.a), amountB: amountFor(usd * (1 + pool.spec.priceOffsetBps / 10_000), pool.b) };
}

/** Whether `a` is the pool's token0 (the lower address). */
function isToken0(a: PricedToken, b: PricedToken): boolean {
  return a.address.toLowerCase() < b.address.toLowerCase();
}

/** sqrtPriceX96 of the pool (token1 per token0) at its intended price. */
export function intendedSqrtPriceX96(pool: PricedPoolSpec): bigint {
  const { amountA, amountB } = priceAmounts(pool);
  const aIsToken0 = isToken0(pool.a, pool.b);
  return aIsToken0 ? sqrtPriceX96Of(amountB, amountA) : sqrtPriceX96Of(amountA, amountB);
}

/**
 * A position's ticks. The range is in percent of the price of `a` in `b`; when `a` is token1 the
 * pool's price is its inverse, so the bounds swap. Bounds round outwards to the tick spacing, except
 * that a range lying entirely on one side of the price rounds its near bound away from the price.
 */
export function positionTicks(pool: PricedPoolSpec, position: DevV3PositionSpec): { tickLower: number; tickUpper: number } {
  const spacing = pool.tickSpacing;
  if (position.range === "full") return { tickLower: Math.ceil(MIN_TICK / spacing) * spacing, tickUpper: Math.floor(MAX_TICK / spacing) * spacing };
  const { amountA, amountB } = priceAmounts(pool);
  const aIsToken0 = isToken0(pool.a, pool.b);
  const poolPrice = aIsToken0 ? Number(amountB) / Number(amountA) : Number(amountA) / Number(amountB);
  const [lowerPct, upperPct] = position.range;
  const factors = aIsToken0 ? [1 + lowerPct / 100, 1 + upperPct / 100] : [1 / (1 + upperPct / 100), 1 / (1 + lowerPct / 100)];
  const [low, high] = factors as [number, number];
  const tickOf = (factor: number) => Math.log(poolPrice * factor) / Math.log(1.0001);
  let tickLower = (low > 1 ? Math.ceil(tickOf(low) / spacing) : Math.floor(tickOf(low) / spacing)) * spacing;
  let tickUpper = (high < 1 ? Math.floor(tickOf(high) / spacing) : Math.ceil(tickOf(high) / spacing)) * spacing;
  // A one-sided range narrower than the spacing rounds to nothing: it widens away from the price.
  if (tickUpper <= tickLower) {
    if (high < 1) tickLower = tickUpper - spacing;
    else tickUpper = tickLower + spacing;
  }
  return { tickLower, tickUpper };
}

/** DEV_V3_POOLS (or `pools`) against the deployed tokens and venues; throws on a name or tier they do not have. */
export function resolveV3Market(tokens: readonly DeployedToken[], venues: readonly DevnetV3Venue[], pools: readonly DevV3PoolSpec[] = DEV_V3_POOLS): ResolvedPool[] {
  const usdPrices = new Map<string, number>([["WETH", WETH_USD_PRICE], ...DEV_TOKENS.map((token) => [token.symbol, token.usdPrice] as const)]);
  const token = (symbol: string): PricedToken => {
    const deployed = tokens.find((candidate) => candidate.symbol === symbol);
    const usdPrice = usdPrices.get(symbol);
    if (deployed === undefined || usdPrice === undefined) throw new Error(`the devnet V3 market names unknown token ${symbol}`);
    return { address: deployed.address, decimals: deployed.decimals, usdPrice };
  };
  return pools.map((spec) => {
    const venue = venues.find((candidate) => candidate.name === spec.venue);
    if (venue === undefined) throw new Error(`the devnet V3 market names unknown venue ${spec.venue}`);
    const tier = venue.feeTiers.find((candidate) => candidate.fee === spec.fee);
    if (tier === undefined) throw new Error(`venue ${spec.venue} has no fee tier ${spec.fee}`);
    return { spec, venue, tickSpacing: tier.tickSpacing, a: token(spec.a), b: token(spec.b) };
  });
}

const ERC20_APPROVE_ABI = [
  { type: "function", name: "approve", stateMutability: "nonpayable", inputs: [{ type: "address" }, { type: "uint256" }], outputs: [{ type: "bool" }] },
] as const;

/**
 * Creates the devnet's V3 pools (DEV_V3_POOLS) at their prices and mints their positions from the
 * deployer, who is first given what they take (WETH wrapped, test tokens minted). Each pool is one
 * position-manager `multicall` (create and initialise, then every position's `mint`), the calls
 * createV3Pool and mintV3Position make one transaction each: the devnet deploy runs in many tests,
 * and this keeps the market to about 35 transactions instead of over 100. Kept after every other
 * deployment, so no contract address moves.
 */
export async function deployV3Market(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  tokens: readonly DeployedToken[],
  weth: Address,
  venues: readonly DevnetV3Venue[],
  pools: readonly DevV3PoolSpec[] = DEV_V3_POOLS,
): Promise<ManifestV3Pool[]> {
  const resolved = resolveV3Market(tokens, venues, pools);
  const needed = new Map<Address, bigint>();
  const approvals = new Set<string>();
  for (const pool of resolved) {
    for (const side of [pool.a, pool.b]) {
      approvals.add(`${side.address}|${pool.venue.positionManager}`);
      for (const position of pool.spec.positions) needed.set(side.address, (needed.get(side.address) ?? 0n) + amountFor(position.usdPerSide, side));
    }
  }
  const devTokenAbi = (await hre.artifacts.readArtifact("DevToken")).abi;
  for (const [token, amount] of needed) {
    if (token === weth) await writeAndWait(clients, deployer, { address: weth, abi: uniswapArtifacts.weth9().abi, functionName: "deposit", value: amount });
    else await writeAndWait(clients, deployer, { address: token, abi: devTokenAbi, functionName: "mint", args: [deployer.account.address, amount] });
  }
  for (const approval of approvals) {
    const [token, manager] = approval.split("|") as [Address, Address];
    await writeAndWait(clients, deployer, { address: token, abi: ERC20_APPROVE_ABI, functionName: "approve", args: [manager, maxUint256] });
  }

  const managerAbi = uniswapV3Artifacts.positionManager().abi;
  const deployed: ManifestV3Pool[] = [];
  for (const pool of resolved) {
    const [token0, token1] = sortTokens(pool.a.address, pool.b.address);
    const aIsToken0 = isToken0(pool.a, pool.b);
    const calls: Hex[] = [
      encodeFunctionData({ abi: managerAbi, functionName: "createAndInitializePoolIfNecessary", args: [token0, token1, pool.spec.fee, intendedSqrtPriceX96(pool)] }),
    ];
    for (const position of pool.spec.positions) {
      const [amountA, amountB] = [amountFor(position.usdPerSide, pool.a), amountFor(position.usdPerSide, pool.b)];
      const mint = {
        token0,
        token1,
        fee: pool.spec.fee,
        ...positionTicks(pool, position),
        amount0Desired: aIsToken0 ? amountA : amountB,
        amount1Desired: aIsToken0 ? amountB : amountA,
        amount0Min: 0n,
        amount1Min: 0n,
        recipient: deployer.account.address,
        deadline: maxUint256,
      };
      calls.push(encodeFunctionData({ abi: managerAbi, functionName: "mint", args: [mint] }));
    }
    await writeAndWait(clients, deployer, { address: pool.venue.positionManager, abi: managerAbi, functionName: "multicall", args: [calls] });
    const address = v3PoolAddress(pool.venue.factory, pool.venue.poolInitCodeHash, token0, token1, pool.spec.fee);
    deployed.push({ address, token0, token1, type: "uniswap-v3", source: pool.venue.name, fee: pool.spec.fee, tickSpacing: pool.tickSpacing });
  }
  return deployed;
}
