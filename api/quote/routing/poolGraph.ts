import { zeroAddress, type Address } from "viem";
import type { PricedPool } from "./routeSearch";

/** What the graph needs of a pool: its address and tokens, lowercase. */
export type PoolEdge = Readonly<{ address: Address; token0: Address; token1: Address }>;

/** Intermediate tokens the pruned search may route through. */
export const HUB_COUNT = 8;

const NONE: readonly Address[] = [];

/**
 * The shape of a market: which pools join which tokens, and its hubs (the best-connected tokens,
 * which the pruned route search uses as intermediates). Built once per pool list, not per block:
 * reserves live beside it in a `PricedMarket`.
 */
export class PoolGraph {
  /** token → other token → pools joining them, both ways round: a lookup builds no key string (it runs ~80 times a quote). */
  readonly #between = new Map<Address, Map<Address, Address[]>>();
  /**
   * The `HUB_COUNT` tokens with the most pools, ties broken by address (deterministic). Native ETH (a V4
   * pool's address(0)) is never one: a route takes it only at its ends (routePlan.ts), never in the middle.
   */
  readonly hubs: readonly Address[];
  readonly size: number;

  constructor(pools: Iterable<PoolEdge>) {
    const degree = new Map<Address, number>();
    let size = 0;
    for (const pool of pools) {
      size++;
      const list = this.#pools(pool.token0, pool.token1);
      list.push(pool.address);
      if (pool.token0 !== pool.token1) this.#pools(pool.token1, pool.token0).push(pool.address);
      for (const token of [pool.token0, pool.token1]) degree.set(token, (degree.get(token) ?? 0) + 1);
    }
    this.size = size;
    this.hubs = [...degree]
      .filter(([token]) => token !== zeroAddress)
      .sort(([a, da], [b, db]) => db - da || (a < b ? -1 : 1))
      .slice(0, HUB_COUNT)
      .map(([token]) => token);
  }

  /** Pools (addresses) joining `a` and `b`, in list order. */
  between(a: Address, b: Address): readonly Address[] {
    return this.#between.get(a)?.get(b) ?? NONE;
  }

  #pools(from: Address, to: Address): Address[] {
    let byOther = this.#between.get(from);
    if (byOther === undefined) this.#between.set(from, (byOther = new Map()));
    let list = byOther.get(to);
    if (list === undefined) byOther.set(to, (list = []));
    return list;
  }
}

/** Pools with their reserves at one block, and the graph they form. Addresses are lowercase. */
export type PricedMarket = Readonly<{ graph: PoolGraph; pools: ReadonlyMap<Address, PricedPool> }>;

/** A market over these pools (tests, and callers that hold a plain list). */
export function pricedMarketOf(pools: readonly PricedPool[]): PricedMarket {
  return { graph: new PoolGraph(pools), pools: new Map(pools.map((pool) => [pool.address, pool])) };
}
