import { decodeFunctionResult, encodeFunctionData, zeroAddress, type Address, type Hex } from "viem";
import { isExecutionFailure } from "../chain/executionFailure";
import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";
import { ChainConnectionError } from "../errors/client";
import type { ChainReader } from "./tradingWallet";

/**
 * A router's view `functionName()` that names a contract it works with (its propAMM allowlist, its V4
 * PoolManager), undefined when the router has none: the call reverts (a router version without that
 * part), answers nothing, or answers the zero address. At `blockNumber` (default the latest block). A
 * node that does not answer is a ChainConnectionError (`what` says what was being read), and any other
 * error of the node's (a rate limit, a block it does not have yet) is thrown as it came: never "none".
 */
export async function readRouterAddressView(reader: ChainReader, router: Address, functionName: string, what: string, blockNumber?: bigint): Promise<Address | undefined> {
  const abi = [{ type: "function", name: functionName, stateMutability: "view", inputs: [], outputs: [{ type: "address" }] }] as const;
  let data: Hex | undefined;
  try {
    data = (await reader.call({ to: router, data: encodeFunctionData({ abi, functionName }), blockNumber })).data;
  } catch (error) {
    const unreachable = rpcConnectionFailure(error);
    if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, `reading router ${router}'s ${what}`, error);
    if (isExecutionFailure(error)) return undefined;
    throw error;
  }
  if (data === undefined || data === "0x") return undefined;
  const address = decodeFunctionResult({ abi, functionName, data }) as Address;
  return address === zeroAddress ? undefined : address;
}
