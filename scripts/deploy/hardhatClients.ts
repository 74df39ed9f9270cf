import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { createPublicClient, createTestClient, createWalletClient, custom, getAddress, type Address } from "viem";
import { devnetChain } from "../../sdk/chain/devnet";

/**
 * viem clients over the Hardhat network with local-chain settings. hardhat-viem applies these only to
 * chain 31337; on chain 4663 it would retry reverted calls three times with back-off and cache block
 * reads for 4 s, which makes every revert slow and every fresh read stale.
 */
export async function hardhatClients(hre: HardhatRuntimeEnvironment) {
  const transport = custom(hre.network.provider, { retryCount: 0 });
  const settings = { chain: devnetChain, transport, pollingInterval: 50, cacheTime: 0 } as const;
  const publicClient = createPublicClient(settings);
  const accounts = (await hre.network.provider.send("eth_accounts", [])) as Address[];
  const walletClients = accounts.map((account) => createWalletClient({ ...settings, account: getAddress(account) }));
  const testClient = createTestClient({ ...settings, mode: "hardhat" });
  return { publicClient, walletClients, testClient };
}

export type HardhatClients = Awaited<ReturnType<typeof hardhatClients>>;
export type DevWalletClient = HardhatClients["walletClients"][number];
