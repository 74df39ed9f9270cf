/**
 * A stand-in for a live chain, for offline tests of `npm run deploy`: an Anvil process (chain id 4663)
 * that has what a public chain has before we deploy to it, built independently of the devnet's deploy:
 * Permit2's canonical runtime code at its canonical address (anvil_setCode, as its keyless CREATE2
 * deployment would leave it), and WETH9, a Uniswap V2 factory and a Uniswap V3 factory with its
 * position manager and QuoterV2, from Uniswap's npm builds, at the addresses the stand-in chain file
 * (test/fixtures/chains/standin.json) names. No deterministic CREATE2 deployer: the deploy places it.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { getAddress, parseEther, type Address } from "viem";
import { chainFileSchema, type ChainFile } from "../../sdk/chain/chainFile";
import { PERMIT2_ADDRESS } from "../../sdk/chain/permit2";
import { startAnvilNode, type AnvilNode } from "../bench/anvilChain";
import { readBuildArtifact } from "../deploy/buildArtifact";
import { providerClients } from "../deploy/hardhatClients";
import { uniswapArtifacts } from "../deploy/uniswapArtifacts";
import { deployUniswapV3 } from "../deploy/uniswapV3";
import { deployBytecode } from "../deploy/writeAndWait";

/** The stand-in chain file: the external addresses the stand-in script creates. */
export const STANDIN_CHAIN_FILE = resolve(__dirname, "../../test/fixtures/chains/standin.json");

/**
 * The account that deploys the stand-in's venues (impersonated; nobody holds its key). Its nonces 0-4
 * make WETH9, the V2 factory, the V3 factory, the position manager and QuoterV2, so their addresses are
 * fixed: neither the devnet's nor any development account's.
 */
export const STANDIN_VENUE_DEPLOYER: Address = getAddress("0x5ee05ee05ee05ee05ee05ee05ee05ee05ee05ee0");

/** Reads the stand-in chain file (through the same schema as every chain file). */
export function standInChainFile(): ChainFile {
  return chainFileSchema.parse(JSON.parse(readFileSync(STANDIN_CHAIN_FILE, "utf8")));
}

export type StandInChain = AnvilNode & Readonly<{ chainFile: ChainFile }>;

function expectAt(field: string, expected: Address | null, actual: Address): void {
  if (expected === null || getAddress(expected) !== getAddress(actual)) throw new Error(`the stand-in chain file names ${field} ${expected}, but the stand-in script deployed it at ${actual}`);
}

/**
 * Places the stand-in's external contracts on `node` and checks that each landed where the stand-in
 * chain file says. Needs a fresh node (the venue deployer's nonces start at 0).
 */
export async function placeStandInContracts(node: Pick<AnvilNode, "provider">): Promise<ChainFile> {
  const chainFile = standInChainFile();
  const clients = await providerClients(node.provider);
  const permit2 = readBuildArtifact("@uniswap/v4-periphery/lib/permit2/src/Permit2.sol:Permit2");
  await clients.testClient.setCode({ address: PERMIT2_ADDRESS, bytecode: permit2.deployedBytecode });
  await clients.testClient.setBalance({ address: STANDIN_VENUE_DEPLOYER, value: parseEther("100") });
  await clients.testClient.impersonateAccount({ address: STANDIN_VENUE_DEPLOYER });
  const { walletClients } = await providerClients({
    request: async (args) => (args.method === "eth_accounts" ? [STANDIN_VENUE_DEPLOYER] : node.provider.request(args)),
  });
  const deployer = walletClients[0]!;
  const weth = await deployBytecode(clients, deployer, uniswapArtifacts.weth9());
  expectAt("wrappedNative", chainFile.wrappedNative.address, weth);
  const v2Factory = await deployBytecode(clients, deployer, uniswapArtifacts.factory(), [STANDIN_VENUE_DEPLOYER]);
  const v2 = chainFile.venues.find((venue) => venue.type === "uniswap-v2")!;
  expectAt("the uniswap-v2 factory", v2.factory.address, v2Factory);
  const v3 = await deployUniswapV3(clients, deployer, weth);
  const v3Venue = chainFile.venues.find((venue) => venue.type === "uniswap-v3")!;
  if (v3Venue.type !== "uniswap-v3") throw new Error("the stand-in chain file lists no uniswap-v3 venue");
  expectAt("the uniswap-v3 factory", v3Venue.factory.address, v3.factory);
  expectAt("the uniswap-v3 position manager", v3Venue.positionManager.address, v3.positionManager);
  expectAt("the uniswap-v3 quoter", v3Venue.quoter.address, v3.quoterV2);
  await clients.testClient.stopImpersonatingAccount({ address: STANDIN_VENUE_DEPLOYER });
  return chainFile;
}

/**
 * Starts the stand-in chain: Anvil without its built-in CREATE2 deployer, with the stand-in's external
 * contracts placed. `stop()` ends the Anvil process.
 */
export async function startStandInChain(): Promise<StandInChain> {
  const node = await startAnvilNode(undefined, ["--disable-default-create2-deployer"]);
  try {
    return { ...node, chainFile: await placeStandInContracts(node) };
  } catch (error) {
    await node.stop();
    throw error;
  }
}

