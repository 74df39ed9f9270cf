/** Why a JSON-RPC request never got an answer: the URL tried (when the transport says) and the reason. */
export type RpcConnectionFailure = { url: string | undefined; reason: string };

/** viem's errors for a request that got no JSON-RPC answer. */
const NO_ANSWER = new Set(["HttpRequestError", "TimeoutError", "WebSocketRequestError", "SocketClosedError"]);

type ErrorFields = { name?: unknown; url?: unknown; shortMessage?: unknown; details?: unknown; message?: unknown; cause?: unknown };

/**
 * The connection failure inside a viem error (HTTP or WebSocket request failed, timed out, socket
 * closed), or undefined when the node did answer, with a revert or any other JSON-RPC error. A revert
 * is an answer about the chain; this is no answer at all, and must never be read as one.
 *
 * Recognised by the errors' names along the cause chain, not by `instanceof`: an integrator's ES module
 * viem and this package's CommonJS viem are two copies with two sets of classes.
 */
export function rpcConnectionFailure(error: unknown): RpcConnectionFailure | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && typeof current === "object" && current !== null; depth++) {
    const fields = current as ErrorFields;
    if (typeof fields.name === "string" && NO_ANSWER.has(fields.name)) {
      const short = typeof fields.shortMessage === "string" ? fields.shortMessage : typeof fields.message === "string" ? fields.message.split("\n")[0]! : fields.name;
      const reason = typeof fields.details === "string" && fields.details !== short ? `${short} ${fields.details}` : short;
      return { url: typeof fields.url === "string" ? fields.url : undefined, reason: reason.replace(/\s+/g, " ").trim() };
    }
    current = fields.cause;
  }
  return undefined;
}
