import { cappedPriorityFee } from "../../sdk/chain/networkFeeModel";
import { firstBroadcastFees } from "../../sdk/relay/firstBroadcastFees";
import { type BlockHead } from "../../sdk/chain/chainHead";
import type { RelayContext } from "../queue/relayContext";

/** EIP-1559 fees of one transaction, in wei. */
export type Fees = Readonly<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;

/** The replacement rule of Hardhat's and geth's mempools: both fees at least 110 % of the old ones. */
export const REPLACEMENT_BUMP_PERCENT = 10n;

/** Fees of a first broadcast: twice the base fee (room for six full blocks of rises) plus the tip (the API simulates with the same rule). */
export function initialFees(baseFeePerGas: bigint, priorityFeePerGas: bigint, ceiling: bigint): Fees {
  return firstBroadcastFees(baseFeePerGas, priorityFeePerGas, ceiling);
}

/**
 * Fees of a first broadcast at `head`, alone or in a batch: the node's suggested tip, at most
 * RELAYER_PRIORITY_FEE_GWEI (as the API priced the fee), or the configured tip without a fee model.
 */
export async function firstFees(context: Pick<RelayContext, "config" | "fees">, head: BlockHead): Promise<Fees> {
  const { config } = context;
  const tip = context.fees === undefined ? config.priorityFeeWei : cappedPriorityFee(await context.fees.at(head), config.priorityFeeWei);
  return initialFees(head.baseFeePerGas, tip, config.maxFeeWei);
}

/** `value` raised by the replacement percentage, rounded up, and by at least one wei. */
export function bumped(value: bigint): bigint {
  const raised = (value * (100n + REPLACEMENT_BUMP_PERCENT) + 99n) / 100n;
  return raised > value ? raised : value + 1n;
}

/**
 * Fees of a replacement made for a cancellation (a self-transfer, or a batch rebuilt without the
 * cancelled relay): the usual replacement bump, within RELAYER_MAX_FEE_GWEI when that leaves a valid
 * replacement. When the fees are already at the ceiling, it still goes out with the smallest bump
 * the mempool takes (at most 10 % past the ceiling): a cancel that cannot replace the swap cancels nothing.
 */
export function cancelFees(previous: Fees, network: { baseFeePerGas: bigint; priorityFeePerGas: bigint }, ceiling: bigint): Fees {
  return replacementFees(previous, network, ceiling) ?? { maxFeePerGas: bumped(previous.maxFeePerGas), maxPriorityFeePerGas: bumped(previous.maxPriorityFeePerGas) };
}

/**
 * Fees that replace `previous` in the mempool: each field at least 110 % of the old one (rounded up),
 * and no less than what the network asks now, but never above `ceiling`. Returns undefined when the
 * ceiling leaves no valid replacement: the caller then waits instead of sending one the mempool
 * would refuse.
 */
export function replacementFees(previous: Fees, network: { baseFeePerGas: bigint; priorityFeePerGas: bigint }, ceiling: bigint): Fees | undefined {
  const maxPriorityFeePerGas = max(bumped(previous.maxPriorityFeePerGas), network.priorityFeePerGas);
  const maxFeePerGas = max(bumped(previous.maxFeePerGas), 2n * network.baseFeePerGas + maxPriorityFeePerGas);
  if (maxFeePerGas > ceiling) {
    const capped = { maxFeePerGas: ceiling, maxPriorityFeePerGas: min(maxPriorityFeePerGas, ceiling) };
    return isValidReplacement(previous, capped) ? capped : undefined;
  }
  return { maxFeePerGas, maxPriorityFeePerGas };
}

/** Whether `next` may replace `previous` in a mempool that wants a 10 % bump of both fields. */
export function isValidReplacement(previous: Fees, next: Fees): boolean {
  return (
    next.maxFeePerGas >= bumped(previous.maxFeePerGas) &&
    next.maxPriorityFeePerGas >= bumped(previous.maxPriorityFeePerGas) &&
    next.maxPriorityFeePerGas <= next.maxFeePerGas
  );
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
