import type { Address } from "viem";
import { readRouterAddressView, readRouterFlagView } from "./routerViews";
import type { ChainReader } from "./tradingWallet";

/**
 * The V4 PoolManager `router` executes SWAP_V4 through (`poolManager()`, a constructor immutable),
 * undefined for a router that has none: it reverts (a router built before the V4 action), answers
 * nothing, or the zero address. Node failures throw (readRouterAddressView): never "no V4".
 */
export function readRouterPoolManager(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<Address | undefined> {
  return readRouterAddressView(reader, router, "poolManager", "V4 PoolManager", blockNumber);
}

/**
 * Whether `router` runs SWAP_V4 hops in exact-output routes (`v4ExactOutput()`); false for a router
 * built before exact output over V4, which names a PoolManager but refuses them. Node failures throw.
 */
export function readRouterV4ExactOutput(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<boolean> {
  return readRouterFlagView(reader, router, "v4ExactOutput", "V4 exact-output support", blockNumber);
}
