import type { Logger } from "pino";

/** While the database is out, how often a caller that can probe is told to try it again. */
const PROBE_EVERY_MS = 1_000;

/** What one component logs when the database goes out and when it answers again. */
export type DatabaseOutageMessages = Readonly<{
  /** Logged once at `warn` when the outage begins, with the error that showed it. */
  down: string;
  /** Logged once at `info` when it ends, with its length in seconds. */
  up: string;
}>;

/**
 * Whether the database (PostgreSQL) is out for one component, since when, and when to try it again.
 * However many requests or timer runs fail meanwhile, the outage is logged once at `warn` and its end
 * once at `info` (with `outageSeconds`): an hour's outage is two lines, not thousands of stack traces.
 * Used by the shared rate limits (perInstanceFallback.ts) and the supported-token jobs.
 */
export class DatabaseOutage {
  #since: number | undefined;
  #nextProbe = 0;
  #probing = false;

  constructor(
    private readonly logger: Logger,
    private readonly messages: DatabaseOutageMessages,
    private readonly now: () => number = Date.now,
  ) {}

  get active(): boolean {
    return this.#since !== undefined;
  }

  /** Marks the outage begun (logging it once); later calls during the same outage do nothing. */
  begin(error: unknown): void {
    if (this.#since !== undefined) return;
    this.#since = this.now();
    this.#nextProbe = this.#since + PROBE_EVERY_MS;
    this.logger.warn({ err: error }, this.messages.down);
  }

  /** Marks the database reachable (logging the end once, if an outage was on). */
  end(): void {
    this.#probing = false;
    if (this.#since === undefined) return;
    const seconds = Math.round((this.now() - this.#since) / 1000);
    this.#since = undefined;
    this.logger.info({ outageSeconds: seconds }, this.messages.up);
  }

  /** True for at most one caller at a time, once per probe interval. */
  probeDue(): boolean {
    if (this.#probing || this.now() < this.#nextProbe) return false;
    this.#probing = true;
    return true;
  }

  /** A probe failed: the next one is due in a second. An answer other than an outage is a bug to surface. */
  probeFailed(error: unknown, isUnavailable: (error: unknown) => boolean): void {
    this.#probing = false;
    this.#nextProbe = this.now() + PROBE_EVERY_MS;
    if (!isUnavailable(error)) this.logger.error({ err: error }, `${this.messages.down} (probe failed with another error)`);
  }
}
