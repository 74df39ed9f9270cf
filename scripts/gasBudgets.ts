/**
 * The operator's view of the unpaid-gas ledger, for `npm run integrators -- reverts | clear-reverts`
 * and the usage part of `show <slug>`. The ledger lives in the relayer's database (shared by every
 * relayer on PostgreSQL), which this opens: as the relayer picks it (DATABASE_URL, else the SQLite file
 * RELAYER_DB_PATH, else data/relayer.sqlite), unless RELAYER_DATABASE_URL names the relayer's
 * PostgreSQL apart from the API's DATABASE_URL. The budgets are the relayer's own settings
 * (RELAYER_TAKER_GAS_BUDGET, RELAYER_INTEGRATOR_GAS_BUDGET), parsed by its declaration.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { formatEther, getAddress, isAddress } from "viem";
import { z } from "zod";
import { gasBudgetsOf, gasBudgetSettings, type GasBudgets } from "../relayer/config";
import { budgetView, budgetWindowStart, BUDGET_WINDOW_HOURS, integratorGasBudget } from "../relayer/intake/gaslessStanding";
import { INTEGRATOR_BUDGET_CAUSES, TAKER_BUDGET_CAUSES } from "../relayer/ledger/unpaidGas";
import { openRelayStore } from "../relayer/store/openRelayStore";
import type { RelayStore } from "../relayer/store/relayStore";
import type { IntegratorRecord, Store } from "../api/store/store";
import { printTable } from "./textTable";
import { postgresUrl } from "../sdk/config/postgresUrl";

const env = z.object({
  RELAYER_DATABASE_URL: postgresUrl.optional(),
  RELAYER_DB_PATH: z.string().min(1).optional(),
  DATABASE_URL: postgresUrl.optional(),
  ...gasBudgetSettings,
});

/** Where the relayer's database is and what its budgets are, from the environment (read once, by main). */
export function relayerDatabaseFromEnv(values: NodeJS.ProcessEnv): { open: () => Promise<RelayStore>; budgets: GasBudgets } {
  const parsed = env.safeParse(values);
  if (!parsed.success) throw new Error(`invalid ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`);
  const v = parsed.data;
  // The relayer's own order (relayer/config.ts): DATABASE_URL wins over RELAYER_DB_PATH.
  const databaseUrl = v.RELAYER_DATABASE_URL ?? v.DATABASE_URL;
  const dbPath = resolve(v.RELAYER_DB_PATH ?? "data/relayer.sqlite");
  // A SQLite file that is not there is not created: an operator's typo would otherwise read as "no charges".
  const open = async () => {
    if (databaseUrl === undefined && !existsSync(dbPath)) throw new Error(`no relayer database at ${dbPath} (RELAYER_DB_PATH, or DATABASE_URL / RELAYER_DATABASE_URL for PostgreSQL)`);
    // A one-shot command: the CLI's pool of two (SERVICE_POOLS.relayerCli), not the relayer's ten.
    return openRelayStore({ databaseUrl, dbPath }, "relayerCli");
  };
  return { open, budgets: gasBudgetsOf(v) };
}

export type BudgetsContext = Readonly<{ store: Store; relayStore: RelayStore; budgets: GasBudgets; print: (line: string) => void; now: Date }>;

/** Every taker and integrator with gas charged to its budget in the window, with the budget, whether it is spent and when it frees up. */
export async function listBudgetCharges(context: BudgetsContext, json: boolean): Promise<number> {
  const since = budgetWindowStart(context.now);
  const tallies = await context.relayStore.listUnpaidGasTallies(since);
  const slugs = new Map((await context.store.listIntegrators()).map((integrator) => [String(integrator.id), integrator.slug]));
  const rows = await Promise.all(
    tallies.map(async (tally) => {
      const subject = tally.kind === "taker" ? ({ kind: "taker", taker: getAddress(tally.subject) } as const) : ({ kind: "integrator", integratorId: Number(tally.subject) } as const);
      const view = await budgetView(context.relayStore, subject, tally.kind === "taker" ? context.budgets.taker : context.budgets.integrator, tally.gasUsed, since);
      return {
        kind: tally.kind,
        subject: tally.kind === "taker" ? tally.subject : (slugs.get(tally.subject) ?? `integrator ${tally.subject}`),
        integrator_id: tally.kind === "integrator" ? Number(tally.subject) : null,
        charges: tally.entries,
        charged_gas: view.charged_gas,
        budget_gas: view.budget_gas,
        spent: view.spent,
        frees_at: view.frees_at,
        last_charge_at: tally.lastAt.toISOString(),
      };
    }),
  );
  if (json) context.print(JSON.stringify({ window_hours: BUDGET_WINDOW_HOURS, charges: rows }, null, 2));
  else if (rows.length === 0) context.print(`no gas charged to any taker or integrator in the last ${BUDGET_WINDOW_HOURS} hours`);
  else
    printTable(context.print, [
      ["KIND", "SUBJECT", "CHARGES", `GAS_${BUDGET_WINDOW_HOURS}H`, "BUDGET", "SPENT", "FREES_AT", "LAST_CHARGE"],
      ...rows.map((row) => [row.kind, row.subject, String(row.charges), String(row.charged_gas), String(row.budget_gas), row.spent ? "yes" : "no", row.frees_at ?? "", row.last_charge_at]),
    ]);
  return 0;
}

/** Clears a taker's (an address) or an integrator's (a slug) charges: gasless quotes resume at once (within the API's few seconds of cache). */
export async function clearBudgetCharges(context: BudgetsContext, target: string): Promise<number> {
  if (isAddress(target, { strict: false })) {
    const cleared = await context.relayStore.clearUnpaidGas({ kind: "taker", taker: getAddress(target.toLowerCase()) });
    context.print(`cleared ${cleared} charge${cleared === 1 ? "" : "s"} of taker ${getAddress(target.toLowerCase())}`);
    return 0;
  }
  const integrator = (await context.store.listIntegrators()).find((candidate) => candidate.slug === target);
  if (integrator === undefined) {
    context.print(`no integrator with slug ${target} (and not a taker address); npm run integrators -- reverts shows who has charges`);
    return 1;
  }
  const cleared = await context.relayStore.clearUnpaidGas({ kind: "integrator", integratorId: integrator.id });
  context.print(`cleared ${cleared} charge${cleared === 1 ? "" : "s"} of integrator ${target}`);
  return 0;
}

/** An integrator's unpaid-gas usage in the window (every cause, saying which count against its budget), its budget and when it frees up. */
export async function integratorUsage(context: Omit<BudgetsContext, "store" | "print">, integrator: Pick<IntegratorRecord, "id">) {
  const budget = await integratorGasBudget(context.relayStore, context.budgets, integrator.id, context.now);
  const totals = await context.relayStore.unpaidGasTotals({ integratorId: integrator.id, since: budgetWindowStart(context.now) });
  const { integrator_id: _id, ...own } = budget.integrator;
  return {
    window_hours: budget.window_hours,
    ...own,
    taker_budget_gas: budget.taker_budget_gas,
    by_cause: totals.map((total) => ({
      cause: total.cause,
      kind: total.kind,
      charges: total.entries,
      gas: Number(total.gasUsed),
      eth: formatEther(BigInt(Math.round(total.weiPaid))),
      counts_against: [INTEGRATOR_BUDGET_CAUSES.includes(total.cause) ? "integrator" : undefined, TAKER_BUDGET_CAUSES.includes(total.cause) ? "taker" : undefined].filter((who) => who !== undefined),
    })),
  };
}

export type IntegratorUsage = Awaited<ReturnType<typeof integratorUsage>>;

/** The usage as a table for people. */
export function printUsage(print: (line: string) => void, usage: IntegratorUsage): void {
  print(`gas budget (unpaid gas, ${usage.window_hours} h)  ${usage.charged_gas} of ${usage.budget_gas} charged, ${usage.remaining_gas} remaining${usage.spent ? `; spent, frees up at ${usage.frees_at}` : ""}`);
  print(`taker budget                      ${usage.taker_budget_gas} gas per taker`);
  if (usage.by_cause.length === 0) {
    print("no unpaid gas in the window");
    return;
  }
  printTable(print, [
    ["CAUSE", "KIND", "CHARGES", "GAS", "ETH", "COUNTS_AGAINST"],
    ...usage.by_cause.map((row) => [row.cause, row.kind, String(row.charges), String(row.gas), row.eth, row.counts_against.join(", ") || "nobody"]),
  ]);
}
