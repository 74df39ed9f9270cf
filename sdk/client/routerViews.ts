import { decodeFunctionResult, encodeFunctionData, zeroAddress, type Address, type Hex } from "viem";
import { isExecutionFailure } from "../chain/executionFailure";
import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";
import { ChainConnectionError } from "../errors/client";
import type { ChainReader } from "./tradingWallet";

/**
 * What a router's argument-less view `functionName()` returns at `blockNumber` (default the latest
 * block), undefined when the router lacks it: the call reverts (a router version without that view) or
 * answers nothing (an answer that does not decode as the view's type reads the same, by each reader). A node that does not answer is a ChainConnectionError (`what` says what was being
 * read), and any other error of the node's (a rate limit, a block it does not have yet) is thrown as
 * it came: never "none".
 */
async function callRouterView(reader: ChainReader, router: Address, functionName: string, what: string, blockNumber: bigint | undefined): Promise<Hex | undefined> {
  try {
    const { data } = await reader.call({ to: router, data: encodeFunctionData({ abi: [{ type: "function", name: functionName, stateMutability: "view", inputs: [], outputs: [] }], functionName }), blockNumber });
    return data === undefined || data === "0x" ? undefined : data;
  } catch (error) {
    const unreachable = rpcConnectionFailure(error);
    if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, `reading router ${router}'s ${what}`, error);
    if (isExecutionFailure(error)) return undefined;
    throw error;
  }
}

/**
 * A router's view `functionName()` that names a contract it works with (its propAMM allowlist, its V4
 * PoolManager), undefined when the router has none: it lacks the view (callRouterView) or answers the
 * zero address.
 */
export async function readRouterAddressView(reader: ChainReader, router: Address, functionName: string, what: string, blockNumber?: bigint): Promise<Address | undefined> {
  const data = await callRouterView(reader, router, functionName, what, blockNumber);
  if (data === undefined) return undefined;
  const abi = [{ type: "function", name: functionName, stateMutability: "view", inputs: [], outputs: [{ type: "address" }] }] as const;
  const address = decoded(() => decodeFunctionResult({ abi, functionName, data }) as Address);
  return address === undefined || address === zeroAddress ? undefined : address;
}

/** A router's numeric view `functionName()` (a revision, a count); undefined for a router that lacks it (callRouterView). */
export async function readRouterNumberView(reader: ChainReader, router: Address, functionName: string, what: string, blockNumber?: bigint): Promise<bigint | undefined> {
  const data = await callRouterView(reader, router, functionName, what, blockNumber);
  if (data === undefined) return undefined;
  const abi = [{ type: "function", name: functionName, stateMutability: "view", inputs: [], outputs: [{ type: "uint256" }] }] as const;
  return decoded(() => decodeFunctionResult({ abi, functionName, data }) as bigint);
}

/** An answer that does not decode as the view's type is another function's, not this view's: read as none. */
function decoded<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch {
    return undefined;
  }
}
