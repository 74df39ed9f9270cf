import { decodeFunctionResult, encodeFunctionData, zeroAddress, type Address, type Hex } from "viem";
import { isExecutionFailure } from "../chain/executionFailure";
import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";
import { ChainConnectionError } from "../errors/client";
import type { ChainReader } from "./tradingWallet";

/** The router view naming the Uniswap V4 PoolManager its SWAP_V4 hops swap in (a constructor immutable). */
const routerPoolManagerAbi = [{ type: "function", name: "poolManager", stateMutability: "view", inputs: [], outputs: [{ type: "address" }] }] as const;

/**
 * The V4 PoolManager `router` executes SWAP_V4 through (`poolManager()`), undefined for a router that
 * has none: it reverts (a router built before the V4 action), answers nothing, or the zero address.
 * At `blockNumber` (default the latest block). A node that does not answer is a ChainConnectionError,
 * and any other error of the node's is thrown as it came: never "no V4".
 */
export async function readRouterPoolManager(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<Address | undefined> {
  let data: Hex | undefined;
  try {
    data = (await reader.call({ to: router, data: encodeFunctionData({ abi: routerPoolManagerAbi, functionName: "poolManager" }), blockNumber })).data;
  } catch (error) {
    const unreachable = rpcConnectionFailure(error);
    if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, `reading router ${router}'s V4 PoolManager`, error);
    if (isExecutionFailure(error)) return undefined;
    throw error;
  }
  if (data === undefined || data === "0x") return undefined;
  const poolManager = decodeFunctionResult({ abi: routerPoolManagerAbi, functionName: "poolManager", data });
  return poolManager === zeroAddress ? undefined : poolManager;
}
