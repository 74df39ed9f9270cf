import type { Address, PublicClient } from "viem";
import { uniswapV3PoolAbi } from "../../abis/uniswapV3PoolAbi";
import { MAX_TICK, MIN_TICK } from "./tickMath";
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

/** The word of the tick bitmap holding `tick`, as TickBitmap.position (floor of tick / spacing, then / 256). */
function wordOf(tick: number, tickSpacing: number): number {
  return Math.floor(tick / tickSpacing) >> 8;
}

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
  const firstWord = Math.max(wordOf(MIN_TICK, tickSpacing), wordOf(tick, tickSpacing) - wordsEachSide);
  const lastWord = Math.min(wordOf(MAX_TICK, tickSpacing), wordOf(tick, tickSpacing) + wordsEachSide);
  const words = await Promise.all(
    Array.from({ length: lastWord - firstWord + 1 }, (_, offset) => client.readContract({ ...read, functionName: "tickBitmap", args: [firstWord + offset] })),
  );
  const indexes: number[] = [];
  words.forEach((word, offset) => {
    for (let bit = 0; word !== 0n && bit < 256; bit++) {
      if (((word >> BigInt(bit)) & 1n) === 1n) indexes.push(((firstWord + offset) * 256 + bit) * tickSpacing);
    }
  });
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
    tickRange: { lower: Math.max(MIN_TICK, firstWord * 256 * tickSpacing), upper: Math.min(MAX_TICK, (lastWord * 256 + 255) * tickSpacing) },
  };
}
