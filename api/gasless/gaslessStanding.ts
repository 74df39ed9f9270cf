import type { Address } from "viem";
import type { GaslessStandingJson } from "../../sdk";
import { ApiError } from "../apiError";
import type { RelayerClient } from "./relayerClient";

/** Entries kept at most; past it the cache starts over (a flood of fresh takers cannot grow it). */
const MAX_ENTRIES = 10_000;

/**
 * Refuses gasless quotes to a taker or an integrator past its limit of reverted relays. The relayer
 * owns the counts (its database, shared by every relayer on PostgreSQL) and answers
 * `GET /internal/gasless-standing`; the API asks before each gasless quote and keeps each answer for
 * `RELAYER_STANDING_CACHE_MS` (default 5 s), so a burst of quotes costs one round trip and a revert
 * blocks its taker within seconds.
 */
export class GaslessStandingCheck {
  readonly #cache = new Map<string, { at: number; standing: GaslessStandingJson }>();

  constructor(
    private readonly relayer: RelayerClient,
    private readonly cacheMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async assertAllowed(taker: Address, integratorId: number): Promise<void> {
    const key = `${taker.toLowerCase()}:${integratorId}`;
    const now = this.now();
    let entry = this.#cache.get(key);
    if (entry === undefined || now - entry.at >= this.cacheMs) {
      entry = { at: now, standing: await this.relayer.standing(taker, integratorId) };
      if (this.#cache.size >= MAX_ENTRIES) this.#cache.clear();
      this.#cache.set(key, entry);
    }
    if (entry.standing.taker.blocked || entry.standing.integrator.blocked) throw blockedError(entry.standing);
  }
}

/** The 403 of a taker (first) or an integrator past its limit of reverted relays. */
export function blockedError(standing: GaslessStandingJson): ApiError {
  if (standing.taker.blocked) {
    return new ApiError(
      403,
      "gasless_taker_blocked",
      `taker (permit2_owner) ${standing.taker.address} had ${standing.taker.reverts} relayed swaps revert in the last ${standing.window_hours} hours (limit ${standing.taker.limit}); gasless quotes are refused for it, send the swap yourself`,
    );
  }
  return new ApiError(
    403,
    "gasless_integrator_blocked",
    `this integrator's relayed swaps reverted ${standing.integrator.reverts} times in the last ${standing.window_hours} hours (limit ${standing.integrator.limit}); gasless quotes are refused for its keys until the operator clears them`,
  );
}
