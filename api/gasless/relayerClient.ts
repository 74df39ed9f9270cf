import type { InternalRelayJson, RelayHandoffResult, RelayRequestJson } from "../../sdk";
import { ApiError } from "../apiError";
import type { GaslessConfig } from "../config";

/** An existing relay that a submission matches, or a conflict with one; `none` when there is none. */
export type RelayMatch = RelayHandoffResult | { outcome: "none" };

export type RelayMatchQuery = { chain_id: number; quote_id: string; integrator_id: number; idempotency_key: string | null; signature: string };

const TIMEOUT_MS = 10_000;

/**
 * The API's side of the hand-off to the relayer: JSON over loopback HTTP with the shared secret.
 * The relayers own relays (their database); the API validates and asks. Calls go to the configured
 * relayers in turn, and one that cannot be reached (or answers 5xx) is skipped for the next: with
 * PostgreSQL any relayer stores a relay for all and reads any relay. When none answers, a 503
 * `relayer_unavailable`, so the client retries with the same idempotency key.
 */
export class RelayerClient {
  #next = 0;

  constructor(private readonly config: GaslessConfig) {}

  /** The relay a retried submission belongs to, before any validation that its broadcast would change. */
  match(query: RelayMatchQuery): Promise<RelayMatch> {
    return this.#call<RelayMatch>("POST", "/internal/relays/match", query, [200, 409]);
  }

  /** Hands a validated relay over; the relayer stores it (or finds the existing one) before answering. */
  handOff(request: RelayRequestJson): Promise<RelayHandoffResult> {
    return this.#call<RelayHandoffResult>("POST", "/internal/relays", request, [200, 201, 409]);
  }

  async get(relayId: string): Promise<InternalRelayJson | undefined> {
    return this.#call<InternalRelayJson | undefined>("GET", `/internal/relays/${encodeURIComponent(relayId)}`, undefined, [200, 404], (status) => status === 404);
  }

  async #call<T>(method: string, path: string, body: unknown, expected: number[], isAbsent?: (status: number) => boolean): Promise<T> {
    const urls = this.config.relayerUrls;
    const start = this.#next++ % urls.length;
    let response: Response | undefined;
    for (let attempt = 0; attempt < urls.length && response === undefined; attempt++) {
      response = await fetch(`${urls[(start + attempt) % urls.length]}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.config.relayerToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      }).then(
        (answer) => (answer.status >= 500 && attempt < urls.length - 1 ? undefined : answer),
        () => undefined,
      );
    }
    if (response === undefined) {
      throw new ApiError(503, "relayer_unavailable", "the relayer cannot be reached right now; retry with the same idempotency_key");
    }
    if (isAbsent?.(response.status) === true) return undefined as T;
    if (response.status === 400) {
      // The relayer's own fee-token list refused the relay (it and the API were configured apart):
      // the client's sell token is at fault for this relayer, and no retry changes that.
      const refusal = (await response.json().catch(() => undefined)) as { code?: unknown; error?: unknown } | undefined;
      if (refusal?.code === "fee_token_not_accepted") {
        throw new ApiError(400, "fee_token_not_accepted", `sell_token: ${String(refusal.error)}; quote it without permit2_owner to swap it yourself`);
      }
    }
    if (!expected.includes(response.status)) {
      throw new ApiError(503, "relayer_unavailable", `the relayer answered ${response.status}; retry with the same idempotency_key`);
    }
    return (await response.json()) as T;
  }
}
