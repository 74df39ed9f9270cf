import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { zeroAddress, type Address } from "viem";
import type { DeploymentManifest } from "../../sdk/chain/manifest";
import type { FeatureState } from "../../sdk/registry/rawRegistryCall";
import { readFeatureState } from "../../sdk/registry/readRegistry";
import { describeFeatures, Feature } from "../../sdk/registry/features";
import { deployGaslessSwapRouter, deployTakerSwapRouter, migrateFeature, type RouterV3Venue } from "./deploySettlement";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";
import { readBuildArtifact, runtimeCodeMismatch } from "./buildArtifact";
import { DEPLOYED_CONTRACTS } from "./create2Plan";

export type MigrationResult = { featureId: bigint; router: Address; state: FeatureState; dwellUntil: bigint };

/**
 * The V3 venues of the feature's current router, read from it on chain (`v3VenueCount`, `v3Venue`), so
 * a fresh router keeps the venues the running one has. A router of an earlier version (no V3 table)
 * or an empty feature gives none.
 */
async function currentV3Venues(hre: HardhatRuntimeEnvironment, clients: HardhatClients, registry: Address, featureId: bigint): Promise<RouterV3Venue[]> {
  const { current } = await readFeatureState(clients.publicClient, { registry, featureId });
  const router = await hre.viem.getContractAt("TakerSwapRouterV3", current, { client: { public: clients.publicClient } });
  const count = await router.read.v3VenueCount().catch(() => 0n);
  const venues: RouterV3Venue[] = [];
  for (let index = 0n; index < count; index++) {
    const [factory, poolInitCodeHash] = await router.read.v3Venue([index]);
    venues.push({ factory, poolInitCodeHash });
  }
  return venues;
}

/**
 * The Uniswap V4 PoolManager of the feature's current router (`poolManager()`), so a fresh router keeps
 * the V4 venue the running one has; zero for a router of an earlier version or an empty feature.
 */
async function currentPoolManager(hre: HardhatRuntimeEnvironment, clients: HardhatClients, registry: Address, featureId: bigint): Promise<Address> {
  const { current } = await readFeatureState(clients.publicClient, { registry, featureId });
  const router = await hre.viem.getContractAt("TakerSwapRouterV3", current, { client: { public: clients.publicClient } });
  return router.read.poolManager().catch(() => zeroAddress);
}

/**
 * The routers of this build work only with this build's allowance holder (it asks the router where a
 * route's input goes, `inputDestination`; an earlier holder parsed V2 routes itself) and propAMM
 * allowlist (it keeps the routers' copy of its pair filter in sync). A manifest naming earlier builds
 * is refused before anything is deployed, rather than paired with a router that would mis-route.
 */
async function refuseEarlierDependencies(hre: HardhatRuntimeEnvironment, clients: HardhatClients, contracts: DeploymentManifest["contracts"], featureId: bigint): Promise<void> {
  const needed: [string, Address | undefined, string][] = [
    [DEPLOYED_CONTRACTS.propAmmAllowlist, contracts.propAmmAllowlist, "deploy this build's PropAmmAllowlist (npm run deploy plans it), list the propAMMs again, and name it in the manifest"],
  ];
  if (featureId === Feature.TakerSubmittedSwap) {
    needed.push([DEPLOYED_CONTRACTS.allowanceHolder, contracts.allowanceHolder, "deploy this build's AllowanceHolder and name it in the manifest; takers then approve the new holder (their approvals of the old one do not carry over)"]);
  }
  for (const [name, address, whatToDo] of needed) {
    if (address === undefined) continue;
    const code = await clients.publicClient.getCode({ address });
    const artifact = readBuildArtifact(name, hre.config.paths.artifacts);
    if (code === undefined || code === "0x" || runtimeCodeMismatch(artifact, code) !== undefined) {
      throw new Error(`the manifest's ${artifact.contractName} at ${address} is not this build's, which the new router needs: ${whatToDo}; nothing was deployed`);
    }
  }
}

/**
 * Deploys a fresh router of the current version for `featureId` (2 or 3) with the manifest's
 * dependencies and migrates the feature to it: stage, then activate. The outgoing router stays `prev`
 * until `dwellUntil`. Its V3 venues are `v3Venues` when given, else the current router's (none when
 * that router predates V3: pass the chain's venues to add them). Its propAMM allowlist is the
 * manifest's (none on a chain deployed before propAMMs: the router then calls no propAMM). Its V4
 * PoolManager is `poolManager` when given, else the current router's (none when it predates V4).
 */
export async function migrateRouter(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  admin: DevWalletClient,
  manifest: Pick<DeploymentManifest, "contracts">,
  featureId: bigint,
  v3Venues?: readonly RouterV3Venue[],
  poolManager?: Address,
): Promise<MigrationResult> {
  const { contracts } = manifest;
  await refuseEarlierDependencies(hre, clients, contracts, featureId);
  let router: Address;
  const dependencies = {
    permit2: contracts.permit2,
    weth: contracts.weth,
    registry: contracts.routerRegistry,
    uniswapV2Factory: contracts.uniswapV2Factory,
    v3Venues: v3Venues ?? (featureId === Feature.TakerSubmittedSwap || featureId === Feature.GaslessSwap ? await currentV3Venues(hre, clients, contracts.routerRegistry, featureId) : []),
    propAmmAllowlist: contracts.propAmmAllowlist,
    poolManager: poolManager ?? (featureId === 2n || featureId === 3n ? await currentPoolManager(hre, clients, contracts.routerRegistry, featureId) : zeroAddress),
  };
  if (featureId === Feature.TakerSubmittedSwap) {
    router = await deployTakerSwapRouter(hre, clients, admin, { ...dependencies, allowanceHolder: contracts.allowanceHolder });
  } else if (featureId === Feature.GaslessSwap) {
    router = await deployGaslessSwapRouter(hre, clients, admin, dependencies);
  } else {
    throw new Error(`feature ${featureId} has no router type; use one of ${describeFeatures()}`);
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
