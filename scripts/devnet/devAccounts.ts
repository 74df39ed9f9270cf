import type { HardhatRuntimeEnvironment, HardhatNetworkHDAccountsConfig } from "hardhat/types";
import { mnemonicToAccount } from "viem/accounts";
import { bytesToHex, type Address, type Hex } from "viem";

export type DevAccount = { address: Address; privateKey: Hex };

/**
 * How many funded development accounts the devnet uses, by role: #0 deploys, #1-#9 are takers with
 * token grants, #12 owns the smart wallet, #15 receives relayer fees and #16-#19 sign the relayer's
 * transactions (hardhat.config.ts funds 20; Anvil and `hardhat node` elsewhere default to 10).
 */
export const DEVNET_ACCOUNT_COUNT = 20;

/** Refuses, before anything is deployed, a node with fewer funded accounts than the devnet needs. */
export function assertDevnetAccounts(available: number): void {
  if (available >= DEVNET_ACCOUNT_COUNT) return;
  throw new Error(
    `the devnet needs ${DEVNET_ACCOUNT_COUNT} funded development accounts (#0 deployer, #1-#9 takers, #12 smart-wallet owner, #15 relayer fee recipient, #16-#19 relayer signers) and this node unlocks ${available}: ` +
      `start it with ${DEVNET_ACCOUNT_COUNT} (anvil --accounts ${DEVNET_ACCOUNT_COUNT}; Hardhat: networks.hardhat.accounts.count). Nothing was deployed.`,
  );
}

/** The devnet's funded accounts with their keys (well-known test keys: never use them elsewhere). */
export function devAccounts(hre: HardhatRuntimeEnvironment): DevAccount[] {
  const accounts = hre.config.networks.hardhat.accounts;
  if (Array.isArray(accounts)) {
    throw new Error("devAccounts expects the default HD accounts of the hardhat network");
  }
  const hd = accounts as HardhatNetworkHDAccountsConfig;
  return Array.from({ length: hd.count }, (_, index) => {
    const account = mnemonicToAccount(hd.mnemonic, { path: `${hd.path}/${hd.initialIndex + index}` as `m/44'/60'/${string}` });
    const key = account.getHdKey().privateKey;
    if (key === null) throw new Error("HD account without a private key");
    return { address: account.address, privateKey: bytesToHex(key) };
  });
}
