import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";

/** Node and socket wordings of a request that never got an answer, for errors that are not viem's. */
const NO_ANSWER_TEXT = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE|fetch failed|socket hang up|network/i;

/**
 * Whether a JSON-RPC request got no answer worth acting on, so it may be tried again (later, or on
 * another endpoint) and must never be read as the node saying no: no answer at all (connection,
 * timeout, HTTP 429/5xx: `rpcConnectionFailure`), or the node's own trouble (-32005 limit exceeded, or
 * -32603 internal error without revert data). A revert is an answer, whatever its code: Hardhat
 * answers reverts as -32603 with the revert data, and a reverting call must neither be retried
 * everywhere nor count against the node. The one classifier the read endpoints' failover and the
 * relayer's retries share.
 */
export function isNoAnswer(error: unknown): boolean {
  if (rpcConnectionFailure(error) !== undefined) return true;
  let current: unknown = error;
  for (let depth = 0; depth < 10 && typeof current === "object" && current !== null; depth++) {
    // By name, as rpcConnectionFailure does: two copies of viem have two RpcRequestError classes.
    const fields = current as { name?: unknown; code?: unknown; data?: unknown; details?: unknown; cause?: unknown };
    if (fields.name === "RpcRequestError") return fields.code === -32005 || (fields.code === -32603 && !isRevertAnswer(fields));
    current = fields.cause;
  }
  // Not viem's (a bare fetch or socket error): only its words say it. A viem error that got here is an
  // answer (a revert, a refusal), whatever its text mentions.
  if (isViemError(error)) return false;
  const text = error instanceof Error ? `${error.message} ${String((error as { cause?: unknown }).cause ?? "")}` : String(error);
  return NO_ANSWER_TEXT.test(text);
}

/**
 * isNoAnswer for requests that run no contract code (a send, a transaction or receipt lookup): they
 * cannot revert, so a -32603 internal error is the node's trouble whatever data it carries, never a
 * "no" to act on (freeing a nonce a mempool may still hold, or filling one that is in use).
 */
export function isNoAnswerWithoutExecution(error: unknown): boolean {
  return isNoAnswer(error) || rpcCodeOf(error) === -32603;
}

/** The JSON-RPC error code viem reports for a request, found through the error's causes. */
function rpcCodeOf(error: unknown): unknown {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && typeof current === "object" && current !== null; depth++) {
    const fields = current as { name?: unknown; code?: unknown; cause?: unknown };
    if (fields.name === "RpcRequestError") return fields.code;
    current = fields.cause;
  }
  return undefined;
}

/** Whether an internal-error answer is a revert: it carries revert data, or says it reverted. */
function isRevertAnswer(error: { data?: unknown; details?: unknown }): boolean {
  if (error.data !== undefined && error.data !== null) return true;
  return typeof error.details === "string" && /revert/i.test(error.details);
}

/** viem's errors carry a short message; any other error is a plain one. */
function isViemError(error: unknown): boolean {
  return typeof error === "object" && error !== null && typeof (error as { shortMessage?: unknown }).shortMessage === "string";
}
