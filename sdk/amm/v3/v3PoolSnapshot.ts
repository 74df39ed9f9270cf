import type { Address, PublicClient } from "viem";
import { uniswapV3PoolAbi } from "../../abis/uniswapV3PoolAbi";
import { initializedTicksIn, tickBitmapWindow, tickRangeOf } from "./tickBitmapWindow";
import type { V3PoolState, V3TickState } from "./v3PoolState";

/** A V3 pool to read: its address and tokens (from the manifest or the factory's `PoolCreated`). */
export type V3PoolDescriptor = Readonly<{ address: Address; token0: Address; token1: Address; source?: string }>;

/**
 * Tick-bitmap words read on each side of the current tick's word. A word holds 256 tick spacings
 * (15,360 ticks at spacing 60, a factor of 2.5 in price), so 8 words each side cover any realistic
 * swap while keeping a pool's read to a few dozen calls; a swap that would leave them is refused.
 */
export const DEFAULT_WORDS_EACH_SIDE = 8;

const lower = (address: Address) => address.toLowerCase() as Address;

/**
 * A pool's swap state at `blockNumber`, read directly: `slot0`, `liquidity`, `fee`, `tickSpacing`,
 * then the tick bitmap's words around the price and `ticks()` of every initialized tick in them. For
 * pools first seen after the event following started (or after a reorg), before events take over.
 * Reads go out concurrently (the client batches them into JSON-RPC batches).
 */
export async function readV3PoolState(client: PublicClient, pool: V3PoolDescriptor, blockNumber: bigint, wordsEachSide: number = DEFAULT_WORDS_EACH_SIDE): Promise<V3PoolState> {
  const read = { address: pool.address, abi: uniswapV3PoolAbi, blockNumber } as const;
  const [slot0, liquidity, fee, tickSpacing] = await Promise.all([
    client.readContract({ ...read, functionName: "slot0" }),
    client.readContract({ ...read, functionName: "liquidity" }),
    client.readContract({ ...read, functionName: "fee" }),
    client.readContract({ ...read, functionName: "tickSpacing" }),
  ]);
  const [sqrtPriceX96, tick] = slot0;
  const window = tickBitmapWindow(tick, tickSpacing, wordsEachSide);
  const words = await Promise.all(
    Array.from({ length: window.lastWord - window.firstWord + 1 }, (_, offset) => client.readContract({ ...read, functionName: "tickBitmap", args: [window.firstWord + offset] })),
  );
  const indexes = initializedTicksIn(window, words, tickSpacing);
  const ticks: V3TickState[] = await Promise.all(
    indexes.map(async (index) => {
      const [liquidityGross, liquidityNet] = await client.readContract({ ...read, functionName: "ticks", args: [index] });
      return { index, liquidityGross, liquidityNet };
    }),
  );
  return {
    address: lower(pool.address),
    token0: lower(pool.token0),
    token1: lower(pool.token1),
    sqrtPriceX96,
    tick,
    liquidity,
    fee,
    tickSpacing,
    ticks,
    tickRange: tickRangeOf(window, tickSpacing),
  };
}
