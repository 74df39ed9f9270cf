import type { HardhatRuntimeEnvironment } from "hardhat/types";
import type { HardhatClients, DevWalletClient } from "./hardhatClients";

/** Deploys the router registry with `admin`'s account as its administrator. */
export async function deployRouterRegistry(hre: HardhatRuntimeEnvironment, clients: HardhatClients, admin: DevWalletClient) {
  return hre.viem.deployContract("RouterRegistry", [admin.account.address], {
    client: { public: clients.publicClient, wallet: admin },
  });
}
