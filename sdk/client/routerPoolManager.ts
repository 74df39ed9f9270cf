import type { Address } from "viem";
import { readRouterAddressView } from "./routerAddressView";
import type { ChainReader } from "./tradingWallet";

/**
 * The V4 PoolManager `router` executes SWAP_V4 through (`poolManager()`, a constructor immutable),
 * undefined for a router that has none: it reverts (a router built before the V4 action), answers
 * nothing, or the zero address. Node failures throw (readRouterAddressView): never "no V4".
 */
export function readRouterPoolManager(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<Address | undefined> {
  return readRouterAddressView(reader, router, "poolManager", "V4 PoolManager", blockNumber);
}
