import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  decodeErrorResult,
  getAddress,
  http,
  type Abi,
  type Account,
  type Address,
  type Hex,
  type PublicClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { ConnectedChain } from "./chainConnection";

/**
 * How the operator CLIs (`npm run registry`, `npm run venues`) sign and send the registry
 * administrator's transactions: OPERATOR_PRIVATE_KEY when set, else an unlocked account of the node
 * (`--from`, default its first: the devnet's deployer).
 */
export type OperatorContext = Readonly<{
  chain: ConnectedChain;
  print: (line: string) => void;
  /** OPERATOR_PRIVATE_KEY, when set. */
  privateKey: Hex | undefined;
}>;

/** OPERATOR_PRIVATE_KEY from `env`, checked; undefined when unset or empty. */
export function operatorPrivateKey(env: NodeJS.ProcessEnv = process.env): Hex | undefined {
  const privateKey = env.OPERATOR_PRIVATE_KEY?.trim();
  if (privateKey === undefined || privateKey === "") return undefined;
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) throw new Error("OPERATOR_PRIVATE_KEY must be 0x followed by 64 hex digits");
  return privateKey as Hex;
}

/** A revert as the contract names it (`RouterRegistryUnauthorized(0x…)`), or viem's short message. */
export function describeRevert(error: unknown, abi: Abi): string {
  if (error instanceof BaseError) {
    const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError);
    if (reverted instanceof ContractFunctionRevertedError && reverted.data !== undefined) {
      return `${reverted.data.errorName}(${(reverted.data.args ?? []).map(String).join(", ")})`;
    }
    // Hardhat's node reports some reverts only in its message ("…custom error (return data: 0x…)").
    const returned = /return data: (0x[0-9a-fA-F]{8,})/.exec(error.details ?? "")?.[1];
    if (returned !== undefined) {
      try {
        const decoded = decodeErrorResult({ abi, data: returned as Hex });
        return `${decoded.errorName}(${(decoded.args ?? []).map(String).join(", ")})`;
      } catch {
        // Not one of the contract's errors: fall back to the node's message.
      }
    }
    return error.shortMessage;
  }
  return error instanceof Error ? error.message : String(error);
}

/** OPERATOR_PRIVATE_KEY's account, or a node account (`--from`, default the first). */
export async function operatorSigner(context: OperatorContext, from: string | undefined): Promise<Account | Address> {
  if (context.privateKey !== undefined) return privateKeyToAccount(context.privateKey);
  const accounts = await createWalletClient({ transport: http(context.chain.rpcUrl, { retryCount: 0 }) }).getAddresses();
  const wanted = from === undefined ? accounts[0] : accounts.find((account) => account.toLowerCase() === from.toLowerCase());
  if (wanted === undefined) {
    throw new Error(
      from === undefined
        ? `the node at ${context.chain.rpcUrl} has no unlocked account; set OPERATOR_PRIVATE_KEY`
        : `--from ${from} is not an unlocked account of the node at ${context.chain.rpcUrl}; set OPERATOR_PRIVATE_KEY to sign with another key`,
    );
  }
  return getAddress(wanted);
}

export type OperatorWrite = Readonly<{ address: Address; abi: Abi; functionName: string; args: readonly unknown[] }>;

/**
 * Simulates first (so a refusal is named by the contract's custom error and nothing is sent), then
 * sends, waits and prints the transaction. Returns whether it succeeded.
 */
export async function sendOperatorWrite(context: OperatorContext, write: OperatorWrite, from: string | undefined): Promise<boolean> {
  const { client, rpcUrl } = context.chain;
  const account = await operatorSigner(context, from);
  const wallet = createWalletClient({ account, chain: client.chain, transport: http(rpcUrl, { retryCount: 0 }) });
  let request;
  try {
    ({ request } = await client.simulateContract({ ...write, account } as Parameters<PublicClient["simulateContract"]>[0]));
  } catch (error) {
    context.print(`refused: ${write.functionName} reverts with ${describeRevert(error, write.abi)}`);
    return false;
  }
  const hash = await wallet.writeContract({ ...request, chain: null } as Parameters<typeof wallet.writeContract>[0]);
  const receipt = await client.waitForTransactionReceipt({ hash });
  const signerAddress = typeof account === "string" ? account : account.address;
  context.print(`${write.functionName} sent by ${signerAddress}: tx ${hash}, block ${receipt.blockNumber}, gas ${receipt.gasUsed}, ${receipt.status}`);
  return receipt.status === "success";
}
