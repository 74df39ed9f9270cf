import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, type Address } from "viem";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { UNISWAP_V2_FEE_BPS } from "./deployLiquidity";
import { UNISWAP_V2_PAIR_INIT_CODE_HASH } from "./uniswapArtifacts";

/** What a router is wired to: Permit2, WETH, the registry that gates it, and the V2 factory whose pairs it trades. */
export type RouterDependencies = { permit2: Address; weth: Address; registry: Address; uniswapV2Factory: Address };

/** The V2 venue constructor argument: only the factory's pairs, at Uniswap V2's fixed pool fee. */
function v2Venue(uniswapV2Factory: Address) {
  return { factory: uniswapV2Factory, pairInitCodeHash: UNISWAP_V2_PAIR_INIT_CODE_HASH, feeBps: UNISWAP_V2_FEE_BPS };
}

export type Settlement = { allowanceHolder: Address; takerSwapRouter: Address; gaslessSwapRouter: Address };

/**
 * The feature-2 router versions: `TakerSwapRouterV2` (the current one: exact-input and exact-output
 * swaps) and `TakerSwapRouter` (the first, exact-input only), which tests deploy to migrate away from.
 */
export type TakerRouterVersion = "TakerSwapRouterV2" | "TakerSwapRouter";

/**
 * Deploys a feature-2 router (taker-submitted swaps), the current version unless named. It settles
 * nothing until the registry activates it for feature 2 (see `migrateFeature`).
 */
export async function deployTakerSwapRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  { permit2, allowanceHolder, weth, registry, uniswapV2Factory }: RouterDependencies & { allowanceHolder: Address },
  version: TakerRouterVersion = "TakerSwapRouterV2",
): Promise<Address> {
  const args = [permit2, allowanceHolder, weth, registry, v2Venue(uniswapV2Factory)] as const;
  const config = { client: { public: clients.publicClient, wallet: deployer } };
  const router =
    version === "TakerSwapRouter" ? await hre.viem.deployContract("TakerSwapRouter", [...args], config) : await hre.viem.deployContract("TakerSwapRouterV2", [...args], config);
  return getAddress(router.address);
}

/**
 * The feature-3 router versions: `GaslessBatchSwapRouter` (the current one: `swapGasless` and
 * `swapGaslessBatch`) and `GaslessSwapRouter` (the first, `swapGasless` only), which tests deploy to
 * migrate away from.
 */
export type GaslessRouterVersion = "GaslessBatchSwapRouter" | "GaslessSwapRouter";

/** Deploys a feature-3 router (gasless swaps), the current version unless named; like feature 2's, it settles only once activated. */
export async function deployGaslessSwapRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  { permit2, weth, registry, uniswapV2Factory }: RouterDependencies,
  version: GaslessRouterVersion = "GaslessBatchSwapRouter",
): Promise<Address> {
  const args = [permit2, weth, registry, v2Venue(uniswapV2Factory)] as const;
  const config = { client: { public: clients.publicClient, wallet: deployer } };
  const router =
    version === "GaslessSwapRouter" ? await hre.viem.deployContract("GaslessSwapRouter", [...args], config) : await hre.viem.deployContract("GaslessBatchSwapRouter", [...args], config);
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
  await migrateFeature(hre, clients, deployer, registry, 2n, takerSwapRouter);
  await migrateFeature(hre, clients, deployer, registry, 3n, gaslessSwapRouter);
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
