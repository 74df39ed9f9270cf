import type { Address } from "viem";

/** The last queued task of each wallet (lowercase address), settled either way; absent when idle. */
const tails = new Map<string, Promise<void>>();

/**
 * Runs `task` after every task queued before it for the same wallet has settled. A wallet's
 * transactions take the node's pending nonce when they are sent, so two sent at once get the same one
 * and one fails ("nonce too low", "replacement underpriced"); approvals and sends of one address go
 * through here, one at a time, across every client in the process. Other wallets are not held up.
 */
export function withWalletNonce<T>(address: Address, task: () => Promise<T>): Promise<T> {
  const key = address.toLowerCase();
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(task);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(key, settled);
  void settled.then(() => {
    if (tails.get(key) === settled) tails.delete(key);
  });
  return run;
}
