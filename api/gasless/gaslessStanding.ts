import type { Address } from "viem";
import type { GasBudgetJson, GaslessStandingJson } from "../../sdk";
import { ApiError } from "../apiError";
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
  const hours = standing.window_hours;
  if (standing.taker.spent) {
    const budget = standing.taker;
    return new ApiError(
      403,
      "gasless_taker_gas_budget_spent",
      `taker (permit2_owner) ${budget.address} made the relayer pay ${budget.charged_gas} gas with no fee in the last ${hours} hours (its budget is ${budget.budget_gas}); gasless quotes are refused for it until ${budget.frees_at}, send the swap yourself`,
      { body: budgetFields("taker", budget, hours) },
    );
  }
  return integratorBudgetSpentError(standing.integrator, hours, "gasless quotes are refused for its keys");
}

/** The 403 of an integrator whose gas budget is spent; `refused` says what is refused until it frees up. */
export function integratorBudgetSpentError(budget: GasBudgetJson, hours: number, refused: string): ApiError {
  return new ApiError(
    403,
    "gasless_integrator_gas_budget_spent",
    `this integrator made the relayer pay ${budget.charged_gas} gas with no fee in the last ${hours} hours (its budget is ${budget.budget_gas}); ${refused} until ${budget.frees_at}`,
    { body: budgetFields("integrator", budget, hours) },
  );
}

/** The fields every budget refusal carries besides `error` and `code`. */
function budgetFields(budget: "taker" | "integrator", view: GasBudgetJson, hours: number): Record<string, string | number | null> {
  return { budget, budget_gas: view.budget_gas, charged_gas: view.charged_gas, window_hours: hours, frees_at: view.frees_at };
}
