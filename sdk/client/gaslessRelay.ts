import type { Hex } from "viem";
import { RelayTimeoutError } from "../errors/client";
import { isFinalRelayStatus } from "../relay/relayStatus";
import type { RelayCancellationJson, RelayJson } from "../relay/relayWire";
import { parseRelayCancellationJson, parseRelayJson } from "../wire/relayJson";
import type { ApiTransport } from "./apiTransport";

export type SubmitGaslessOptions = {
  /** Makes retries safe: the API returns the same relay for the same key and quote. Generated when absent. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** The taker's signature of the quote's `approval.eip712` (signGaslessApproval): Permit2 is approved in the relayed transaction. */
  approvalSignature?: Hex;
};

export type WaitForRelayOptions = {
  /** Poll interval; default 1000 ms. */
  intervalMs?: number;
  /** Give up (RelayTimeoutError) after this long; default 120000 ms. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called with every status read that differs from the previous one. */
  onStatus?: (relay: RelayJson) => void;
};

/** A fresh idempotency key for one gasless submission. */
export function newIdempotencyKey(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * POST /gasless/submit. Always sent with an idempotency key, so the transport may retry it after a
 * network error or a 5xx/429: a repeat returns the relay already created instead of a second one.
 */
export async function submitGasless(transport: ApiTransport, quoteId: string, signature: Hex, options: SubmitGaslessOptions = {}): Promise<RelayJson> {
  const idempotencyKey = options.idempotencyKey ?? newIdempotencyKey();
  const response = await transport.request({
    method: "POST",
    path: "/gasless/submit",
    body: { quote_id: quoteId, signature, idempotency_key: idempotencyKey, ...(options.approvalSignature === undefined ? {} : { approval_signature: options.approvalSignature }) },
    authenticated: true,
    retry: true,
    signal: options.signal,
  });
  return parseRelayJson(response.body);
}

/** GET /gasless/status/{relay_id}. */
export async function getRelay(transport: ApiTransport, relayId: string, signal?: AbortSignal): Promise<RelayJson> {
  const response = await transport.request({ method: "GET", path: `/gasless/status/${encodeURIComponent(relayId)}`, authenticated: true, retry: true, signal });
  return parseRelayJson(response.body);
}

/**
 * POST /gasless/cancel/{relay_id}: cancels a relay of this key's integrator. `outcome` says what
 * happened (`cancelled`, `cancelling`: follow it with waitForRelay until the chain decides, or
 * `already_mined`); `invalidate_nonce` is the transaction the taker's own wallet may send to kill the
 * signature on chain. A relay that is already final throws ApiError 409 `relay_final` (its `status`
 * in `body`): after a retried request, `status: "cancelled"` means the first one took effect.
 */
export async function cancelRelay(transport: ApiTransport, relayId: string, signal?: AbortSignal): Promise<RelayCancellationJson> {
  const response = await transport.request({ method: "POST", path: `/gasless/cancel/${encodeURIComponent(relayId)}`, authenticated: true, retry: true, signal });
  return parseRelayCancellationJson(response.body);
}

/** Polls a relay until it is final (confirmed, failed, expired, rejected, cancelled); returns that relay. */
export async function waitForRelay(transport: ApiTransport, relayId: string, options: WaitForRelayOptions = {}): Promise<RelayJson> {
  const intervalMs = options.intervalMs ?? 1000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  let last: RelayJson | undefined;
  for (;;) {
    const relay = await getRelay(transport, relayId, options.signal);
    if (last === undefined || last.status !== relay.status || last.tx_hash !== relay.tx_hash) options.onStatus?.(relay);
    last = relay;
    if (isFinalRelayStatus(relay.status)) return relay;
    if (Date.now() + intervalMs > deadline) throw new RelayTimeoutError(relayId, relay.status, timeoutMs);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, intervalMs);
      options.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(options.signal?.reason)), { once: true });
    });
  }
}
