import type { HardhatRuntimeEnvironment } from "hardhat/types";
import type { Address } from "viem";
import type { DeploymentManifest } from "../../sdk/chain/manifest";
import type { FeatureState } from "../../sdk/registry/rawRegistryCall";
import { readFeatureState } from "../../sdk/registry/readRegistry";
import { deployGaslessSwapRouter, deployTakerSwapRouter, migrateFeature } from "./deploySettlement";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";

export type MigrationResult = { featureId: bigint; router: Address; state: FeatureState; dwellUntil: bigint };

/**
 * Deploys a fresh router for `featureId` (2 or 3) with the manifest's dependencies and migrates the
 * feature to it: stage, then activate. The outgoing router stays `prev` until `dwellUntil`.
 */
export async function migrateRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  admin: DevWalletClient,
  manifest: DeploymentManifest,
  featureId: bigint,
): Promise<MigrationResult> {
  const { contracts } = manifest;
  let router: Address;
  const dependencies = {
    permit2: contracts.permit2,
    weth: contracts.weth,
    registry: contracts.routerRegistry,
    uniswapV2Factory: contracts.uniswapV2Factory,
  };
  if (featureId === 2n) {
    router = await deployTakerSwapRouter(hre, clients, admin, { ...dependencies, allowanceHolder: contracts.allowanceHolder });
  } else if (featureId === 3n) {
    router = await deployGaslessSwapRouter(hre, clients, admin, dependencies);
  } else {
    throw new Error(`feature ${featureId} has no router type; use 2 (taker-submitted) or 3 (gasless)`);
  }
  await migrateFeature(hre, clients, admin, contracts.routerRegistry, featureId, router);
  const registry = await hre.viem.getContractAt("RouterRegistry", contracts.routerRegistry, { client: { public: clients.publicClient } });
  return {
    featureId,
    router,
    state: await readFeatureState(clients.publicClient, { registry: contracts.routerRegistry, featureId }),
    dwellUntil: await registry.read.dwellDeadline([featureId]),
  };
}
