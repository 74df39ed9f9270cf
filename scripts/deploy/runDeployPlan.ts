import { setTimeout as sleep } from "node:timers/promises";
import { BaseError, type Account, type Address, type Chain, type Hex, type PublicClient, type Transport, type WalletClient } from "viem";
import { runtimeCodeMismatch } from "./buildArtifact";
import type { DeployPlan, DeployStep } from "./create2Plan";

/** A step as the plan table shows it: whether the chain already has it, and its gas and cost now. */
export type AssessedStep = Readonly<{ step: DeployStep; done: boolean; gas: bigint; estimated: boolean }>;

export type PlanAssessment = Readonly<{ steps: readonly AssessedStep[]; gasPrice: bigint; toSend: number; gas: bigint; costWei: bigint }>;

/**
 * Reads, for every step, whether its effect is on chain, and what it would cost at the current gas
 * price: eth_estimateGas where the chain can run it now, else the step's figure without state (a
 * contract it calls comes earlier in the plan). Sends nothing.
 */
export async function assessPlan(client: PublicClient, plan: DeployPlan): Promise<PlanAssessment> {
  const gasPrice = await client.getGasPrice();
  const steps: AssessedStep[] = [];
  for (const step of plan.steps) {
    const done = await step.done(client);
    let gas = step.gasWithoutState;
    let estimated = false;
    // A call into an address without code (the CREATE2 deployer or the registry, placed by an
    // earlier step) would be estimated as a plain transfer: keep the figure without state then.
    if (!done && step.kind === "call" && (step.data === "0x" || (await hasCode(client, step.to)))) {
      try {
        gas = await client.estimateGas({ account: plan.deployer, to: step.to, data: step.data, value: step.value });
        estimated = true;
      } catch {
        // Depends on an earlier step of the plan: keep the figure without state.
      }
    }
    if (!done && step.kind === "raw") gas = step.gas;
    steps.push({ step, done, gas, estimated });
  }
  const pending = steps.filter((entry) => !entry.done);
  const gas = pending.reduce((sum, entry) => sum + entry.gas, 0n);
  const costWei = pending.reduce((sum, entry) => sum + stepCostWei(entry, gasPrice), 0n);
  return { steps, gasPrice, toSend: pending.length, gas, costWei };
}

async function hasCode(client: PublicClient, address: Address): Promise<boolean> {
  const code = await client.getCode({ address });
  return code !== undefined && code !== "0x";
}

/**
 * What a step costs the deployer at `gasPrice`: its gas and the value it sends. The keyless deployment
 * of the CREATE2 deployer costs the deployer nothing more: its signer pays from the funding step.
 */
export function stepCostWei(entry: Pick<AssessedStep, "step" | "gas">, gasPrice: bigint): bigint {
  return entry.step.kind === "raw" ? 0n : entry.gas * gasPrice + entry.step.value;
}

/** Waits until none of `account`'s transactions is pending (a run killed after sending one), so no step is sent twice. */
async function settlePending(client: PublicClient, account: Address, pollMs: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [pending, latest] = await Promise.all([client.getTransactionCount({ address: account, blockTag: "pending" }), client.getTransactionCount({ address: account, blockTag: "latest" })]);
    if (pending <= latest) return;
    if (Date.now() > until) throw new Error(`the deployer ${account} still has ${pending - latest} pending transaction(s) after ${timeoutMs / 1000} s: wait for them to be mined (or replace them), then run the deploy again`);
    await sleep(pollMs);
  }
}

export type ExecuteOptions = Readonly<{
  /** One line per transaction sent and confirmed (the CLI prints them on stderr). */
  progress: (line: string) => void;
  pollMs?: number;
  pendingTimeoutMs?: number;
}>;

/**
 * Sends the steps whose effect is not on chain yet, one at a time, each after its receipt says the
 * previous one succeeded. Every step is checked against the chain just before it is sent, so a run
 * after an interruption finishes the same deployment and a run after success sends nothing.
 */
export async function executePlan(
  client: PublicClient,
  wallet: WalletClient<Transport, Chain, Account>,
  plan: DeployPlan,
  { progress, pollMs = 200, pendingTimeoutMs = 300_000 }: ExecuteOptions,
): Promise<{ sent: Hex[] }> {
  const sent: Hex[] = [];
  for (const [index, step] of plan.steps.entries()) {
    const position = `[${index + 1}/${plan.steps.length}]`;
    await settlePending(client, wallet.account.address, pollMs, pendingTimeoutMs);
    if (await step.done(client)) {
      progress(`${position} ${step.label}: already on chain`);
      continue;
    }
    progress(`${position} ${step.label}: sending`);
    let hash: Hex;
    try {
      hash =
        step.kind === "raw"
          ? await client.request({ method: "eth_sendRawTransaction", params: [step.serialized] })
          : await wallet.sendTransaction({ to: step.to, data: step.data, value: step.value });
    } catch (error) {
      throw new Error(`${step.label} was refused: ${error instanceof BaseError ? error.shortMessage : String(error)}`);
    }
    sent.push(hash);
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: pollMs });
    if (receipt.status !== "success") throw new Error(`${step.label} reverted in transaction ${hash} (block ${receipt.blockNumber}): nothing after it was sent; fix the cause and run again`);
    if (!(await step.done(client))) throw new Error(`${step.label} succeeded in ${hash} but its effect is not on chain: check ${step.target}`);
    progress(`${position} ${step.label}: confirmed in block ${receipt.blockNumber} (${hash}, gas ${receipt.gasUsed})`);
  }
  return { sent };
}

/** Each planned contract's runtime code on chain against the build, immutables aside; the mismatches, by contract. */
export async function verifyDeployedCode(client: PublicClient, plan: DeployPlan): Promise<string[]> {
  const problems: string[] = [];
  for (const contract of plan.contracts) {
    const code = await client.getCode({ address: contract.address });
    if (code === undefined || code === "0x") {
      problems.push(`${contract.artifact.contractName} has no code at ${contract.address}`);
      continue;
    }
    const offset = runtimeCodeMismatch(contract.artifact, code);
    if (offset !== undefined) problems.push(`${contract.artifact.contractName} at ${contract.address} differs from the build from byte ${offset}`);
  }
  return problems;
}

/** The first block at which `address` has code (a binary search over historical state; the node must keep it). */
export async function firstBlockWithCode(client: PublicClient, address: Address): Promise<bigint> {
  let high = await client.getBlockNumber();
  let low = 0n;
  const has = async (blockNumber: bigint) => {
    const code = await client.getCode({ address, blockNumber });
    return code !== undefined && code !== "0x";
  };
  if (!(await has(high))) throw new Error(`${address} has no code at block ${high}`);
  while (low < high) {
    const middle = (low + high) / 2n;
    if (await has(middle)) high = middle;
    else low = middle + 1n;
  }
  return low;
}
