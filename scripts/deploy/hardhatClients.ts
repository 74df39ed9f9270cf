import type { EIP1193Provider, HardhatRuntimeEnvironment } from "hardhat/types";
import { createPublicClient, createTestClient, createWalletClient, custom, getAddress, type Address } from "viem";
import { devnetChain } from "../../sdk/chain/devnet";

/**
 * viem clients over the Hardhat network (or `provider`, another local node such as the relayer bench's
 * Anvil, which unlocks its development accounts the same way) with local-chain settings. hardhat-viem applies these only to
 * chain 31337; on chain 4663 it would retry reverted calls three times with back-off and cache block
 * reads for 4 s, which makes every revert slow and every fresh read stale.
 */
export async function hardhatClients(hre: HardhatRuntimeEnvironment, provider: Pick<EIP1193Provider, "request"> = hre.network.provider) {
  return providerClients(provider);
}

/** The same clients over any local node's provider, without Hardhat (the stand-in chain's Anvil). */
export async function providerClients(provider: Pick<EIP1193Provider, "request">) {
  const transport = custom(provider, { retryCount: 0 });
  const settings = { chain: devnetChain, transport, pollingInterval: 50, cacheTime: 0 } as const;
  const publicClient = createPublicClient(settings);
  const accounts = (await provider.request({ method: "eth_accounts" })) as Address[];
  const walletClients = accounts.map((account) => createWalletClient({ ...settings, account: getAddress(account) }));
  const testClient = createTestClient({ ...settings, mode: "hardhat" });
  return { publicClient, walletClients, testClient };
}

export type HardhatClients = Awaited<ReturnType<typeof hardhatClients>>;
export type DevWalletClient = HardhatClients["walletClients"][number];
