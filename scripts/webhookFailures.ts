import type { Store } from "../api/store/store";
import { circuitState } from "../relayer/store/pushedStatusStore";
import type { RelayStore } from "../relayer/store/relayStore";
import { printTable } from "./textTable";

export type WebhookFailuresContext = Readonly<{ store: Store; relayStore: RelayStore; print: (line: string) => void; now: Date }>;

/** Deliveries given up within this long are listed too, besides endpoints that are failing now. */
const GIVEN_UP_WINDOW_MS = 7 * 24 * 3_600_000;

/**
 * `npm run integrators -- webhook-failures [--json]`: webhook endpoints whose deliveries are failing
 * (pending after a failed attempt) or were given up in the last 7 days, from the relayer's outbox,
 * with the integrator's slug, the endpoint's circuit breaker (closed, open until when, half-open, and
 * its failures in a row), counts, the oldest undelivered event and the last answer. Exit 0.
 */
export async function listWebhookFailures(context: WebhookFailuresContext, json: boolean): Promise<number> {
  const failing = await context.relayStore.listFailingWebhooks(new Date(context.now.getTime() - GIVEN_UP_WINDOW_MS));
  const rows = await Promise.all(
    failing.map(async (endpoint) => ({
      integrator_id: endpoint.integratorId,
      slug: (await context.store.findIntegrator(endpoint.integratorId))?.slug ?? null,
      url: endpoint.url ?? null,
      circuit: endpoint.circuit === undefined ? null : circuitState(endpoint.circuit, context.now),
      consecutive_failures: endpoint.circuit?.consecutiveFailures ?? null,
      circuit_open_until: endpoint.circuit?.openUntil?.toISOString() ?? null,
      pending: endpoint.pending,
      failed: endpoint.failed,
      oldest_pending_at: endpoint.oldestPendingAt?.toISOString() ?? null,
      last_attempt_at: endpoint.lastAttemptAt?.toISOString() ?? null,
      last_status: endpoint.lastStatus ?? null,
      last_error: endpoint.lastError ?? null,
    })),
  );
  if (json) {
    context.print(JSON.stringify(rows, null, 2));
    return 0;
  }
  if (rows.length === 0) {
    context.print("no failing webhook endpoints");
    return 0;
  }
  printTable(context.print, [
    ["integrator", "url", "circuit", "pending", "given up", "oldest pending", "last attempt", "last answer"],
    ...rows.map((row) => [
      row.slug ?? `#${row.integrator_id}`,
      row.url ?? "(cleared)",
      row.circuit === null ? "-" : `${row.circuit}${row.circuit_open_until === null ? "" : ` until ${row.circuit_open_until}`} (${row.consecutive_failures} in a row)`,
      String(row.pending),
      String(row.failed),
      row.oldest_pending_at ?? "-",
      row.last_attempt_at ?? "-",
      row.last_status === null ? (row.last_error ?? "-") : String(row.last_status),
    ]),
  ]);
  return 0;
}
