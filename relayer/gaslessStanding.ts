import { zeroAddress, type Address } from "viem";
import type { GasBudgetJson, GaslessStandingJson, IntegratorGasBudgetJson } from "../sdk";
import type { GasBudgets } from "./config";
import type { InFlightGas } from "./inFlightGas";
import type { UnpaidGasSubject } from "./ledger/unpaidGas";
import type { RelayStore } from "./store/relayStore";

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
 * them (`npm run integrators -- clear-reverts`). `inFlight` (at a hand-off) is the worst case of their
 * relays not yet final, counted as spent (its gas is not in `charged_gas`).
 */
export async function gaslessStanding(store: RelayStore, budgets: GasBudgets, subject: { taker: Address; integratorId: number }, now: Date, inFlight: InFlightGas = NO_GAS_IN_FLIGHT): Promise<GaslessStandingJson> {
  const since = budgetWindowStart(now);
  const charged = await store.unpaidGasCharged({ ...subject, since });
  return {
    window_hours: BUDGET_WINDOW_HOURS,
    taker: { address: subject.taker, ...(await budgetView(store, { kind: "taker", taker: subject.taker }, budgets.taker, charged.taker, since, inFlight.taker)) },
    integrator: { integrator_id: subject.integratorId, ...(await budgetView(store, { kind: "integrator", integratorId: subject.integratorId }, budgets.integrator, charged.integrator, since, inFlight.integrator)) },
  };
}

const NO_GAS_IN_FLIGHT: InFlightGas = { taker: 0n, integrator: 0n };

/** An integrator's own budget (for its profile and key responses, and its cancels with `inFlightGas` of its other relays), and the budget every taker has. */
export async function integratorGasBudget(store: RelayStore, budgets: GasBudgets, integratorId: number, now: Date, inFlightGas = 0n): Promise<IntegratorGasBudgetJson> {
  const since = budgetWindowStart(now);
  // No taker is asked about: the zero address signs no order, so its part is always zero.
  const charged = await store.unpaidGasCharged({ taker: zeroAddress, integratorId, since });
  return {
    window_hours: BUDGET_WINDOW_HOURS,
    taker_budget_gas: Number(budgets.taker),
    integrator: { integrator_id: integratorId, ...(await budgetView(store, { kind: "integrator", integratorId }, budgets.integrator, charged.integrator, since, inFlightGas)) },
  };
}

/**
 * One subject's budget: spent once its charges in the window, with `inFlight` (the worst case of its
 * relays not yet final), reach it. It frees up when enough charges leave the window to bring both
 * below it; `frees_at` is null when the ledger is not what spends it (its relays in flight do, until final).
 */
export async function budgetView(store: RelayStore, subject: UnpaidGasSubject, budget: bigint, charged: bigint, since: Date, inFlight = 0n): Promise<GasBudgetJson> {
  const counted = charged + inFlight;
  const spent = counted >= budget;
  const keep = budget - 1n - inFlight;
  const releasedBy = spent && keep >= 0n ? await store.unpaidGasReleaseAt(subject, { since, keep }) : undefined;
  return {
    budget_gas: Number(budget),
    charged_gas: Number(charged),
    remaining_gas: Number(spent ? 0n : budget - counted),
    spent,
    frees_at: releasedBy === undefined ? null : new Date(releasedBy.getTime() + BUDGET_WINDOW_MS).toISOString(),
  };
}
