import { getAbiItem, type Address, type PublicClient } from "viem";
import { uniswapV3PoolAbi } from "../../../../sdk";
import { chainOrder, logPosition, type LogPosition, type LogWindow } from "../../poolEvents";

const v3Events = [
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Initialize" }),
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Swap" }),
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Mint" }),
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Burn" }),
] as const;

/** One event that changes a V3 pool's swap state, in chain order. `pool` is lowercase. */
export type V3PoolEvent = Readonly<
  LogPosition & { pool: Address } & (
      | { kind: "initialize"; sqrtPriceX96: bigint; tick: number }
      | { kind: "swap"; sqrtPriceX96: bigint; tick: number; liquidity: bigint }
      /** Mint (positive) or Burn (negative) of liquidity over [tickLower, tickUpper). */
      | { kind: "liquidity"; tickLower: number; tickUpper: number; liquidityDelta: bigint }
    )
>;

/**
 * The `Initialize`, `Swap`, `Mint` and `Burn` events of `pools` in one `eth_getLogs`, in chain order:
 * everything a pool's price, active liquidity and ticks change by. Events from other contracts are
 * dropped, as V2's `readPoolEvents` does.
 */
export async function readV3PoolEvents(client: PublicClient, pools: readonly Address[], window: LogWindow): Promise<V3PoolEvent[]> {
  if (pools.length === 0) return [];
  const logs = await client.getLogs({ address: [...pools], events: v3Events, strict: true, ...window });
  const known = new Set(pools.map((pool) => pool.toLowerCase()));
  const events: V3PoolEvent[] = [];
  for (const log of logs) {
    const at = logPosition(log);
    const pool = log.address.toLowerCase() as Address;
    if (at === undefined || !known.has(pool)) continue;
    if (log.eventName === "Initialize") events.push({ ...at, pool, kind: "initialize", sqrtPriceX96: log.args.sqrtPriceX96, tick: log.args.tick });
    else if (log.eventName === "Swap") events.push({ ...at, pool, kind: "swap", sqrtPriceX96: log.args.sqrtPriceX96, tick: log.args.tick, liquidity: log.args.liquidity });
    else if (log.eventName === "Mint") events.push({ ...at, pool, kind: "liquidity", tickLower: log.args.tickLower, tickUpper: log.args.tickUpper, liquidityDelta: log.args.amount });
    else if (log.eventName === "Burn") events.push({ ...at, pool, kind: "liquidity", tickLower: log.args.tickLower, tickUpper: log.args.tickUpper, liquidityDelta: -log.args.amount });
  }
  return events.sort(chainOrder);
}
