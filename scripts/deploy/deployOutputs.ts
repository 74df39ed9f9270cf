import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { erc20Abi, type PublicClient } from "viem";
import { manifestPath, writeManifest, type DeploymentManifest, type ManifestVenue } from "../../sdk/chain/manifest";
import { plannedAddress, type DeployPlan } from "./create2Plan";
import { firstBlockWithCode } from "./runDeployPlan";
import { errorSummary } from "../../sdk/errors/errorSummary";

/** The chain file's venues as the manifest lists them (every address is known once the checks passed). */
function manifestVenues(plan: DeployPlan): ManifestVenue[] {
  return plan.chain.venues.map((venue): ManifestVenue =>
    venue.type === "uniswap-v2"
      ? { name: venue.name, type: "uniswap-v2", factory: venue.factory.address!, poolInitCodeHash: venue.poolInitCodeHash, feeTiers: venue.feeTiers, startBlock: venue.startBlock }
      : {
          name: venue.name,
          type: "uniswap-v3",
          factory: venue.factory.address!,
          poolInitCodeHash: venue.poolInitCodeHash,
          feeTiers: venue.feeTiers,
          quoter: venue.quoter.address!,
          positionManager: venue.positionManager.address!,
          startBlock: venue.startBlock,
        },
  );
}

/**
 * The manifest the API, the relayer and the CLIs read for this chain: our contracts at their CREATE2
 * addresses, the chain file's external contracts and venues, and the deploy block (the first block
 * holding the registry) with its hash. Pools are found from the venues' events, so none are listed.
 */
export async function deployedManifest(client: PublicClient, plan: DeployPlan, previous?: DeploymentManifest, warn: (line: string) => void = () => undefined): Promise<DeploymentManifest> {
  const registry = plannedAddress(plan, "routerRegistry");
  let deployBlockNumber: bigint;
  try {
    deployBlockNumber = await firstBlockWithCode(client, registry);
  } catch (error) {
    // A node without historical state cannot say when the registry appeared: keep what an earlier
    // run recorded for this registry, else start at the head (events before it are not followed).
    deployBlockNumber = previous?.contracts.routerRegistry === registry ? BigInt(previous.deployBlock) : await client.getBlockNumber();
    warn(`the node cannot read historical code (${errorSummary(error)}): the manifest's deploy block is ${deployBlockNumber}`);
  }
  const deployBlock = await client.getBlock({ blockNumber: deployBlockNumber });
  const weth = plan.chain.wrappedNative.address!;
  const [name, decimals] = await Promise.all([client.readContract({ address: weth, abi: erc20Abi, functionName: "name" }), client.readContract({ address: weth, abi: erc20Abi, functionName: "decimals" })]);
  return {
    chainId: plan.chain.chainId,
    deployBlock: Number(deployBlock.number),
    deployBlockHash: deployBlock.hash,
    contracts: {
      routerRegistry: registry,
      permit2: plan.chain.permit2.address!,
      weth,
      uniswapV2Factory: plan.chain.venues.find((venue) => venue.type === "uniswap-v2")!.factory.address!,
      allowanceHolder: plannedAddress(plan, "allowanceHolder"),
      takerSwapRouter: plannedAddress(plan, "takerSwapRouter"),
      gaslessSwapRouter: plannedAddress(plan, "gaslessSwapRouter"),
      propAmmAllowlist: plannedAddress(plan, "propAmmAllowlist"),
    },
    venues: manifestVenues(plan),
    tokens: [{ symbol: plan.chain.wrappedNative.symbol, name, address: weth, decimals }],
    pools: [],
    propAmms: [],
  };
}

/** What `writeDeployOutputs` wrote. */
export type DeployOutputs = Readonly<{ manifestFile: string; standardJsonDir: string }>;

/**
 * Writes the manifest to `<directory>/<chainId>.json` (where DEPLOYMENTS_DIR readers look) and, per
 * contract, the compiler's standard-JSON input (`standard-json/<Contract>.input.json`) with an index
 * naming each contract's address, compiler version and constructor arguments, for source
 * verification on an explorer.
 */
export function writeDeployOutputs(directory: string, plan: DeployPlan, manifest: DeploymentManifest): DeployOutputs {
  const manifestFile = manifestPath(directory, manifest.chainId);
  writeManifest(manifestFile, manifest);
  const standardJsonDir = join(directory, "standard-json");
  mkdirSync(standardJsonDir, { recursive: true });
  const index = plan.contracts.map((contract) => {
    const file = `${contract.artifact.contractName}.input.json`;
    writeFileSync(join(standardJsonDir, file), `${JSON.stringify(contract.artifact.standardJsonInput)}\n`);
    return {
      contract: `${contract.artifact.sourceName}:${contract.artifact.contractName}`,
      address: contract.address,
      compilerVersion: `v${contract.artifact.solcLongVersion.replace(/\.Emscripten\.clang$/, "")}`,
      constructorArguments: `0x${contract.initCode.slice(contract.artifact.bytecode.length)}`,
      input: file,
    };
  });
  writeFileSync(join(standardJsonDir, "index.json"), `${JSON.stringify(index, null, 2)}\n`);
  return { manifestFile, standardJsonDir };
}
