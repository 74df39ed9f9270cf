import { zeroAddress, type Address } from "viem";
import type { GasBudgetJson, GaslessStandingJson, IntegratorGasBudgetJson } from "../../sdk";
import type { GasBudgets } from "../config";
import type { UnpaidGasSubject } from "../ledger/unpaidGas";
import type { RelayStore } from "../store/relayStore";

/** Charges count against a budget for this long (a rolling day); older ones no longer block anyone. */
export const BUDGET_WINDOW_HOURS = 24;
export const BUDGET_WINDOW_MS = BUDGET_WINDOW_HOURS * 3_600_000;

/** The start of the window that counts at `now`. */
export function budgetWindowStart(now: Date): Date {
  return new Date(now.getTime() - BUDGET_WINDOW_MS);
}

/**
 * Whether a taker and an integrator may still have gasless quotes: the gas the operator paid with no
 * fee that each caused in the window (the unpaid-gas ledger, causes `taker` for a taker, `taker` and
 * `integrator` for an integrator; the market's and the operator's count against nobody), against its
 * budget. Past it they are refused until the charges slide out of the window or an operator clears
 * them (`npm run integrators -- clear-reverts`).
 */
export async function gaslessStanding(store: RelayStore, budgets: GasBudgets, subject: { taker: Address; integratorId: number }, now: Date): Promise<GaslessStandingJson> {
  const since = budgetWindowStart(now);
  const charged = await store.unpaidGasCharged({ ...subject, since });
  return {
    window_hours: BUDGET_WINDOW_HOURS,
    taker: { address: subject.taker, ...(await budgetView(store, { kind: "taker", taker: subject.taker }, budgets.taker, charged.taker, since)) },
    integrator: { integrator_id: subject.integratorId, ...(await budgetView(store, { kind: "integrator", integratorId: subject.integratorId }, budgets.integrator, charged.integrator, since)) },
  };
}

/** An integrator's own budget (for its profile and key responses, and its cancels), and the budget every taker has. */
export async function integratorGasBudget(store: RelayStore, budgets: GasBudgets, integratorId: number, now: Date): Promise<IntegratorGasBudgetJson> {
  const since = budgetWindowStart(now);
  // No taker is asked about: the zero address signs no order, so its part is always zero.
  const charged = await store.unpaidGasCharged({ taker: zeroAddress, integratorId, since });
  return {
    window_hours: BUDGET_WINDOW_HOURS,
    taker_budget_gas: Number(budgets.taker),
    integrator: { integrator_id: integratorId, ...(await budgetView(store, { kind: "integrator", integratorId }, budgets.integrator, charged.integrator, since)) },
  };
}

/**
 * One subject's budget: spent once its charges in the window reach it. It frees up when enough
 * charges leave the window to bring them below it (`frees_at`).
 */
export async function budgetView(store: RelayStore, subject: UnpaidGasSubject, budget: bigint, charged: bigint, since: Date): Promise<GasBudgetJson> {
  const spent = charged >= budget;
  const releasedBy = spent ? await store.unpaidGasReleaseAt(subject, { since, keep: budget - 1n }) : undefined;
  return {
    budget_gas: Number(budget),
    charged_gas: Number(charged),
    remaining_gas: Number(spent ? 0n : budget - charged),
    spent,
    frees_at: releasedBy === undefined ? null : new Date(releasedBy.getTime() + BUDGET_WINDOW_MS).toISOString(),
  };
}
