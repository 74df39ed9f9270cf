import type { Address } from "viem";
import { budgetRefusalOfStanding, type BudgetRefusalJson } from "../../sdk/relay/budgetRefusal";
import type { GasBudgets } from "../config";
import { gaslessStanding } from "./gaslessStanding";
import type { RelayStore } from "../store/relayStore";

/**
 * The refusal of a hand-off whose taker's or integrator's budget is spent; undefined when it may go.
 * Only gas already charged counts: relays still in flight are not counted as spent, because doing so
 * caps an honest integrator's concurrency at its budget over one swap's gas limit (about 20 relays at
 * the defaults), far below the relayer's throughput. What is in flight when a budget is crossed can
 * still be charged after it (SECURITY.md, "Worst case per day").
 */
export async function handoffBudgetRefusal(store: RelayStore, budgets: GasBudgets, subject: { taker: Address; integratorId: number }, now: Date): Promise<BudgetRefusalJson | undefined> {
  const standing = await gaslessStanding(store, budgets, subject, now);
  return standing.taker.spent || standing.integrator.spent ? budgetRefusalOfStanding(standing) : undefined;
}
