import type { Address } from "viem";
import type { PricedMarket } from "./poolGraph";
import type { PricedPool, RouteHop } from "./routeSearch";

/**
 * The market's pools without those of tokens that tax transfers, except the route's own two ends:
 * a view, so a 5,000-pool market is not copied per quote. A taxed token in the middle of a route
 * would hand the next pool less than the router priced, and the swap would revert.
 */
class PoolsAvoiding implements ReadonlyMap<Address, PricedPool> {
  constructor(
    private readonly pools: ReadonlyMap<Address, PricedPool>,
    private readonly avoided: ReadonlySet<Address>,
  ) {}
  #allowed(pool: PricedPool | undefined): pool is PricedPool {
    return pool !== undefined && !this.avoided.has(pool.token0) && !this.avoided.has(pool.token1);
  }
  get(address: Address): PricedPool | undefined {
    const pool = this.pools.get(address);
    return this.#allowed(pool) ? pool : undefined;
  }
  has(address: Address): boolean {
    return this.get(address) !== undefined;
  }
  get size(): number {
    return [...this.keys()].length;
  }
  *entries(): MapIterator<[Address, PricedPool]> {
    for (const entry of this.pools) if (this.#allowed(entry[1])) yield entry;
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

/** `market` without the pools of `taxed` tokens other than `tokenIn` and `tokenOut` (lowercase); the market itself when none apply. */
export function marketAvoidingTaxed<M extends PricedMarket>(market: M, taxed: ReadonlySet<Address>, tokenIn: Address, tokenOut: Address): M {
  const avoided = new Set([...taxed].filter((token) => token !== tokenIn && token !== tokenOut));
  if (avoided.size === 0) return market;
  return { ...market, pools: new PoolsAvoiding(market.pools, avoided) };
}

/** The tokens a route passes through between its two ends (lowercase, as hops carry them). */
export function intermediateTokens(hops: readonly RouteHop[], tokenIn: Address, tokenOut: Address): Address[] {
  const tokens = new Set<Address>();
  for (const hop of hops) for (const token of [hop.tokenIn, hop.tokenOut]) if (token !== tokenIn && token !== tokenOut) tokens.add(token);
  return [...tokens];
}
