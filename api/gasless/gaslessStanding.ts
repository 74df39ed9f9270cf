import type { Address } from "viem";
import { type GaslessStandingJson } from "../../sdk";
import { budgetRefusalOfStanding, type BudgetRefusalJson } from "../../sdk/relay/budgetRefusal";
import { ApiError } from "../../sdk/server/apiError";
import type { RelayerClient } from "./relayerClient";

/** Entries kept at most; past it the cache starts over (a flood of fresh takers cannot grow it). */
const MAX_ENTRIES = 10_000;

/**
 * Refuses gasless quotes to a taker or an integrator whose gas budget is spent (the unpaid-gas ledger:
 * gas the operator paid with no fee that they caused in a rolling day). The relayer owns the ledger
 * (its database, shared by every relayer on PostgreSQL) and answers `GET /internal/gasless-standing`;
 * the API asks before each gasless quote and keeps each answer for `RELAYER_STANDING_CACHE_MS`
 * (default 5 s), so a burst of quotes costs one round trip and a charge stops its taker within seconds.
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
    if (entry.standing.taker.spent || entry.standing.integrator.spent) throw budgetSpentError(entry.standing);
  }
}

/** The 403 of a taker (first) or an integrator whose gas budget is spent, saying when it frees up. */
export function budgetSpentError(standing: GaslessStandingJson): ApiError {
  return budgetRefusalError(budgetRefusalOfStanding(standing));
}

/** A budget refusal (the one wire shape, the relayer's or the API's own) as the API's 403. */
export function budgetRefusalError(refusal: BudgetRefusalJson): ApiError {
  const { error, code, ...body } = refusal;
  return new ApiError(code, error, { body });
}
