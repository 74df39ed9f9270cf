import type { Address } from "viem";
import { readRouterAddressView, readRouterNumberView } from "./routerViews";
import type { ChainReader } from "./tradingWallet";

/**
 * The V4 PoolManager `router` executes SWAP_V4 through (`poolManager()`, a constructor immutable),
 * undefined for a router that has none: it reverts (a router built before the V4 action), answers
 * nothing, or the zero address. Node failures throw (readRouterAddressView): never "no V4".
 */
export function readRouterPoolManager(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<Address | undefined> {
  return readRouterAddressView(reader, router, "poolManager", "V4 PoolManager", blockNumber);
}

/** The first revision of the V4 venue whose routers run SWAP_V4 hops in exact-output routes. */
export const V4_REVISION_EXACT_OUTPUT = 2;

/** A router's V4 venue: the PoolManager it swaps in (undefined: none) and what its SWAP_V4 hops do (see readRouterV4Revision). */
export type RouterV4Venue = Readonly<{ poolManager: Address | undefined; revision: number }>;

/** `v4Revision()`, undefined for a router without the view (an answer past 2^32 is no revision of ours). */
async function readRevisionView(reader: ChainReader, router: Address, blockNumber: bigint | undefined): Promise<number | undefined> {
  const view = await readRouterNumberView(reader, router, "v4Revision", "V4 venue revision", blockNumber);
  return view !== undefined && view < 2n ** 32n ? Number(view) : undefined;
}

/** The revision of a router built before `v4Revision()`: 1 when it names a PoolManager, else 0. */
function revisionWithoutView(poolManager: Address | undefined): number {
  return poolManager === undefined ? 0 : 1;
}

/**
 * `router`'s V4 venue, both views read at once (as the API's venue set reads each router): the revision
 * is `v4Revision()`'s, or revisionWithoutView's for a router built before that view. Node failures throw.
 */
export async function readRouterV4Venue(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<RouterV4Venue> {
  const [poolManager, view] = await Promise.all([readRouterPoolManager(reader, router, blockNumber), readRevisionView(reader, router, blockNumber)]);
  return { poolManager, revision: view ?? revisionWithoutView(poolManager) };
}

/**
 * What `router`'s V4 venue does (IUniswapV4Venue's `v4Revision()`): 0 without a PoolManager; 1 for a
 * router built before the view (it names a PoolManager but runs V4 hops for exact input only); from
 * V4_REVISION_EXACT_OUTPUT, in exact-output routes too. Reads `poolManager()` only for a router without
 * the view. Node failures throw.
 */
export async function readRouterV4Revision(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<number> {
  return (await readRevisionView(reader, router, blockNumber)) ?? revisionWithoutView(await readRouterPoolManager(reader, router, blockNumber));
}
