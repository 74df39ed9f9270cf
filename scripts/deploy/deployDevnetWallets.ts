import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { encodeFunctionData, erc20Abi, getAddress, maxUint256, parseUnits, type Address } from "viem";
import type { DeploymentManifest } from "../../sdk/chain/manifest";
import { devAccounts } from "../devnet/devAccounts";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";

/** The dev account (index) that owns the devnet's smart wallet: one no other devnet role uses. */
const SMART_WALLET_OWNER_INDEX = 12;

/**
 * The devnet's gasless extras: `DevSmartWallet`, a minimal ERC-1271 wallet owned by dev account #12,
 * holding 10,000 USDC with Permit2 approved through its own call (ready to trade gasless with the
 * owner's signature), and `DevPlainToken`, a token without EIP-2612 (its gasless quotes offer no
 * `approval`). Neither is a settlement contract: they only show the two paths of docs/integrators/gasless.md.
 */
export async function deployDevnetWallets(
  hre: HardhatRuntimeEnvironment,
  clients: HardhatClients,
  deployer: DevWalletClient,
  deployed: Pick<DeploymentManifest, "contracts" | "tokens">,
): Promise<NonNullable<DeploymentManifest["devnet"]>> {
  const client = { public: clients.publicClient, wallet: deployer };
  const owner = devAccounts(hre)[SMART_WALLET_OWNER_INDEX];
  const ownerClient = clients.walletClients[SMART_WALLET_OWNER_INDEX];
  if (owner === undefined || ownerClient === undefined) throw new Error(`the devnet needs dev account #${SMART_WALLET_OWNER_INDEX} to own its smart wallet`);
  const wallet = await hre.viem.deployContract("DevSmartWallet", [getAddress(owner.address)], { client });
  const plain = await hre.viem.deployContract("DevPlainToken", ["Plain Token (devnet, no EIP-2612)", "PLAIN", 18, deployer.account.address], { client });
  const usdc = deployed.tokens.find((token) => token.symbol === "USDC");
  if (usdc !== undefined) {
    const mint = await hre.viem.getContractAt("DevToken", usdc.address, { client });
    await clients.publicClient.waitForTransactionReceipt({ hash: await mint.write.mint([wallet.address, parseUnits("10000", usdc.decimals)]) });
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [deployed.contracts.permit2, maxUint256] });
    await clients.publicClient.waitForTransactionReceipt({
      hash: await ownerClient.writeContract({ address: wallet.address, abi: wallet.abi, functionName: "execute", args: [usdc.address, 0n, approve] }),
    });
  }
  return { smartWallet: getAddress(wallet.address) as Address, smartWalletOwner: getAddress(owner.address) as Address, plainToken: getAddress(plain.address) as Address };
}
