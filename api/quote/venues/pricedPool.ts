import type { Address } from "viem";

/**
 * A Uniswap-V2-style pair with its reserves at the block being quoted (Uniswap V2 itself, or a V2
 * fork: another factory, init-code hash and fee). Token addresses are lowercase. `kind` may be left
 * out: every pool without one is a V2 pair, as every pool was before venues had types.
 */
export type V2Pool = Readonly<{
  kind?: "v2";
  address: Address;
  token0: Address;
  token1: Address;
  reserve0: bigint;
  reserve1: bigint;
  feeBps: number;
  /** The venue's name ("uniswap-v2", or a fork's): what `excluded_sources` and leg names use. */
  source: string;
  /**
   * Whether the pair's price accumulators are non-zero. A V2 pair's first swap after its first
   * mint writes both from zero, which costs about 34,000 gas more than later swaps.
   */
  oracleStarted: boolean;
  /**
   * The pair's `blockTimestampLast` (uint32) at this state, when known: with it, a `Sync` tells
   * whether it started the oracle, and the pool need not be read again on its first swap.
   */
  timestampLast?: number;
}>;

/**
 * A pool of any other venue type (V3 and its forks, propAMMs, later V4): its identity is common, its
 * state is opaque here and understood only by the adapter registered for its `kind`
 * (venues/venueAdapters.ts). Token addresses are lowercase.
 */
export type VenuePool = Readonly<{
  kind: string;
  address: Address;
  token0: Address;
  token1: Address;
  /** The venue's name ("uniswap-v3", "forkswap-v3", a propAMM's): what `excluded_sources` and leg names use. */
  source: string;
  /** The adapter's own state of the pool at the quoted block (V3: price, liquidity, ticks; propAMM: its quotes). */
  state: unknown;
}>;

/** A pool with its state at the block being quoted: the unit route search works on. */
export type PricedPool = V2Pool | VenuePool;

/** Whether `pool` is a V2 pair (its reserves are fields of the pool). */
export function isV2Pool(pool: PricedPool): pool is V2Pool {
  return pool.kind === undefined || pool.kind === "v2";
}
