import { getAbiItem, type Address, type PublicClient } from "viem";
import { uniswapV3FactoryAbi, uniswapV3PoolAbi } from "../../abis/uniswapV3PoolAbi";
import { chainOrder, logPosition, type LogPosition, type LogWindow } from "../../chain/logPosition";

const v3Events = [
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Initialize" }),
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Swap" }),
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Mint" }),
  getAbiItem({ abi: uniswapV3PoolAbi, name: "Burn" }),
  getAbiItem({ abi: uniswapV3FactoryAbi, name: "PoolCreated" }),
] as const;

/** One event that changes a V3 pool's swap state, in chain order. `pool` is lowercase. */
export type V3PoolEvent = Readonly<
  LogPosition & { pool: Address } & (
      | { kind: "initialize"; sqrtPriceX96: bigint; tick: number }
      | { kind: "swap"; sqrtPriceX96: bigint; tick: number; liquidity: bigint }
      /** Mint (positive) or Burn (negative) of liquidity over [tickLower, tickUpper). */
      | { kind: "liquidity"; tickLower: number; tickUpper: number; liquidityDelta: bigint }
      /** A followed factory created `pool` (lowercase tokens). */
      | { kind: "poolCreated"; factory: Address; token0: Address; token1: Address; fee: number; tickSpacing: number }
    )
>;

/**
 * The `Initialize`, `Swap`, `Mint` and `Burn` events of `pools`, and the `PoolCreated` events of
 * `factories`, in one `eth_getLogs`, in chain order: everything a pool's price, active liquidity and
 * ticks change by, and the pools that appear. Events from other contracts are dropped, as V2's
 * `readPoolEvents` does.
 */
export async function readV3PoolEvents(client: PublicClient, pools: readonly Address[], window: LogWindow, factories: readonly Address[] = []): Promise<V3PoolEvent[]> {
  if (pools.length + factories.length === 0) return [];
  const logs = await client.getLogs({ address: [...pools, ...factories], events: v3Events, strict: true, ...window });
  const known = new Set(pools.map((pool) => pool.toLowerCase()));
  const knownFactories = new Set(factories.map((factory) => factory.toLowerCase()));
  const events: V3PoolEvent[] = [];
  for (const log of logs) {
    const at = logPosition(log);
    const emitter = log.address.toLowerCase() as Address;
    if (at === undefined) continue;
    if (log.eventName === "PoolCreated") {
      if (!knownFactories.has(emitter)) continue;
      const [pool, token0, token1] = [log.args.pool, log.args.token0, log.args.token1].map((value) => value.toLowerCase() as Address) as [Address, Address, Address];
      events.push({ ...at, pool, kind: "poolCreated", factory: emitter, token0, token1, fee: log.args.fee, tickSpacing: log.args.tickSpacing });
      continue;
    }
    const pool = emitter;
    if (!known.has(pool)) continue;
    if (log.eventName === "Initialize") events.push({ ...at, pool, kind: "initialize", sqrtPriceX96: log.args.sqrtPriceX96, tick: log.args.tick });
    else if (log.eventName === "Swap") events.push({ ...at, pool, kind: "swap", sqrtPriceX96: log.args.sqrtPriceX96, tick: log.args.tick, liquidity: log.args.liquidity });
    else if (log.eventName === "Mint") events.push({ ...at, pool, kind: "liquidity", tickLower: log.args.tickLower, tickUpper: log.args.tickUpper, liquidityDelta: log.args.amount });
    else if (log.eventName === "Burn") events.push({ ...at, pool, kind: "liquidity", tickLower: log.args.tickLower, tickUpper: log.args.tickUpper, liquidityDelta: -log.args.amount });
  }
  return events.sort(chainOrder);
}
