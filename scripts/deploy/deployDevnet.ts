import { existsSync } from "node:fs";
import type { EIP1193Provider, HardhatRuntimeEnvironment } from "hardhat/types";
import { getAddress } from "viem";
import { readManifest, writeManifest, type DeploymentManifest, type ManifestPropAmm, type ManifestUniswapV4 } from "../../sdk/chain/manifest";
import { deployRouterRegistry } from "./deployRegistry";
import { hardhatClients, type DevWalletClient, type HardhatClients } from "./hardhatClients";
import { deployLiquidity } from "./deployLiquidity";
import { deployPermit2 } from "./deployPermit2";
import { deploySettlement } from "./deploySettlement";
import { deployTaxedToken } from "./deployTaxedToken";
import { writeAndWait } from "./writeAndWait";
import { deployDevnetWallets } from "./deployDevnetWallets";
import { deployDevnetV3Venues, type DevnetV3Venue } from "./devnetV3Venues";
import { deployV3Market } from "./deployV3Market";
import { devnetVenues } from "./devnetVenues";
import { deployPropAmmAllowlist, deployPropAmms } from "./deployPropAmm";
import { deployV4Market } from "./deployV4Market";
import { assertDevnetAccounts } from "../devnet/devAccounts";
import { routerRegistryAbi } from "../../sdk/abis/routerRegistryAbi";

/**
 * Reuses the manifest when it describes this very chain run: the recorded deploy block still has the
 * recorded hash and the registry still has code. Anything else (a restarted devnet, another chain) is
 * a fresh chain, so everything is deployed again.
 */
async function manifestMatchesChain({ publicClient }: HardhatClients, manifest: DeploymentManifest): Promise<boolean> {
  if (manifest.chainId !== (await publicClient.getChainId())) return false;
  if (BigInt(manifest.deployBlock) > (await publicClient.getBlockNumber())) return false;
  const block = await publicClient.getBlock({ blockNumber: BigInt(manifest.deployBlock) });
  if (block.hash !== manifest.deployBlockHash) return false;
  const code = await publicClient.getCode({ address: manifest.contracts.routerRegistry });
  return code !== undefined && code !== "0x";
}

function readManifestIfValid(file: string): DeploymentManifest | undefined {
  try {
    return readManifest(file);
  } catch {
    return undefined;
  }
}

/** Everything the devnet runs on, in dependency order. Tests deploy through this same function. */
export async function deployContracts(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
): Promise<Pick<DeploymentManifest, "contracts" | "tokens" | "pools" | "venues"> & { propAmms: ManifestPropAmm[]; v3Venues: DevnetV3Venue[]; uniswapV4: ManifestUniswapV4 }> {
  // No venue has a pool before this block: event following starts here.
  const startBlock = Number(await clients.publicClient.getBlockNumber()) + 1;
  const registry = getAddress((await deployRouterRegistry(hre, clients, deployer)).address);
  const permit2 = await deployPermit2(hre, clients);
  const { weth, uniswapV2Factory, tokens, pools } = await deployLiquidity(hre, clients, deployer);
  const v3Venues = await deployDevnetV3Venues(clients, deployer, weth);
  // The routers take the V3 venues in the devnet's order: SWAP_V3's venue byte is this index.
  const routerV3Venues = v3Venues.map(({ factory, poolInitCodeHash }) => ({ factory, poolInitCodeHash }));
  // The propAMM allowlist is an immutable of the routers, which only call the pairs it lists.
  const propAmmAllowlist = await deployPropAmmAllowlist(hre, clients, deployer, registry);
  // Uniswap V4 before the routers: its PoolManager is their immutable (SWAP_V4 swaps in it).
  const { manifest: uniswapV4 } = await deployV4Market(hre, clients, deployer, tokens, weth);
  const settlement = await deploySettlement(hre, clients, deployer, { registry, permit2, weth, uniswapV2Factory, v3Venues: routerV3Venues, propAmmAllowlist, poolManager: uniswapV4.poolManager });
  // The V3 pools come after every contract the deployer creates, so none of those addresses moves
  // (pool addresses depend on their factory and tokens only).
  const v3Pools = await deployV3Market(hre, clients, deployer, tokens, weth, v3Venues);
  const contracts = { routerRegistry: registry, permit2, weth, uniswapV2Factory, ...settlement, propAmmAllowlist };
  const propAmms = await deployPropAmms(hre, clients, deployer, { contracts, tokens }, propAmmAllowlist);
  return {
    contracts,
    propAmms,
    venues: devnetVenues(uniswapV2Factory, v3Venues, startBlock),
    tokens,
    pools: [...pools, ...v3Pools],
    v3Venues,
    uniswapV4,
  };
}

/**
 * Deploys the project's contracts unless `manifestFile` already describes this chain run, and writes
 * the manifest. Idempotent per chain run. `provider`: another local node to deploy on (the relayer
 * bench's Anvil) instead of the Hardhat network; the artifacts still come from `hre`.
 */
export async function deployDevnet(
  hre: HardhatRuntimeEnvironment,
  manifestFile: string,
  provider?: Pick<EIP1193Provider, "request">,
): Promise<{ manifest: DeploymentManifest; reused: boolean }> {
  const clients = await hardhatClients(hre, provider);
  if (existsSync(manifestFile)) {
    // A manifest from an older layout or another chain run is simply stale: deploy afresh over it.
    const previous = readManifestIfValid(manifestFile);
    if (previous !== undefined && (await manifestMatchesChain(clients, previous))) return { manifest: previous, reused: true };
  }
  // Said before the first transaction, not after a dozen contracts are deployed.
  assertDevnetAccounts(clients.walletClients.length);
  const [deployer] = clients.walletClients;
  if (deployer === undefined) throw new Error("the network has no funded account to deploy from");

  // Indexers start from the first block that holds our contracts.
  const firstBlock = (await clients.publicClient.getBlockNumber()) + 1n;
  const deployed = await deployContracts(hre, clients, deployer);
  // The taxed token comes last: the contracts above keep the addresses the settlement tests know.
  const taxed = await deployTaxedToken(hre, clients, deployer, deployed.contracts);
  const { v3Venues: _v3Venues, ...core } = deployed;
  const contracts = { ...core, tokens: [...deployed.tokens, taxed.token], pools: [...deployed.pools, taxed.pool] };
  const deployBlock = await clients.publicClient.getBlock({ blockNumber: firstBlock });
  const devnet = await deployDevnetWallets(hre, clients, deployer, contracts);

  const manifest: DeploymentManifest = {
    chainId: await clients.publicClient.getChainId(),
    deployBlock: Number(deployBlock.number),
    deployBlockHash: deployBlock.hash,
    ...contracts,
    devnet,
  };
  // The deployer is also a pauser on the devnet, so an operator can try the emergency brake at once.
  await writeAndWait(clients, deployer, { address: contracts.contracts.routerRegistry, abi: routerRegistryAbi, functionName: "setPauser", args: [deployer.account.address, true] });
  writeManifest(manifestFile, manifest);
  return { manifest, reused: false };
}
