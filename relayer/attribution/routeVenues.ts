import { encodeFunctionData, hexToBigInt, zeroAddress, type Address, type Hex, type PublicClient } from "viem";
import {
  afterV3PoolEvent,
  afterV4PoolEvent,
  propAmmAbi,
  propAmmAllowlistAbi,
  readRouterPropAmmAllowlist,
  readRouterV4Venue,
  readV3PoolEvents,
  readV3PoolState,
  readV4PoolEvents,
  readV4PoolState,
  uniswapV3FactoryAbi,
  uniswapV3VenueAbi,
  uniswapV4StateViewAbi,
  v4HopPoolKey,
  v4PoolId,
  V4_REVISION_EXACT_OUTPUT,
  type PropAmmHop,
  type RouteHop,
  type V3Hop,
  type V3PoolState,
  type V4Hop,
  type V4PoolKey,
  type V4PoolState,
} from "../../sdk";
import { isBefore, logIndexesBefore, type BlockPosition } from "./pairStates";
import { readOrDefer, readOrRefused } from "./readFailure";


/** Gas for one propAMM `getAmountOut`: allowlisted code, but not ours; a quote that needs more is no quote. */
export const PROPAMM_QUOTE_GAS = 1_000_000n;

/**
 * The Uniswap V4 contracts the relayer reads V4 pools through: the manifest's PoolManager and the
 * StateView bound to it (periphery: routers do not name it). Absent on a chain without V4.
 */
export type V4Contracts = Readonly<{ poolManager: Address; stateView: Address }>;

/** The V3 pools, V4 pools and propAMMs an order's route swaps through, as its router names them at a block. Keys lowercase. */
export type RouteVenues = Readonly<{
  /** Each V3 hop's pool (`v3HopKey`), read from the router's venue table and the venue's factory. */
  v3Pools: ReadonlyMap<string, Address>;
  /** Each V4 hop's pool (`v4HopId`) initialised in the router's PoolManager, with its key. */
  v4Pools: ReadonlyMap<string, V4PoolKey>;
  /**
   * The contracts the V4 pools were read through, when the route has V4 hops and its router swaps in
   * the relayer's PoolManager. A router with no PoolManager, or one whose V4 venue predates exact output
   * (`v4Revision()` below 2) for an exact-output order, leaves `v4Pools` empty (its V4 hops are refused);
   * one with another PoolManager than the relayer's sets `v4Unread`.
   */
  v4?: V4Contracts | undefined;
  /**
   * The route's V4 hops could not be read: its router swaps in a PoolManager the relayer has no
   * StateView for (or the relayer has none). Neither refused nor priced: no fact either way (unless
   * refused whatever the pools: no PoolManager, or an exact-output order on a router below revision 2).
   */
  v4Unread: boolean;
  /** Each propAMM's tokens, as the router's allowlist gives them (token order is configuration). */
  propAmms: ReadonlyMap<string, readonly [Address, Address]>;
}>;

/** The key of a V3 hop from `tokenIn`: its venue, tokens and fee tier (the pool the router computes from them). */
export function v3HopKey(hop: V3Hop, tokenIn: Address): string {
  return `${hop.venue}:${tokenIn.toLowerCase()}:${hop.tokenOut.toLowerCase()}:${hop.fee}`;
}

/** The lowercase id of the V4 pool a V4 hop from `tokenIn` swaps in (its key: the running token and the hop's output sorted, address(0) native). */
export function v4HopId(hop: V4Hop, tokenIn: Address): string {
  return v4PoolId(v4HopPoolKey(tokenIn, hop)).toLowerCase();
}

/**
 * The pools and propAMMs of `hops` as `router` reaches them at `blockNumber`: a V3 hop's pool is the one
 * its venue's factory (the router's own table, fixed at deployment) holds for the hop's tokens and fee,
 * the pool the router computes; a V4 hop's pool is the one its key names in the router's PoolManager
 * (`poolManager()`), when initialised there (read through `v4`'s StateView) and, for an `exactOutput`
 * order, when the router runs V4 hops backwards (`v4Revision()`); a propAMM's tokens come
 * from the allowlist the router calls. A hop the router would refuse (an unknown venue, no pool, no
 * PoolManager, a pair not allowlisted) is left out, so its route is not priced. Nothing here is read
 * from the order's bytes but the hops themselves.
 */
export async function readRouteVenues(client: PublicClient, router: Address, hops: readonly RouteHop[], blockNumber: bigint, exactOutput: boolean, v4?: V4Contracts): Promise<RouteVenues> {
  const v3Hops = new Map<string, { hop: V3Hop; tokenIn: Address }>();
  const v4Keys = new Map<string, V4PoolKey>();
  const propAmmPairs = new Set<Address>();
  for (const { hop, tokenIn } of hops) {
    if (hop.type === "swapV3") v3Hops.set(v3HopKey(hop, tokenIn), { hop, tokenIn });
    if (hop.type === "swapV4") v4Keys.set(v4HopId(hop, tokenIn), v4HopPoolKey(tokenIn, hop));
    if (hop.type === "swapPropAmm") propAmmPairs.add(hop.pair.toLowerCase() as Address);
  }
  const v3Pools = new Map<string, Address>();
  await Promise.all(
    [...v3Hops].map(async ([key, { hop, tokenIn }]) => {
      // An unknown venue index reverts: the router refuses the hop, and the route is not priced. A read
      // that fails any other way (the node) is no fact: it defers the attribution (readOrRefused).
      const venue = await readOrRefused(client.readContract({ address: router, abi: uniswapV3VenueAbi, functionName: "v3Venue", args: [BigInt(hop.venue)], blockNumber }), undefined, `the router's V3 venue ${hop.venue}`);
      if (venue === undefined) return;
      const pool = await readOrRefused(client.readContract({ address: venue[0], abi: uniswapV3FactoryAbi, functionName: "getPool", args: [tokenIn, hop.tokenOut, hop.fee], blockNumber }), zeroAddress, `a V3 venue's pool for ${tokenIn}/${hop.tokenOut}/${hop.fee}`);
      if (pool !== zeroAddress) v3Pools.set(key, pool.toLowerCase() as Address);
    }),
  );
  const propAmms = new Map<string, readonly [Address, Address]>();
  // A router version without propAMMs has no allowlist to read: its propAMM hops are refused, not priced.
  const allowlist = propAmmPairs.size === 0 ? zeroAddress : ((await readOrDefer(readRouterPropAmmAllowlist(client, router, blockNumber), "the router's propAMM allowlist")) ?? zeroAddress);
  if (allowlist !== zeroAddress) {
    const selector = await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "SWAP_SELECTOR", blockNumber });
    await Promise.all(
      [...propAmmPairs].map(async (pair) => {
        const [token0, token1] = await client.readContract({ address: allowlist, abi: propAmmAllowlistAbi, functionName: "tokensOf", args: [pair, selector], blockNumber });
        if (token0 !== zeroAddress) propAmms.set(pair, [token0.toLowerCase() as Address, token1.toLowerCase() as Address]);
      }),
    );
  }
  return { v3Pools, ...(await readV4Pools(client, router, v4Keys, blockNumber, exactOutput, v4)), propAmms };
}

/**
 * The V4 pools of `keys` (by id) initialised at `blockNumber` in the PoolManager `router` swaps in. A
 * router without one (`poolManager()` reverts or is zero: built before SWAP_V4) refuses every V4 hop,
 * and so does one built before exact output over V4 (`v4Revision()` below 2) in an `exactOutput`
 * order; a PoolManager other than `v4`'s cannot be read through its StateView (`v4Unread`).
 */
async function readV4Pools(client: PublicClient, router: Address, keys: ReadonlyMap<string, V4PoolKey>, blockNumber: bigint, exactOutput: boolean, v4: V4Contracts | undefined): Promise<Pick<RouteVenues, "v4Pools" | "v4" | "v4Unread">> {
  const v4Pools = new Map<string, V4PoolKey>();
  if (keys.size === 0) return { v4Pools, v4Unread: false };
  // readRouterV4Venue throws only for a node failure: it defers the attribution.
  const { poolManager, revision } = await readOrDefer(readRouterV4Venue(client, router, blockNumber), "the router's V4 venue");
  if (poolManager === undefined || (exactOutput && revision < V4_REVISION_EXACT_OUTPUT)) return { v4Pools, v4Unread: false };
  if (v4 === undefined || poolManager.toLowerCase() !== v4.poolManager.toLowerCase()) return { v4Pools, v4Unread: true };
  await Promise.all(
    [...keys].map(async ([id, key]) => {
      // An uninitialised pool's slot0 is all zeros: the PoolManager refuses a swap in it (PoolNotInitialized).
      const [sqrtPriceX96] = await client.readContract({ address: v4.stateView, abi: uniswapV4StateViewAbi, functionName: "getSlot0", args: [id as Hex], blockNumber });
      if (sqrtPriceX96 !== 0n) v4Pools.set(id, key);
    }),
  );
  return { v4Pools, v4, v4Unread: false };
}

/** The tokens of the V3 pool of `key` (token0 first), from the hop's own tokens. */
function poolTokens(key: string): [Address, Address] {
  const [, tokenIn, tokenOut] = key.split(":") as [string, Address, Address];
  return tokenIn < tokenOut ? [tokenIn, tokenOut] : [tokenOut, tokenIn];
}

/** Each V3 pool's swap state at the end of `blockNumber` (the ticks around its price, as the API reads a pool), by lowercase address. */
export async function v3PoolStatesAt(client: PublicClient, venues: RouteVenues, blockNumber: bigint): Promise<Map<string, V3PoolState>> {
  const pools = new Map<string, [Address, Address]>();
  for (const [key, pool] of venues.v3Pools) pools.set(pool, poolTokens(key));
  const read = await Promise.all([...pools].map(async ([address, [token0, token1]]) => [address, await readV3PoolState(client, { address: address as Address, token0, token1 }, blockNumber)] as const));
  return new Map(read);
}

/** Each V4 pool's swap state at the end of `blockNumber`, read through StateView as the API reads a pool first seen late, by lowercase pool id. */
export async function v4PoolStatesAt(client: PublicClient, venues: RouteVenues, blockNumber: bigint): Promise<Map<string, V4PoolState>> {
  const { v4 } = venues;
  if (v4 === undefined) return new Map();
  const read = await Promise.all([...venues.v4Pools].map(async ([id, key]) => [id, await readV4PoolState(client, v4.stateView, key, blockNumber)] as const));
  return new Map(read);
}

/**
 * The V4 pools' states as the order at `position` met them, as `v3PoolStatesMet` does for V3: the
 * parent block's, then the PoolManager's `Swap`, `ModifyLiquidity` and `ProtocolFeeUpdated` events of
 * these pools (by id) in the order's block before it, applied as the API follows them. Also says
 * whether any such event came before it. The PoolManager's own events: nothing the taker's code writes.
 */
export async function v4PoolStatesMet(client: PublicClient, venues: RouteVenues, atParent: ReadonlyMap<string, V4PoolState>, position: BlockPosition): Promise<{ met: Map<string, V4PoolState>; tradedBefore: boolean }> {
  const met = new Map(atParent);
  if (atParent.size === 0 || venues.v4 === undefined) return { met, tradedBefore: false };
  const { poolManager } = venues.v4;
  const before = await logIndexesBefore(client, [poolManager], position);
  const ids = new Set(atParent.keys());
  const events = before.size === 0 ? [] : (await readV4PoolEvents(client, poolManager, { fromBlock: position.blockNumber, toBlock: position.blockNumber }, ids)).filter((event) => ids.has(event.id) && before.has(event.logIndex));
  for (const event of events) met.set(event.id, afterV4PoolEvent(met.get(event.id)!, event));
  return { met, tradedBefore: events.length > 0 };
}

/**
 * The V3 pools' states as the order at `position` met them: the parent block's, then each pool's own
 * `Swap`, `Mint` and `Burn` events in the order's block before it, applied as the API follows them.
 * Also says whether any such event came before it (a pool of the route traded first).
 */
export async function v3PoolStatesMet(client: PublicClient, atParent: ReadonlyMap<string, V3PoolState>, position: BlockPosition): Promise<{ met: Map<string, V3PoolState>; tradedBefore: boolean }> {
  const met = new Map(atParent);
  if (atParent.size === 0) return { met, tradedBefore: false };
  const before = await logIndexesBefore(client, [...atParent.keys()] as Address[], position);
  const events = before.size === 0 ? [] : (await readV3PoolEvents(client, [...atParent.keys()] as Address[], { fromBlock: position.blockNumber, toBlock: position.blockNumber })).filter((event) => before.has(event.logIndex));
  for (const event of events) {
    const pool = met.get(event.pool);
    if (pool !== undefined) met.set(event.pool, afterV3PoolEvent(pool, event));
  }
  return { met, tradedBefore: events.length > 0 };
}

/** Whether the route's propAMMs emitted any log in the order's block before it, and any after it (a later transaction's, or a later batch member's). */
export type PropAmmLogs = Readonly<{ before: boolean; after: boolean }>;

/**
 * Where the route's propAMMs logged in the order's block relative to it (a swap, a price or spread
 * change, an inventory move). Before it: their state then is neither the parent block's nor the block
 * end's, so the route is not priced and the propAMM counts as having traded before it. Only after it:
 * the block's end shows changes the order never met (see `propAmmQuoteBlocks`).
 */
export async function propAmmLogsInBlock(client: PublicClient, venues: RouteVenues, position: BlockPosition): Promise<PropAmmLogs> {
  if (venues.propAmms.size === 0) return { before: false, after: false };
  const logs = await client.getLogs({ address: [...venues.propAmms.keys()] as Address[], fromBlock: position.blockNumber, toBlock: position.blockNumber });
  const live = logs.filter((log) => !log.removed);
  const before = live.filter((log) => isBefore(log, position));
  return { before: before.length > 0, after: live.length > before.length };
}

/**
 * The blocks whose end a propAMM's quote for the state the order met is read at (the lowest counts):
 * with no propAMM log in the block, the parent's and the block's end (an oracle the propAMM reads
 * elsewhere may have moved within the block without a log of its own: the lower quote never puts such
 * a move on the taker); with its own logs only after the order, the parent's alone, since the block's
 * end then carries swaps or price changes made after the order, which a taker could line up behind
 * its own failing order to make the miss look like the market's.
 */
export function propAmmQuoteBlocks(logs: PropAmmLogs, position: BlockPosition): bigint[] {
  const parent = position.blockNumber - 1n;
  return logs.after ? [parent] : [parent, position.blockNumber];
}

/**
 * A propAMM's output for exactly `amountIn` of `tokenIn` at the end of each of `blocks` (its own
 * `getAmountOut`, with bounded gas), the lowest of them: undefined when the pair is not allowlisted for
 * these tokens or its quote reverts or runs out of gas at any of them (the router would not get a fill
 * from it either). A read the node fails throws AttributionReadError: no cause is decided on it.
 */
export async function propAmmOutAt(client: PublicClient, venues: RouteVenues, hop: PropAmmHop, tokenIn: Address, amountIn: bigint, blocks: readonly bigint[]): Promise<bigint | undefined> {
  const tokens = venues.propAmms.get(hop.pair.toLowerCase());
  if (tokens === undefined) return undefined;
  const [token0, token1] = tokens;
  const [input, output] = [tokenIn.toLowerCase(), hop.tokenOut.toLowerCase()];
  const zeroForOne = input === token0;
  if (zeroForOne ? output !== token1 : input !== token1 || output !== token0) return undefined;
  const data = encodeFunctionData({ abi: propAmmAbi, functionName: "getAmountOut", args: [zeroForOne, amountIn] });
  // A quote that reverts or runs out of its gas is the propAMM's answer (no fill); a read that fails
  // any other way defers the attribution rather than leave the route unpriced.
  const outs = await Promise.all(
    blocks.map((blockNumber) =>
      readOrRefused(
        client.call({ to: hop.pair, data, blockNumber, gas: PROPAMM_QUOTE_GAS }).then(({ data: result }) => (result === undefined || result === "0x" ? 0n : hexToBigInt(result))),
        undefined,
        `propAMM ${hop.pair}'s getAmountOut at block ${blockNumber}`,
      ),
    ),
  );
  return outs.some((out) => out === undefined) ? undefined : outs.reduce((low, out) => (out! < low! ? out : low));
}
