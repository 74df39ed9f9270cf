import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, zeroAddress, type Address, type Hex } from "viem";
import { Feature } from "../../sdk/registry/features";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { UNISWAP_V2_FEE_BPS } from "./deployLiquidity";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "./uniswapArtifacts";

/** A V3 venue as a router's constructor takes it: the factory and its pools' init-code hash. */
export type RouterV3Venue = { factory: Address; poolInitCodeHash: Hex };

/**
 * What a router is wired to: Permit2, WETH, the registry that gates it, the V2 factory whose pairs it
 * trades, its V3 venues (index = the venue byte of SWAP_V3; at most 4) and the allowlist of the
 * propAMMs SWAP_PROPAMM may call, and Uniswap V4's PoolManager. Only the current versions take the last three; earlier ones have none
 * (and a current version built without an allowlist calls no propAMM).
 */
export type RouterDependencies = {
  permit2: Address;
  weth: Address;
  registry: Address;
  uniswapV2Factory: Address;
  v3Venues?: readonly RouterV3Venue[];
  propAmmAllowlist?: Address;
  /** Uniswap V4's PoolManager, which SWAP_V4 swaps in (current versions only; none: no V4 venue). */
  poolManager?: Address;
};

const v3VenueArgs = (venues: readonly RouterV3Venue[] | undefined) => (venues ?? []).map(({ factory, poolInitCodeHash }) => ({ factory, poolInitCodeHash }));

/** The V2 venue constructor argument: only the factory's pairs, at Uniswap V2's fixed pool fee. */
function v2Venue(uniswapV2Factory: Address) {
  return { factory: uniswapV2Factory, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH, feeBps: UNISWAP_V2_FEE_BPS };
}

export type Settlement = { allowanceHolder: Address; takerSwapRouter: Address; gaslessSwapRouter: Address };

/**
 * The feature-2 router versions: `TakerSwapRouterV3` (the current one: exact-input and exact-output
 * swaps over the V2 venue and the V3 venues), `TakerSwapRouterV2` (V2 only, with exact output) and
 * `TakerSwapRouter` (the first, exact-input only), which tests deploy to migrate away from.
 */
export type TakerRouterVersion = "TakerSwapRouterV3" | "TakerSwapRouterV2" | "TakerSwapRouter";

/**
 * Deploys a feature-2 router (taker-submitted swaps), the current version unless named. It settles
 * nothing until the registry activates it for feature 2 (see `migrateFeature`).
 */
export async function deployTakerSwapRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  { permit2, allowanceHolder, weth, registry, uniswapV2Factory, v3Venues, propAmmAllowlist, poolManager }: RouterDependencies & { allowanceHolder: Address },
  version: TakerRouterVersion = "TakerSwapRouterV3",
): Promise<Address> {
  const args = [permit2, allowanceHolder, weth, registry, v2Venue(uniswapV2Factory)] as const;
  const config = { client: { public: clients.publicClient, wallet: deployer } };
  const router =
    version === "TakerSwapRouter"
      ? await hre.viem.deployContract("TakerSwapRouter", [...args], config)
      : version === "TakerSwapRouterV2"
        ? await hre.viem.deployContract("TakerSwapRouterV2", [...args], config)
        : await hre.viem.deployContract("TakerSwapRouterV3", [...args, v3VenueArgs(v3Venues), propAmmAllowlist ?? zeroAddress, poolManager ?? zeroAddress], config);
  return getAddress(router.address);
}

/**
 * The feature-3 router versions: `GaslessBatchSwapRouterV2` (the current one: every gasless entry
 * point over the V2 venue and the V3 venues), `GaslessBatchSwapRouter` (the same entry points, V2
 * only) and `GaslessSwapRouter` (the first, `swapGasless` only), which tests deploy to migrate away from.
 */
export type GaslessRouterVersion = "GaslessBatchSwapRouterV2" | "GaslessBatchSwapRouter" | "GaslessSwapRouter";

/** Deploys a feature-3 router (gasless swaps), the current version unless named; like feature 2's, it settles only once activated. */
export async function deployGaslessSwapRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  { permit2, weth, registry, uniswapV2Factory, v3Venues, propAmmAllowlist, poolManager }: RouterDependencies,
  version: GaslessRouterVersion = "GaslessBatchSwapRouterV2",
): Promise<Address> {
  const args = [permit2, weth, registry, v2Venue(uniswapV2Factory)] as const;
  const config = { client: { public: clients.publicClient, wallet: deployer } };
  const router =
    version === "GaslessSwapRouter"
      ? await hre.viem.deployContract("GaslessSwapRouter", [...args], config)
      : version === "GaslessBatchSwapRouter"
        ? await hre.viem.deployContract("GaslessBatchSwapRouter", [...args], config)
        : await hre.viem.deployContract("GaslessBatchSwapRouterV2", [...args, v3VenueArgs(v3Venues), propAmmAllowlist ?? zeroAddress, poolManager ?? zeroAddress], config);
  return getAddress(router.address);
}

/**
 * Deploys the allowance holder and both routers, and makes the routers the current routers of
 * features 2 and 3 in the registry (stage, then activate).
 */
export async function deploySettlement(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  dependencies: RouterDependencies,
): Promise<Settlement> {
  const { registry } = dependencies;
  const client = { public: clients.publicClient, wallet: deployer };
  const holder = await hre.viem.deployContract("AllowanceHolder", [], { client });
  const allowanceHolder = getAddress(holder.address);
  const takerSwapRouter = await deployTakerSwapRouter(hre, clients, deployer, { ...dependencies, allowanceHolder });
  const gaslessSwapRouter = await deployGaslessSwapRouter(hre, clients, deployer, dependencies);
  await migrateFeature(hre, clients, deployer, registry, Feature.TakerSubmittedSwap, takerSwapRouter);
  await migrateFeature(hre, clients, deployer, registry, Feature.GaslessSwap, gaslessSwapRouter);
  return { allowanceHolder, takerSwapRouter, gaslessSwapRouter };
}

/**
 * Stages `router` for `featureId` and activates it; the outgoing router enters its dwell window. The
 * registry makes the routers concerned sync their on-chain status in the activation itself.
 */
export async function migrateFeature(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  admin: DevWalletClient,
  registry: Address,
  featureId: bigint,
  router: Address,
): Promise<void> {
  const contract = await hre.viem.getContractAt("RouterRegistry", registry, { client: { public: clients.publicClient, wallet: admin } });
  await clients.publicClient.waitForTransactionReceipt({ hash: await contract.write.stage([featureId, router]) });
  await clients.publicClient.waitForTransactionReceipt({ hash: await contract.write.activate([featureId]) });
}
