import type { HardhatRuntimeEnvironment, HardhatNetworkHDAccountsConfig } from "hardhat/types";
import { mnemonicToAccount } from "viem/accounts";
import { bytesToHex, type Address, type Hex } from "viem";

export type DevAccount = { address: Address; privateKey: Hex };

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
