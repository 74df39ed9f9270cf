import type { IntegratorGasBudgetJson } from "../../sdk";
import type { ApiDependencies } from "../apiDependencies";
import { RelayerClient } from "./relayerClient";

/**
 * The integrators' gas budgets of the unpaid-gas ledger, as the relayer keeps them, for the profile
 * and key responses: null for each when gasless trading is not configured or no relayer answers (the
 * rest of the response does not depend on it; the operator sees the warning).
 */
export async function integratorGasBudgets(deps: Pick<ApiDependencies, "config" | "logger">, integratorIds: readonly number[]): Promise<Map<number, IntegratorGasBudgetJson | null>> {
  const budgets = new Map<number, IntegratorGasBudgetJson | null>();
  const gasless = deps.config.gasless;
  if (gasless === undefined) {
    for (const id of integratorIds) budgets.set(id, null);
    return budgets;
  }
  const relayer = new RelayerClient(gasless);
  await Promise.all(
    integratorIds.map(async (id) => {
      const budget = await relayer.gasBudget(id).catch((error: unknown) => {
        deps.logger.warn({ integratorId: id, err: error instanceof Error ? error.message : String(error) }, "cannot read the integrator's gas budget from the relayer; shown as null");
        return null;
      });
      budgets.set(id, budget);
    }),
  );
  return budgets;
}
