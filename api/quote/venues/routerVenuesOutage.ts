import type { Logger } from "pino";
import type { Counter, Gauge } from "prom-client";
import { errorSummary } from "../../../sdk/errors/errorSummary";

/** The metrics a RouterVenuesOutage keeps (created with the API's others, see apiMetrics.ts). */
export type RouterVenuesOutageMetrics = Readonly<{
  /** Failed reads of the routers' venues, by chain and what quotes did about it (`v2_only`, or `refused` with nothing read yet). */
  readFailures: Counter<"chain_id" | "fallback">;
  /** 1 while a chain's quotes route V2 only for want of the routers' venues, else 0. */
  degraded: Gauge<"chain_id">;
}>;

/**
 * One chain's failed reads of its active routers' venues (ActiveRouterVenues: the registry, the
 * routers' V3 tables and allowlists). While they fail, quotes fall back to V2 only (see
 * ActiveRouterVenues.at); this makes that visible: a warning when it starts, an info line when the
 * venues read again, a counter per failed read and a gauge while degraded.
 */
export class RouterVenuesOutage {
  #since: Date | undefined;

  constructor(
    readonly chainId: number,
    private readonly logger: Logger,
    private readonly metrics?: RouterVenuesOutageMetrics,
  ) {}

  /** Since when quotes have routed V2 only; undefined while the venues read. */
  get since(): Date | undefined {
    return this.#since;
  }

  /** A read failed: `fallback` true when quotes went on V2 only, false when nothing was read yet (the quote is refused). */
  failed(error: unknown, fallback: boolean, at: Date = new Date()): void {
    const chain_id = String(this.chainId);
    this.metrics?.readFailures.inc({ chain_id, fallback: fallback ? "v2_only" : "refused" });
    if (!fallback) return;
    this.metrics?.degraded.set({ chain_id }, 1);
    if (this.#since !== undefined) return;
    this.#since = at;
    const reason = errorSummary(error);
    this.logger.warn({ chainId: this.chainId, reason }, "the active routers' venues cannot be read: quotes route V2 only (no V3, no propAMM) until they can");
  }

  /** A read succeeded: the full venue set routes again. */
  read(): void {
    if (this.#since === undefined) return;
    this.#since = undefined;
    this.metrics?.degraded.set({ chain_id: String(this.chainId) }, 0);
    this.logger.info({ chainId: this.chainId }, "the active routers' venues read again: quotes route every venue");
  }
}
