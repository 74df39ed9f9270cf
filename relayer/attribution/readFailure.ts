import { BaseError } from "viem";

/**
 * A read the attribution needed and did not get: the node was unreachable, timed out, or answered with
 * an error that is not the called code's own outcome (a rate limit, state it does not have). Nothing is
 * decided on it: the mined outcome is not recorded (no ledger entry, nobody charged), and the receipt
 * watcher tries again at its next block.
 */
export class AttributionReadError extends Error {
  constructor(
    readonly what: string,
    override readonly cause: unknown,
  ) {
    super(`attribution deferred: could not read ${what} (${cause instanceof BaseError ? cause.shortMessage : cause instanceof Error ? cause.message : String(cause)})`);
    this.name = "AttributionReadError";
  }
}

/**
 * The node's words for an `eth_call` whose code ran and failed: a revert (with or without data), out of
 * the gas we gave it, an invalid opcode. Geth and Anvil say "execution reverted", Hardhat "VM Exception
 * while processing transaction" or "Transaction reverted", and each says "out of gas" its own way.
 */
const EXECUTION_FAILURE = /execution reverted|VM Exception|Transaction reverted|reverted with|ran out of gas|out of gas|invalid opcode|stack (?:underflow|overflow)|invalid jump/i;

/**
 * Whether `error` is the called code's own outcome (it reverted, ran out of the gas it was given, hit an
 * invalid opcode): a fact about the contract at that block, which attribution may act on. Anything else
 * (a connection cut, a timeout, a rate limit, a node without that block's state) is no fact at all.
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

/**
 * `read`'s value; `refused` when the called code reverted or ran out of gas (the contract said no: a
 * fact); throws AttributionReadError for any other failure, so that no cause is decided on it.
 */
export async function readOrRefused<T>(read: Promise<T>, refused: T, what: string): Promise<T> {
  try {
    return await read;
  } catch (error) {
    if (isExecutionFailure(error)) return refused;
    throw new AttributionReadError(what, error);
  }
}

/** `read`'s value; any failure throws AttributionReadError (a read whose failure says nothing about the order). */
export async function readOrDefer<T>(read: Promise<T>, what: string): Promise<T> {
  try {
    return await read;
  } catch (error) {
    throw error instanceof AttributionReadError ? error : new AttributionReadError(what, error);
  }
}
