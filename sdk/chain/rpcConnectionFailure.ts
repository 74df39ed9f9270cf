import { BaseError, HttpRequestError, SocketClosedError, TimeoutError, WebSocketRequestError } from "viem";

/** Why a JSON-RPC request never got an answer: the URL tried (when the transport says) and the reason. */
export type RpcConnectionFailure = { url: string | undefined; reason: string };

/**
 * The connection failure inside a viem error (HTTP or WebSocket request failed, timed out, socket
 * closed), or undefined when the node did answer, with a revert or any other JSON-RPC error. A revert
 * is an answer about the chain; this is no answer at all, and must never be read as one.
 */
export function rpcConnectionFailure(error: unknown): RpcConnectionFailure | undefined {
  if (!(error instanceof BaseError)) return undefined;
  const inner = error.walk((cause) => cause instanceof HttpRequestError || cause instanceof TimeoutError || cause instanceof WebSocketRequestError || cause instanceof SocketClosedError) as
    | HttpRequestError
    | TimeoutError
    | WebSocketRequestError
    | SocketClosedError
    | null;
  if (inner === null) return undefined;
  const url = inner.url;
  const reason = inner.details && inner.details !== inner.shortMessage ? `${inner.shortMessage} ${inner.details}` : inner.shortMessage;
  return { url, reason: reason.replace(/\s+/g, " ").trim() };
}
