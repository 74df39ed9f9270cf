import type { Logger } from "pino";
import type { Address } from "viem";

/** An unreadable pool as operators see it: since when, and the last reason. */
export type UnreadablePool = Readonly<{ pool: Address; since: Date; reason: string }>;

/**
 * One chain's pools that could not be read at the latest quoted block (no code, a revert, garbage
 * data). Routing leaves them out; this keeps them visible: a warning when a pool becomes unreadable,
 * an info line when it reads again, and the current list for GET /health. Reads are cached per block,
 * so this is told once per block, not once per quote.
 */
export class UnreadablePools {
  readonly #current = new Map<Address, UnreadablePool>();

  constructor(
    readonly chainId: number,
    private readonly logger: Logger,
  ) {}

  /** The outcome of one read of `pools`: those in `failed` are unreadable now, the rest readable. */
  observe(pools: readonly Address[], failed: ReadonlyMap<Address, string>, at: Date): void {
    for (const pool of pools) {
      const reason = failed.get(pool);
      const known = this.#current.get(pool);
      if (reason !== undefined && known === undefined) {
        this.#current.set(pool, { pool, since: at, reason });
        this.logger.warn({ chainId: this.chainId, pool, reason }, "pool cannot be read; routing leaves it out until it can");
      } else if (reason === undefined && known !== undefined) {
        this.#current.delete(pool);
        this.logger.info({ chainId: this.chainId, pool }, "pool can be read again; routing uses it");
      }
    }
  }

  list(): readonly UnreadablePool[] {
    return [...this.#current.values()];
  }
}
