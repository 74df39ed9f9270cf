import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { writeManifest, type DeploymentManifest } from "../../sdk/chain/manifest";
import { hardhatClients } from "../deploy/hardhatClients";
import { devAccounts } from "../devnet/devAccounts";
import { deployOnFork } from "./deployOnFork";
import type { ForkTarget } from "./forkChain";
import { fundForkAccounts, type TokenFunding } from "./forkFunding";
import { discoverForkPools } from "./forkPools";

export type ForkDevnet = Readonly<{ manifest: DeploymentManifest; fundings: TokenFunding[]; skippedPools: string[] }>;

/**
 * The devnet's deploy step in fork mode: our contracts onto the fork (the chain file's Permit2, wrapped
 * native token and venues are the chain's own; no mock is deployed), the fork's pools of the chain
 * file's venues as the manifest's pools, their tokens as its tokens, the development accounts funded,
 * and the manifest written to `manifestFile` for the API, the relayer and the CLIs.
 */
export async function deployForkDevnet(hre: HardhatRuntimeEnvironment, fork: ForkTarget, manifestFile: string, logRange: bigint, progress: (line: string) => void): Promise<ForkDevnet> {
  const clients = await hardhatClients(hre);
  const deployed = await deployOnFork(clients, clients.walletClients[0]!, fork.chainFile, progress);
  const market = await discoverForkPools(fork.remote, clients.publicClient as unknown as typeof fork.remote, fork.chainFile, fork.block, logRange);
  for (const reason of market.skipped) progress(`pool left out: ${reason}`);
  const known = new Set(deployed.tokens.map((token) => token.address));
  const manifest: DeploymentManifest = { ...deployed, tokens: [...deployed.tokens, ...market.tokens.filter((token) => !known.has(token.address))], pools: market.pools };
  const fundings = await fundForkAccounts(clients, devAccounts(hre).map((account) => account.address), manifest.tokens, manifest.contracts.weth, fork.chainFile.tokenHolders);
  writeManifest(manifestFile, manifest);
  return { manifest, fundings, skippedPools: market.skipped };
}
