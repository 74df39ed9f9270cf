/** Takers ready for gasless relays on a bench or soak chain: ETH for their approval, USDC minted, Permit2 approved. */
import { createWalletClient, encodeFunctionData, erc20Abi, http, maxUint256, parseEther, toHex, type Address, type Chain, type Hex, type PrivateKeyAccount, type PublicClient } from "viem";
import { mapLimit } from "./relayerStats";

const mintAbi = {
  type: "function",
  name: "mint",
  stateMutability: "nonpayable",
  inputs: [
    { name: "to", type: "address" },
    { name: "amount", type: "uint256" },
  ],
  outputs: [],
} as const;

export type FundTakersInput = {
  chain: Chain;
  rpcUrl: string;
  client: Pick<PublicClient, "waitForTransactionReceipt">;
  rpc: (method: string, params?: unknown[]) => Promise<unknown>;
  /** The deployer: USDC's minter, an unlocked account of the node. */
  deployer: Address;
  usdc: Address;
  permit2: Address;
  takers: readonly PrivateKeyAccount[];
  usdcEach: bigint;
};

/** Funds each taker with 1 ETH, mints it `usdcEach` USDC and approves Permit2 for all of it. */
export async function fundTakers(input: FundTakersInput): Promise<void> {
  const { client, rpc, takers } = input;
  await mapLimit(takers, 8, (taker) => rpc("hardhat_setBalance", [taker.address, toHex(parseEther("1"))]));
  // One at a time: the deployer's nonces are the node's to assign, and Anvil gives two concurrent sends the same one.
  await mapLimit(takers, 1, async (taker) => {
    const hash = (await rpc("eth_sendTransaction", [{ from: input.deployer, to: input.usdc, data: encodeFunctionData({ abi: [mintAbi], functionName: "mint", args: [taker.address, input.usdcEach] }) }])) as Hex;
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== "success") throw new Error(`mint to ${taker.address} reverted`);
  });
  await mapLimit(takers, 8, async (taker) => {
    const wallet = createWalletClient({ account: taker, chain: input.chain, transport: http(input.rpcUrl) });
    const hash = await wallet.writeContract({ address: input.usdc, abi: erc20Abi, functionName: "approve", args: [input.permit2, maxUint256] });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== "success") throw new Error(`approve of ${taker.address} reverted`);
  });
}
