import { z } from "zod";
import type { GasBudgetJson, GaslessStandingJson } from "./relayWire";

export type BudgetSpentCode = "gasless_taker_gas_budget_spent" | "gasless_integrator_gas_budget_spent";

/**
 * The one body of a 403 "gas budget spent", the relayer's (hand-off, cancel) and the API's (quote,
 * submit, cancel) alike: which budget (`budget`, with the taker's `address` when it is the taker's),
 * its size and what is charged in the window, and when it frees up (null: not by the ledger, the
 * subject's relays still in flight spend it until they are final).
 */
export type BudgetRefusalJson = {
  error: string;
  code: BudgetSpentCode;
  budget: "taker" | "integrator";
  address: string | null;
  budget_gas: number;
  charged_gas: number;
  window_hours: number;
  frees_at: string | null;
};

/** What is refused until a budget frees up, by whose budget is spent (quotes and hand-offs). */
export const GASLESS_QUOTES_REFUSED = { taker: "gasless quotes are refused for it", integrator: "gasless quotes are refused for its keys" } as const;

/** The refusal of the spent budget of a standing, the taker's first; `refused` says what is refused, by whose budget it is. */
export function budgetRefusalOfStanding(standing: GaslessStandingJson, refused: { taker: string; integrator: string } = GASLESS_QUOTES_REFUSED): BudgetRefusalJson {
  return standing.taker.spent
    ? budgetRefusal("taker", standing.taker, standing.window_hours, refused.taker, standing.taker.address)
    : budgetRefusal("integrator", standing.integrator, standing.window_hours, refused.integrator);
}

/** The refusal of one spent budget, its message saying what is refused (`refused`) until when. */
export function budgetRefusal(budget: "taker" | "integrator", view: GasBudgetJson, windowHours: number, refused: string, address?: string): BudgetRefusalJson {
  const who = budget === "taker" ? `taker (permit2_owner) ${address ?? "?"}` : "this integrator";
  const until = view.frees_at ?? "its charges leave the window or an operator clears them";
  return {
    error: `${who} made the relayer pay ${view.charged_gas} gas with no fee in the last ${windowHours} hours (its budget is ${view.budget_gas}); ${refused} until ${until}`,
    code: budget === "taker" ? "gasless_taker_gas_budget_spent" : "gasless_integrator_gas_budget_spent",
    budget,
    address: address ?? null,
    budget_gas: view.budget_gas,
    charged_gas: view.charged_gas,
    window_hours: windowHours,
    frees_at: view.frees_at,
  };
}

const budgetRefusalSchema = z.object({
  error: z.string(),
  code: z.enum(["gasless_taker_gas_budget_spent", "gasless_integrator_gas_budget_spent"]),
  budget: z.enum(["taker", "integrator"]),
  address: z.string().nullable(),
  budget_gas: z.number(),
  charged_gas: z.number(),
  window_hours: z.number(),
  frees_at: z.string().nullable(),
});

/** A budget refusal read from a response body, or undefined when the body is not one. */
export function parseBudgetRefusal(body: unknown): BudgetRefusalJson | undefined {
  const parsed = budgetRefusalSchema.safeParse(body);
  return parsed.success ? parsed.data : undefined;
}
