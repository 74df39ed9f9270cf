import type { Account, Chain, PublicClient, Transport, WalletClient } from "viem";
import type { ChainFile } from "../../sdk/chain/chainFile";
import type { DeploymentManifest } from "../../sdk/chain/manifest";
import { checkChainFile } from "../deploy/checkChainFile";
import { planDeploy } from "../deploy/create2Plan";
import { deployedManifest } from "../deploy/deployOutputs";
import { DETERMINISTIC_DEPLOYER, DETERMINISTIC_DEPLOYER_RUNTIME, deterministicDeployerState } from "../deploy/deterministicDeployer";
import type { DevWalletClient, HardhatClients } from "../deploy/hardhatClients";
import { executePlan, verifyDeployedCode } from "../deploy/runDeployPlan";
import { ForkError } from "./forkChain";

/**
 * Deploys our contracts onto the fork as `npm run deploy` would onto the chain itself: the same chain
 * file checks, the same CREATE2 plan (so the same addresses as a real deployment by `deployer`),
 * executed and checked against the build; returns the manifest `npm run deploy` would write. A chain
 * without the deterministic deployer gets its runtime code placed (hardhat_setCode) rather than its
 * keyless pre-EIP-155 transaction: on a fork the result is the same code at the same address.
 */
export async function deployOnFork(clients: HardhatClients, deployer: DevWalletClient, chainFile: ChainFile, progress: (line: string) => void): Promise<DeploymentManifest> {
  const client = clients.publicClient as unknown as PublicClient;
  const state = await deterministicDeployerState(client);
  if (state === "foreign") throw new ForkError(`${DETERMINISTIC_DEPLOYER} holds other code than the deterministic deployer: this chain cannot take our CREATE2 deployment`);
  if (state === "absent") await clients.testClient.setCode({ address: DETERMINISTIC_DEPLOYER, bytecode: DETERMINISTIC_DEPLOYER_RUNTIME });
  const problems = await checkChainFile(client, chainFile, deployer.account.address);
  if (problems.length > 0) {
    throw new ForkError(`chain file ${chainFile.name} does not match the forked chain: ${problems.map(({ field, problem }) => `${field}: ${problem}`).join("; ")}`);
  }
  const plan = await planDeploy(client, chainFile, { deployer: deployer.account.address });
  await executePlan(client, deployer as unknown as WalletClient<Transport, Chain, Account>, plan, { progress, pollMs: 50 });
  const mismatches = await verifyDeployedCode(client, plan);
  if (mismatches.length > 0) throw new ForkError(`deployed code does not match the build: ${mismatches.join("; ")}`);
  return deployedManifest(client, plan, undefined, progress);
}
