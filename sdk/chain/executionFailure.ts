import { BaseError } from "viem";

/**
 * The node's words for an `eth_call` whose code ran and failed: a revert (with or without data), out of
 * the gas we gave it, an invalid opcode. Geth and Anvil say "execution reverted", Hardhat "VM Exception
 * while processing transaction" or "Transaction reverted", and each says "out of gas" its own way.
 */
const EXECUTION_FAILURE = /execution reverted|VM Exception|Transaction reverted|reverted with|ran out of gas|out of gas|invalid opcode|stack (?:underflow|overflow)|invalid jump/i;

/**
 * Whether `error` is the called code's own outcome (it reverted, ran out of the gas it was given, hit an
 * invalid opcode): a fact about the contract at that block, which a caller may act on. Anything else
 * (a connection cut, a timeout, a rate limit, a node without that block's state) is no fact at all.
 * Read by message too, so an error from another copy of viem (an integrator's) is judged alike.
 */
export function isExecutionFailure(error: unknown): boolean {
  if (error instanceof BaseError) {
    return error.walk((cause) => (cause as { name?: string }).name === "ExecutionRevertedError" || (cause as { name?: string }).name === "RawContractError" || EXECUTION_FAILURE.test(messageOf(cause))) !== null;
  }
  return EXECUTION_FAILURE.test(messageOf(error));
}

function messageOf(error: unknown): string {
  if (error instanceof BaseError) return `${error.shortMessage} ${error.details ?? ""}`;
  return error instanceof Error ? error.message : String(error);
}
