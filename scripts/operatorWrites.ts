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
import { CLI_SIGNER_ARGS, cliSignerChosen, cliSignerOptionsOf, parseSignerEnvironment, resolveCliSigner, SignerChoiceError, type CliSignerOptions } from "../sdk";
import type { ConnectedChain } from "./chainConnection";

/**
 * How the operator CLIs (`npm run registry`, `npm run venues`) sign and send the registry
 * administrator's transactions: the signer the flags and environment choose (`resolveCliSigner`:
 * `--keystore`, or a raw key only with `--unsafe-private-key`), else an unlocked account of the node
 * (`--from`; without it, the first account, but only on a development node: the devnet's deployer).
 */
export type OperatorContext = Readonly<{
  chain: ConnectedChain;
  print: (line: string) => void;
  /** Where the signer's variables are read (OPERATOR_KEYSTORE, KEYSTORE_DIR, …); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Warnings (a raw key signing) and prompts, kept off stdout; default stderr. */
  warn?: (line: string) => void;
  /** A hidden prompt for a keystore's password; default the terminal's. */
  prompt?: (question: string) => Promise<string>;
}>;

/** The signer flags of an operator CLI: the shared keystore flags plus `--from` (a node's unlocked account). */
export const OPERATOR_SIGNER_ARGS = { ...CLI_SIGNER_ARGS, from: { type: "string" } } as const;

export type OperatorSignerChoice = CliSignerOptions & Readonly<{ from?: string }>;

export function operatorSignerChoiceOf(values: Parameters<typeof cliSignerOptionsOf>[0] & { from?: string | boolean }): OperatorSignerChoice {
  return { ...cliSignerOptionsOf(values), from: typeof values.from === "string" ? values.from : undefined };
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

/**
 * Nodes whose unlocked accounts are throwaway development accounts (Hardhat, Anvil, Ganache, by their
 * `web3_clientVersion`). Anywhere else an unlocked account is a live key the node holds: it signs only
 * when the operator names it with `--from`, never by default.
 */
const DEVELOPMENT_NODE = /^(hardhatnetwork|anvil|ganache)/i;

async function isDevelopmentNode(client: PublicClient): Promise<boolean> {
  const version = await client.request({ method: "web3_clientVersion" }).catch(() => "");
  return typeof version === "string" && DEVELOPMENT_NODE.test(version);
}

/**
 * The chosen signer (a keystore, or a raw key allowed as unsafe), or a node account: the one `--from`
 * names, or, on a development node only, its first.
 */
export async function operatorSigner(context: OperatorContext, choice: OperatorSignerChoice): Promise<Account | Address> {
  const env = context.env ?? process.env;
  if (cliSignerChosen(choice, parseSignerEnvironment(env))) {
    if (choice.from !== undefined) throw new SignerChoiceError("--from names a node account, but a keystore or raw key is chosen too", "Pass one: --from <address> (an unlocked node account) or --keystore <file|name>.");
    const warn = context.warn ?? ((line: string) => process.stderr.write(`${line}\n`));
    return resolveCliSigner({ ...choice, env, warn, ...(context.prompt === undefined ? {} : { prompt: context.prompt }) });
  }
  const from = choice.from;
  if (from === undefined && !(await isDevelopmentNode(context.chain.client))) {
    throw new SignerChoiceError(
      `no signer chosen, and the node at ${context.chain.rpcUrl} is not a development node: its unlocked accounts are not used unless named`,
      "Sign with --keystore <file|name> (see npm run keystore), or name the node's account with --from <address>.",
    );
  }
  const accounts = await createWalletClient({ transport: http(context.chain.rpcUrl, { retryCount: 0 }) }).getAddresses();
  const wanted = from === undefined ? accounts[0] : accounts.find((account) => account.toLowerCase() === from.toLowerCase());
  if (wanted === undefined) {
    throw new Error(
      from === undefined
        ? `the node at ${context.chain.rpcUrl} has no unlocked account; sign with --keystore <file|name> (see npm run keystore)`
        : `--from ${from} is not an unlocked account of the node at ${context.chain.rpcUrl}; sign with --keystore <file|name> instead`,
    );
  }
  return getAddress(wanted);
}

export type OperatorWrite = Readonly<{ address: Address; abi: Abi; functionName: string; args: readonly unknown[] }>;

/**
 * Simulates first (so a refusal is named by the contract's custom error and nothing is sent), then
 * sends, waits and prints the transaction. Returns whether it succeeded.
 */
export async function sendOperatorWrite(context: OperatorContext, write: OperatorWrite, choice: OperatorSignerChoice): Promise<boolean> {
  const { client, rpcUrl } = context.chain;
  const account = await operatorSigner(context, choice);
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
