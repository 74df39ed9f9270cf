import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress, type Address } from "viem";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";

export type Settlement = { allowanceHolder: Address; takerSwapRouter: Address; gaslessSwapRouter: Address };

/** Deploys a feature-2 router (taker-submitted swaps). */
export async function deployTakerSwapRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  { permit2, allowanceHolder, weth }: { permit2: Address; allowanceHolder: Address; weth: Address },
): Promise<Address> {
  const router = await hre.viem.deployContract("TakerSwapRouter", [permit2, allowanceHolder, weth], {
    client: { public: clients.publicClient, wallet: deployer },
  });
  return getAddress(router.address);
}

/** Deploys a feature-3 router (gasless swaps). */
export async function deployGaslessSwapRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  { permit2, weth }: { permit2: Address; weth: Address },
): Promise<Address> {
  const router = await hre.viem.deployContract("GaslessSwapRouter", [permit2, weth], {
    client: { public: clients.publicClient, wallet: deployer },
  });
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
  { registry, permit2, weth }: { registry: Address; permit2: Address; weth: Address },
): Promise<Settlement> {
  const client = { public: clients.publicClient, wallet: deployer };
  const holder = await hre.viem.deployContract("AllowanceHolder", [], { client });
  const allowanceHolder = getAddress(holder.address);
  const takerSwapRouter = await deployTakerSwapRouter(hre, clients, deployer, { permit2, allowanceHolder, weth });
  const gaslessSwapRouter = await deployGaslessSwapRouter(hre, clients, deployer, { permit2, weth });
  await migrateFeature(hre, clients, deployer, registry, 2n, takerSwapRouter);
  await migrateFeature(hre, clients, deployer, registry, 3n, gaslessSwapRouter);
  return { allowanceHolder, takerSwapRouter, gaslessSwapRouter };
}

/** Stages `router` for `featureId` and activates it; the outgoing router enters its dwell window. */
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
