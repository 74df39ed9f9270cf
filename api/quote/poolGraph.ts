import type { Address } from "viem";
import type { PricedPool } from "./routeSearch";

/** What the graph needs of a pool: its address and tokens, lowercase. */
export type PoolEdge = Readonly<{ address: Address; token0: Address; token1: Address }>;

/** Intermediate tokens the pruned search may route through. */
export const HUB_COUNT = 8;

function pairKey(a: Address, b: Address): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

/**
 * The shape of a market: which pools join which tokens, and its hubs (the best-connected tokens,
 * which the pruned route search uses as intermediates). Built once per pool list, not per block:
 * reserves live beside it in a `PricedMarket`.
 */
export class PoolGraph {
  readonly #between = new Map<string, Address[]>();
  /** The `HUB_COUNT` tokens with the most pools, ties broken by address (deterministic). */
  readonly hubs: readonly Address[];
  readonly size: number;

  constructor(pools: Iterable<PoolEdge>) {
    const degree = new Map<Address, number>();
    let size = 0;
    for (const pool of pools) {
      size++;
      const key = pairKey(pool.token0, pool.token1);
      const list = this.#between.get(key);
      if (list === undefined) this.#between.set(key, [pool.address]);
      else list.push(pool.address);
      for (const token of [pool.token0, pool.token1]) degree.set(token, (degree.get(token) ?? 0) + 1);
    }
    this.size = size;
    this.hubs = [...degree]
      .sort(([a, da], [b, db]) => db - da || (a < b ? -1 : 1))
      .slice(0, HUB_COUNT)
      .map(([token]) => token);
  }

  /** Pools (addresses) joining `a` and `b`, in list order. */
  between(a: Address, b: Address): readonly Address[] {
    return this.#between.get(pairKey(a, b)) ?? [];
  }
}

/** Pools with their reserves at one block, and the graph they form. Addresses are lowercase. */
export type PricedMarket = Readonly<{ graph: PoolGraph; pools: ReadonlyMap<Address, PricedPool> }>;

/** A market over these pools (tests, and callers that hold a plain list). */
export function pricedMarketOf(pools: readonly PricedPool[]): PricedMarket {
  return { graph: new PoolGraph(pools), pools: new Map(pools.map((pool) => [pool.address, pool])) };
}
