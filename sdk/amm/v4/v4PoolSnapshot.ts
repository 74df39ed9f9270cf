import type { Address, Hex, PublicClient } from "viem";
import { uniswapV4StateViewAbi } from "../../abis/uniswapV4Abi";
import { initializedTicksIn, tickBitmapWindow, tickRangeOf } from "../v3/tickBitmapWindow";
import { DEFAULT_WORDS_EACH_SIDE } from "../v3/v3PoolSnapshot";
import { isDynamicFee, v4PoolId, type V4PoolKey } from "./poolKey";
import type { V4PoolState } from "./v4PoolState";

/**
 * A V4 pool's swap state at `blockNumber`, read through StateView by pool id: slot0 (price, tick,
 * protocol fee, LP fee), active liquidity, the tick bitmap's words around the price and each
 * initialized tick in them, as V3 pools are read. For pools first seen after event following
 * started, or after a reorg; events take over from there. The LP fee is slot0's, so a dynamic fee is
 * read as it stands.
 */
export async function readV4PoolState(client: PublicClient, stateView: Address, key: V4PoolKey, blockNumber: bigint, wordsEachSide: number = DEFAULT_WORDS_EACH_SIDE): Promise<V4PoolState> {
  const id = v4PoolId(key).toLowerCase() as Hex;
  const read = { address: stateView, abi: uniswapV4StateViewAbi, blockNumber } as const;
  const [slot0, liquidity] = await Promise.all([
    client.readContract({ ...read, functionName: "getSlot0", args: [id] }),
    client.readContract({ ...read, functionName: "getLiquidity", args: [id] }),
  ]);
  const [sqrtPriceX96, tick, protocolFee, lpFee] = slot0;
  const window = tickBitmapWindow(tick, key.tickSpacing, wordsEachSide);
  const words = await Promise.all(
    Array.from({ length: window.lastWord - window.firstWord + 1 }, (_, offset) => client.readContract({ ...read, functionName: "getTickBitmap", args: [id, window.firstWord + offset] })),
  );
  const ticks = await Promise.all(
    initializedTicksIn(window, words, key.tickSpacing).map(async (index) => {
      const [liquidityGross, liquidityNet] = await client.readContract({ ...read, functionName: "getTickLiquidity", args: [id, index] });
      return { index, liquidityGross, liquidityNet };
    }),
  );
  return {
    id,
    key,
    address: id as Address,
    token0: key.currency0.toLowerCase() as Address,
    token1: key.currency1.toLowerCase() as Address,
    sqrtPriceX96,
    tick,
    liquidity,
    // A static fee is the key's; slot0's lpFee holds the same. A dynamic one is whatever the hook set last.
    fee: isDynamicFee(key.fee) ? lpFee : key.fee,
    protocolFee,
    tickSpacing: key.tickSpacing,
    ticks,
    tickRange: tickRangeOf(window, key.tickSpacing),
  };
}
