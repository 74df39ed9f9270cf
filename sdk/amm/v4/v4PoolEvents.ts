import { getAbiItem, getAddress, type Address, type Hex, type PublicClient } from "viem";
import { uniswapV4PoolManagerAbi } from "../../abis/uniswapV4Abi";
import { chainOrder, logPosition, type LogPosition, type LogWindow } from "../../chain/logPosition";
import type { V4PoolKey } from "./poolKey";

const v4Events = [
  getAbiItem({ abi: uniswapV4PoolManagerAbi, name: "Initialize" }),
  getAbiItem({ abi: uniswapV4PoolManagerAbi, name: "Swap" }),
  getAbiItem({ abi: uniswapV4PoolManagerAbi, name: "ModifyLiquidity" }),
  getAbiItem({ abi: uniswapV4PoolManagerAbi, name: "ProtocolFeeUpdated" }),
] as const;

/** One event of the PoolManager that changes a V4 pool's swap state, in chain order. `id` is the pool id (lowercase). */
export type V4PoolEvent = Readonly<
  LogPosition & { id: Hex } & (
      /** A pool came to be: its key and first price. */
      | { kind: "initialize"; key: V4PoolKey; sqrtPriceX96: bigint; tick: number }
      /** A swap: the price, tick and active liquidity after it, and the fee it paid (LP fee with the protocol's). */
      | { kind: "swap"; sqrtPriceX96: bigint; tick: number; liquidity: bigint; fee: number }
      /** A position over [tickLower, tickUpper) gained (positive) or lost liquidity. */
      | { kind: "liquidity"; tickLower: number; tickUpper: number; liquidityDelta: bigint }
      | { kind: "protocolFee"; protocolFee: number }
    )
>;

/**
 * The PoolManager's `Initialize`, `Swap`, `ModifyLiquidity` and `ProtocolFeeUpdated` events over
 * `window`, in chain order: one singleton emits every pool's, keyed by pool id, so one `eth_getLogs`
 * on one address follows them all. `ids` (lowercase) keeps only those pools' events, except
 * `Initialize`, which is how new pools are found; without it every pool's are returned.
 */
export async function readV4PoolEvents(client: PublicClient, poolManager: Address, window: LogWindow, ids?: ReadonlySet<string>): Promise<V4PoolEvent[]> {
  const logs = await client.getLogs({ address: poolManager, events: v4Events, strict: true, ...window });
  const events: V4PoolEvent[] = [];
  for (const log of logs) {
    const at = logPosition(log);
    if (at === undefined || log.address.toLowerCase() !== poolManager.toLowerCase()) continue;
    const id = log.args.id.toLowerCase() as Hex;
    if (log.eventName === "Initialize") {
      const { currency0, currency1, fee, tickSpacing, hooks } = log.args;
      const key: V4PoolKey = { currency0: getAddress(currency0), currency1: getAddress(currency1), fee, tickSpacing, hooks: getAddress(hooks) };
      events.push({ ...at, id, kind: "initialize", key, sqrtPriceX96: log.args.sqrtPriceX96, tick: log.args.tick });
      continue;
    }
    if (ids !== undefined && !ids.has(id)) continue;
    if (log.eventName === "Swap") events.push({ ...at, id, kind: "swap", sqrtPriceX96: log.args.sqrtPriceX96, tick: log.args.tick, liquidity: log.args.liquidity, fee: log.args.fee });
    else if (log.eventName === "ModifyLiquidity") events.push({ ...at, id, kind: "liquidity", tickLower: log.args.tickLower, tickUpper: log.args.tickUpper, liquidityDelta: log.args.liquidityDelta });
    else if (log.eventName === "ProtocolFeeUpdated") events.push({ ...at, id, kind: "protocolFee", protocolFee: log.args.protocolFee });
  }
  return events.sort(chainOrder);
}
