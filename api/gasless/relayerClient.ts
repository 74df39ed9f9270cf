import type { Address } from "viem";
import { type GaslessStandingJson, type IntegratorGasBudgetJson, type InternalRelayCancellationJson, type InternalRelayJson, type RelayEventJson, type RelayFeedEventJson, type RelayHandoffResult, type RelayRequestJson, type WebhookDeliveryJson } from "../../sdk";
import { parseBudgetRefusal } from "../../sdk/relay/budgetRefusal";
import { ApiError } from "../../sdk/server/apiError";
import type { GaslessConfig } from "../config";
import { budgetRefusalError } from "./gaslessStanding";

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

  /** A taker's and an integrator's gas budgets, and whether either is spent. */
  standing(taker: Address, integratorId: number): Promise<GaslessStandingJson> {
    return this.#call<GaslessStandingJson>("GET", `/internal/gasless-standing?taker=${taker}&integrator_id=${integratorId}`, undefined, [200]);
  }

  /** An integrator's gas budget and its takers' budget, for its profile and key responses. */
  gasBudget(integratorId: number): Promise<IntegratorGasBudgetJson> {
    return this.#call<IntegratorGasBudgetJson>("GET", `/internal/gas-budget?integrator_id=${integratorId}`, undefined, [200]);
  }

  /** Registers (url and secret) or clears (undefined) an integrator's webhook. */
  setWebhook(integratorId: number, endpoint: { url: string; secret: string } | undefined): Promise<unknown> {
    return endpoint === undefined
      ? this.#call("DELETE", `/internal/webhooks/${integratorId}`, undefined, [200])
      : this.#call("PUT", `/internal/webhooks/${integratorId}`, endpoint, [200]);
  }

  webhookDeliveries(integratorId: number, limit: number): Promise<{ url: string | null; deliveries: WebhookDeliveryJson[] }> {
    return this.#call("GET", `/internal/webhooks/${integratorId}/deliveries?limit=${limit}`, undefined, [200]);
  }

  /** Relay events after `after` (a long poll of up to `waitMs`): what GET /gasless/events streams. */
  relayEvents(query: { integratorId: number; relayId: string | undefined; after: number | "head"; waitMs: number }, signal?: AbortSignal): Promise<{ after: number; events: RelayEventJson[] }> {
    const params = new URLSearchParams({ integrator_id: String(query.integratorId), after: String(query.after), wait_ms: String(query.waitMs) });
    if (query.relayId !== undefined) params.set("relay_id", query.relayId);
    return this.#call("GET", `/internal/relay-events?${params.toString()}`, undefined, [200], undefined, { timeoutMs: query.waitMs + TIMEOUT_MS, signal });
  }

  /** Every integrator's events after `after` (a long poll of up to `waitMs`): the feed one API instance follows for all its streams. */
  relayEventFeed(after: number | "head", waitMs: number, signal?: AbortSignal): Promise<{ after: number; events: RelayFeedEventJson[] }> {
    const params = new URLSearchParams({ after: String(after), wait_ms: String(waitMs) });
    return this.#call("GET", `/internal/relay-events/feed?${params.toString()}`, undefined, [200], undefined, { timeoutMs: waitMs + TIMEOUT_MS, signal });
  }

  async get(relayId: string): Promise<InternalRelayJson | undefined> {
    return this.#call<InternalRelayJson | undefined>("GET", `/internal/relays/${encodeURIComponent(relayId)}`, undefined, [200, 404], (status) => status === 404);
  }

  /**
   * Cancels a relay of `integratorId` (`outcome: "final"` when it had already ended); undefined when
   * the relayer has no such relay of this integrator.
   */
  cancel(relayId: string, integratorId: number): Promise<InternalRelayCancellationJson | undefined> {
    return this.#call<InternalRelayCancellationJson | undefined>(
      "POST",
      `/internal/relays/${encodeURIComponent(relayId)}/cancel`,
      { integrator_id: integratorId },
      [200, 404, 409],
      (status) => status === 404,
    );
  }

  /**
   * Whether gasless swaps can be served now: "ok" when any configured relayer answers its own
   * GET /ready with 200 (database, chain and a funded signer), else why not, naming each URL.
   */
  async ready(timeoutMs: number): Promise<string> {
    const answers = await Promise.all(
      this.config.relayerUrls.map((url) =>
        fetch(`${url}/ready`, { signal: AbortSignal.timeout(timeoutMs) }).then(
          async (response) => (response.status === 200 ? "ok" : `${url}/ready answered ${response.status}${await notReadyChecks(response)}`),
          (error: unknown) => `${url} cannot be reached (${networkReason(error)})`,
        ),
      ),
    );
    return answers.includes("ok") ? "ok" : answers.join("; ");
  }

  async #call<T>(method: string, path: string, body: unknown, expected: number[], isAbsent?: (status: number) => boolean, options: { timeoutMs?: number; signal?: AbortSignal | undefined } = {}): Promise<T> {
    const urls = this.config.relayerUrls;
    const start = this.#next++ % urls.length;
    let response: Response | undefined;
    for (let attempt = 0; attempt < urls.length && response === undefined; attempt++) {
      response = await fetch(`${urls[(start + attempt) % urls.length]}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.config.relayerToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: options.signal === undefined ? AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS) : AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS)]),
      }).then(
        (answer) => (answer.status >= 500 && attempt < urls.length - 1 ? undefined : answer),
        () => undefined,
      );
    }
    if (response === undefined) {
      throw new ApiError("relayer_unavailable", "the relayer cannot be reached right now; retry with the same idempotency_key");
    }
    if (isAbsent?.(response.status) === true) return undefined as T;
    if (response.status === 400) {
      // The relayer's own fee-token list refused the relay (it and the API were configured apart):
      // the client's sell token is at fault for this relayer, and no retry changes that.
      const refusal = (await response.json().catch(() => undefined)) as { code?: unknown; error?: unknown } | undefined;
      if (refusal?.code === "fee_token_not_accepted") {
        throw new ApiError("fee_token_not_accepted", `sell_token: ${String(refusal.error)}; quote it without permit2_owner to swap it yourself`);
      }
    }
    if (response.status === 403) {
      // The relayer's own ledger refused: a hand-off whose taker's or integrator's gas budget was spent
      // after its quote, or a cancel of a broadcast swap once the integrator's budget is spent.
      const refusal = parseBudgetRefusal(await response.json().catch(() => undefined));
      if (refusal !== undefined) throw budgetRefusalError(refusal);
    }
    if (!expected.includes(response.status)) {
      throw new ApiError("relayer_unavailable", `the relayer answered ${response.status}; retry with the same idempotency_key`);
    }
    return (await response.json()) as T;
  }
}

/** The failing checks of a relayer's 503 not_ready, as ` (signers: …)`. */
async function notReadyChecks(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { checks?: Record<string, unknown> };
  const failing = Object.entries(body.checks ?? {}).filter(([, value]) => value !== "ok");
  return failing.length === 0 ? "" : ` (${failing.map(([name, value]) => `${name}: ${String(value)}`).join(", ")})`;
}

function networkReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as Error & { cause?: { code?: unknown } }).cause?.code;
  return typeof code === "string" ? code : error.message;
}
