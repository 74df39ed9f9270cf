import { BaseError } from "viem";

/**
 * Whether a node's error says the call reverted (the transaction itself cannot execute), as opposed to
 * the node being unreachable or refusing for another reason. The API's submission check and the
 * relayer's pre-broadcast check both decide on it.
 */
export function isRevertError(error: unknown): boolean {
  return error instanceof BaseError && /revert|execution/i.test(`${error.shortMessage} ${error.details ?? ""}`);
}
