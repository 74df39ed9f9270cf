import { BaseError } from "viem";
import { isExecutionFailure } from "../../sdk";

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
