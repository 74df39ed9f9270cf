import type { Address } from "viem";
import type { PricedMarket } from "../routing/poolGraph";
import type { PricedPool } from "../routing/routeSearch";

/**
 * The market's pools that `keep` accepts: a view, so a 5,000-pool market is not copied per quote
 * (a split's paths, taxed middle tokens and `excluded_sources` each take some pools out).
 */
class PoolsWhere implements ReadonlyMap<Address, PricedPool> {
  constructor(
    private readonly pools: ReadonlyMap<Address, PricedPool>,
    private readonly keep: (pool: PricedPool) => boolean,
  ) {}
  get(address: Address): PricedPool | undefined {
    const pool = this.pools.get(address);
    return pool !== undefined && this.keep(pool) ? pool : undefined;
  }
  has(address: Address): boolean {
    return this.get(address) !== undefined;
  }
  get size(): number {
    return [...this.keys()].length;
  }
  *entries(): MapIterator<[Address, PricedPool]> {
    for (const entry of this.pools) if (this.keep(entry[1])) yield entry;
  }
  *keys(): MapIterator<Address> {
    for (const [address] of this.entries()) yield address;
  }
  *values(): MapIterator<PricedPool> {
    for (const [, pool] of this.entries()) yield pool;
  }
  [Symbol.iterator](): MapIterator<[Address, PricedPool]> {
    return this.entries();
  }
  forEach(callback: (pool: PricedPool, address: Address, map: ReadonlyMap<Address, PricedPool>) => void): void {
    for (const [address, pool] of this.entries()) callback(pool, address, this);
  }
}

/** `market` with only the pools `keep` accepts (same graph: lookups of the others find nothing). */
export function marketWhere<M extends PricedMarket>(market: M, keep: (pool: PricedPool) => boolean): M {
  return { ...market, pools: new PoolsWhere(market.pools, keep) };
}

/** `market` without the pools of the venues named in `excluded` (`excluded_sources`); the market itself when none. */
export function marketWithoutSources<M extends PricedMarket>(market: M, excluded: ReadonlySet<string>): M {
  if (excluded.size === 0) return market;
  return marketWhere(market, (pool) => !excluded.has(pool.source));
}
