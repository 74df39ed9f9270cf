import type { Address } from "viem";
import { isV2Pool, type PricedPool } from "./pricedPool";
import { propAmmAdapter } from "./propAmmAdapter";
import { v3Adapter } from "./uniswapV3/v3Adapter";
import { v4Adapter } from "./uniswapV4/v4Adapter";
import { v2Adapter } from "./v2Adapter";
import type { VenueAdapter } from "./venueAdapter";

/**
 * The adapters by venue type: the one place a venue type joins routing. A V3 adapter (sdk/amm/v3) is
 * added here as `["v3", v3Adapter]`, a propAMM one as `["propamm", propAmmAdapter]`; nothing else in
 * route search, splitting, planning or the response names a venue type.
 */
const ADAPTERS = new Map<string, VenueAdapter>([
  ["v2", v2Adapter as VenueAdapter],
  ["v3", v3Adapter as unknown as VenueAdapter],
  ["propamm", propAmmAdapter as unknown as VenueAdapter],
  ["v4", v4Adapter as unknown as VenueAdapter],
]);

/**
 * Registers the adapter of a venue type (tests register adapters of their own; production ones are
 * listed in ADAPTERS). Registering a kind twice replaces the first: the registry is the source of truth.
 */
export function registerVenueAdapter<P extends PricedPool>(adapter: VenueAdapter<P>): void {
  ADAPTERS.set(adapter.kind, adapter as unknown as VenueAdapter);
}

/** The adapter that prices `pool`; throws for a kind nothing registered (a programming error, not a request's). */
export function adapterOf(pool: PricedPool): VenueAdapter {
  if (isV2Pool(pool)) return v2Adapter as VenueAdapter;
  const adapter = ADAPTERS.get(pool.kind);
  if (adapter === undefined) throw new Error(`no venue adapter registered for pools of kind ${pool.kind} (pool ${pool.address}, source ${pool.source})`);
  return adapter;
}

/** What `amountIn` of `tokenIn` buys through `pool`, by its venue's adapter; 0n when it cannot. */
export function amountThroughPool(pool: PricedPool, tokenIn: Address, amountIn: bigint): bigint {
  return adapterOf(pool).amountOut(pool, tokenIn, amountIn);
}

/**
 * A hop's name in the live service's form, `<venue>:chain-<id>:<pool>:<fee>` (fee in hundredths of a
 * bip: `uniswap-v2:chain-4663:0x…:3000` for a 30 bps pair, `…:0` for a propAMM).
 */
export function legName(pool: PricedPool, chainId: number): string {
  return `${pool.source}:chain-${chainId}:${pool.address}:${adapterOf(pool).feePips(pool)}`;
}
