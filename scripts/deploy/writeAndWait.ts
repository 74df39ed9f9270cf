import type { Abi, Address, ContractFunctionArgs, ContractFunctionName, Hex, TransactionReceipt } from "viem";
import type { DevWalletClient, HardhatClients } from "./hardhatClients";

/** Sends a contract write and waits for its receipt, failing loudly on a reverted transaction. */
export async function writeAndWait<
  const abi extends Abi,
  functionName extends ContractFunctionName<abi, "nonpayable" | "payable">,
>(
  clients: HardhatClients,
  wallet: DevWalletClient,
  request: {
    address: Address;
    abi: abi;
    functionName: functionName;
    args?: ContractFunctionArgs<abi, "nonpayable" | "payable", functionName>;
    value?: bigint;
    /** A gas limit, where the node's estimate can fall short of what the transaction meets when mined. */
    gas?: bigint;
  },
): Promise<TransactionReceipt> {
  const hash: Hex = await wallet.writeContract(request as Parameters<DevWalletClient["writeContract"]>[0]);
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new Error(`${request.functionName} on ${request.address} reverted`);
  return receipt;
}

/** Deploys raw creation bytecode (an npm artifact) and returns the new address. */
export async function deployBytecode(
  clients: HardhatClients,
  wallet: DevWalletClient,
  artifact: { abi: Abi; bytecode: Hex },
  args: readonly unknown[] = [],
): Promise<Address> {
  const hash = await wallet.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args } as Parameters<
    DevWalletClient["deployContract"]
  >[0]);
  const receipt = await clients.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success" || !receipt.contractAddress) throw new Error("deployment reverted");
  return receipt.contractAddress;
}
