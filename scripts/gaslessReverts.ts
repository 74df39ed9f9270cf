/**
 * The operator's view of reverted gasless relays, for `npm run integrators -- reverts | clear-reverts`.
 * The counts live in the relayer's database (shared by every relayer on PostgreSQL), which this opens:
 * as the relayer picks it (DATABASE_URL, else the SQLite file RELAYER_DB_PATH, else data/relayer.sqlite),
 * unless RELAYER_DATABASE_URL names the relayer's PostgreSQL apart from the API's DATABASE_URL.
 */
import { resolve } from "node:path";
import { getAddress, isAddress } from "viem";
import { z } from "zod";
import { revertWindowStart, REVERT_WINDOW_HOURS } from "../relayer/gaslessStanding";
import { openRelayStore } from "../relayer/store/openRelayStore";
import type { RelayStore } from "../relayer/store/relayStore";
import type { Store } from "../api/store/store";
import { printTable } from "./textTable";

/** The limits the relayers apply (their RELAYER_MAX_REVERTS_* settings), to show who is blocked. */
export type RevertLimits = { taker: number; integrator: number };

const env = z.object({
  RELAYER_DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" }).optional(),
  RELAYER_DB_PATH: z.string().min(1).optional(),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: "must be a postgres:// URL" }).optional(),
  RELAYER_MAX_REVERTS_PER_TAKER: z.coerce.number().int().min(0).default(2),
  RELAYER_MAX_REVERTS_PER_INTEGRATOR: z.coerce.number().int().min(0).default(10),
});

/** Where the relayer's database is and what its limits are, from the environment (read once, by main). */
export function relayerDatabaseFromEnv(values: NodeJS.ProcessEnv): { open: () => Promise<RelayStore>; limits: RevertLimits } {
  const parsed = env.safeParse(values);
  if (!parsed.success) throw new Error(`invalid ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`);
  const v = parsed.data;
  // The relayer's own order (relayer/config.ts): DATABASE_URL wins over RELAYER_DB_PATH.
  const databaseUrl = v.RELAYER_DATABASE_URL ?? v.DATABASE_URL;
  const dbPath = resolve(v.RELAYER_DB_PATH ?? "data/relayer.sqlite");
  return { open: () => openRelayStore({ databaseUrl, dbPath }), limits: { taker: v.RELAYER_MAX_REVERTS_PER_TAKER, integrator: v.RELAYER_MAX_REVERTS_PER_INTEGRATOR } };
}

export type RevertsContext = Readonly<{ store: Store; relayStore: RelayStore; limits: RevertLimits; print: (line: string) => void; now: Date }>;

/** Every taker and integrator with reverted relays in the window, with its limit and whether it is blocked. */
export async function listReverts(context: RevertsContext, json: boolean): Promise<number> {
  const tallies = await context.relayStore.listUnpaidGasTallies(revertWindowStart(context.now));
  const slugs = new Map((await context.store.listIntegrators()).map((integrator) => [String(integrator.id), integrator.slug]));
  const rows = tallies.map((tally) => {
    const limit = tally.kind === "taker" ? context.limits.taker : context.limits.integrator;
    return {
      kind: tally.kind,
      subject: tally.kind === "taker" ? getAddress(tally.subject) : (slugs.get(tally.subject) ?? `integrator ${tally.subject}`),
      integrator_id: tally.kind === "integrator" ? Number(tally.subject) : null,
      reverts: tally.entries,
      limit,
      blocked: tally.entries >= limit,
      last_revert_at: tally.lastAt.toISOString(),
    };
  });
  if (json) context.print(JSON.stringify({ window_hours: REVERT_WINDOW_HOURS, counts: rows }, null, 2));
  else if (rows.length === 0) context.print(`no reverted gasless relays in the last ${REVERT_WINDOW_HOURS} hours`);
  else
    printTable(context.print, [
      ["KIND", "SUBJECT", `REVERTS_${REVERT_WINDOW_HOURS}H`, "LIMIT", "BLOCKED", "LAST_REVERT"],
      ...rows.map((row) => [row.kind, row.subject, String(row.reverts), String(row.limit), row.blocked ? "yes" : "no", row.last_revert_at]),
    ]);
  return 0;
}

/** Clears a taker's (an address) or an integrator's (a slug) reverted relays: gasless quotes resume at once (within the API's few seconds of cache). */
export async function clearReverts(context: RevertsContext, target: string): Promise<number> {
  if (isAddress(target, { strict: false })) {
    const cleared = await context.relayStore.clearUnpaidGas({ kind: "taker", taker: getAddress(target.toLowerCase()) });
    context.print(`cleared ${cleared} reverted relay${cleared === 1 ? "" : "s"} of taker ${getAddress(target.toLowerCase())}`);
    return 0;
  }
  const integrator = (await context.store.listIntegrators()).find((candidate) => candidate.slug === target);
  if (integrator === undefined) {
    context.print(`no integrator with slug ${target} (and not a taker address); npm run integrators -- reverts shows who has reverts`);
    return 1;
  }
  const cleared = await context.relayStore.clearUnpaidGas({ kind: "integrator", integratorId: integrator.id });
  context.print(`cleared ${cleared} reverted relay${cleared === 1 ? "" : "s"} of integrator ${target}`);
  return 0;
}
