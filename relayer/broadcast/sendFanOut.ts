import { http, type Transport } from "viem";
import { isNoAnswerWithoutExecution } from "../../sdk/rpc/noAnswer";
import { endpointLabel } from "../../sdk/rpc/endpointLabel";

/** What one send endpoint did with one raw transaction: took it, answered no, or could not be reached. */
export type SendEndpointOutcome = "accepted" | "refused" | "unreachable";

/**
 * Wraps the relayer's transport so that `eth_sendRawTransaction` goes to every `RELAYER_SEND_URLS`
 * endpoint at once instead of the read transport (the same signed bytes, so several copies are one
 * transaction). The first endpoint that takes it answers. When none does: if any could not be reached
 * (or timed out), that error (transient: the transaction is followed and checked against the chain, never
 * taken as refused, since the silent endpoint may have propagated it); only when every endpoint refused
 * is a refusal the answer ("already known" before the others), classified as any node's
 * (relayer/broadcast/broadcaster.ts). Every other method goes to the read transport.
 */
export function fanOutSends(reads: Transport, sendUrls: readonly string[], observe: (endpoint: string, outcome: SendEndpointOutcome) => void, timeoutMs = 10_000): Transport {
  const senders = sendUrls.map((url) => ({ label: endpointLabel(url), transport: http(url, { retryCount: 0, timeout: timeoutMs }) }));
  return ((options: Parameters<Transport>[0]) => {
    const inner = reads(options);
    const targets = senders.map((sender) => ({ label: sender.label, request: sender.transport(options).request as (args: unknown) => Promise<unknown> }));
    const request = (async (args: { method: string; params?: unknown }, requestOptions?: unknown) => {
      if (args.method !== "eth_sendRawTransaction") return (inner.request as (a: unknown, o?: unknown) => Promise<unknown>)(args, requestOptions);
      const answers = targets.map((target) =>
        target.request(args).then(
          (result) => {
            observe(target.label, "accepted");
            return result;
          },
          (error: unknown) => {
            observe(target.label, isNoAnswerWithoutExecution(error) ? "unreachable" : "refused");
            throw error;
          },
        ),
      );
      try {
        return await Promise.any(answers);
      } catch {
        const errors = (await Promise.allSettled(answers)).map((settled) => (settled.status === "rejected" ? (settled.reason as unknown) : undefined));
        // An endpoint that did not answer may have taken it (and propagated it): a refusal elsewhere
        // proves nothing then, so the send stays open (transient: followed, checked against the chain).
        // Only when every endpoint answered no is the refusal the answer; "already known" first (ours is there).
        throw errors.find(isNoAnswerWithoutExecution) ?? errors.find((error) => /already known/i.test(String(error))) ?? errors[0];
      }
    }) as typeof inner.request;
    return { ...inner, request };
  }) as Transport;
}
