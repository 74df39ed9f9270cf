import { decodeFunctionResult, encodeFunctionData, getAddress, type Address, type Hex } from "viem";
import { uniswapV3VenueAbi } from "../abis/uniswapV3VenueAbi";
import { isExecutionFailure } from "../chain/executionFailure";
import { rpcConnectionFailure } from "../chain/rpcConnectionFailure";
import { ChainConnectionError } from "../errors/client";
import type { ChainReader } from "./tradingWallet";

/** One entry of a router's V3 venue table: the factory and pool init-code hash its SWAP_V3 hops compute pools from. */
export type RouterV3Venue = Readonly<{ factory: Address; poolInitCodeHash: Hex }>;

/**
 * What a router computes a SWAP_V3 hop's pool from: its V3 venue table (index = the hop's `venue`) and
 * its wrapped native token (a native sell's route starts at it).
 */
export type RouterV3Venues = Readonly<{
  router: Address;
  /** Undefined when the router does not answer `weth`: a native sell's V3 hops then compute no pool. */
  weth: Address | undefined;
  /** Undefined where an entry could not be read: hops naming it compute no pool. */
  venues: readonly (RouterV3Venue | undefined)[];
}>;

/** RouterFunds.weth: every router's wrapped native token. */
const wethAbi = [{ type: "function", name: "weth", stateMutability: "view", inputs: [], outputs: [{ type: "address" }] }] as const;

/** The most venues a router holds (UniswapV3Hops.MAX_V3_VENUES): a larger count is not a router's answer. */
const MAX_V3_VENUES = 4n;

/**
 * Reads `router`'s V3 venue table (`v3VenueCount`, `v3Venue(i)`) and `weth` at `blockNumber` (default the latest block). A
 * router that reverts on `v3VenueCount` has no V3 venues (an empty table: every SWAP_V3 hop is then
 * refused); a node that does not answer is a ChainConnectionError, and any other error of the node's
 * (a rate limit, a block it does not have yet) is thrown as it came, never read as an empty table.
 */
export async function readRouterV3Venues(reader: ChainReader, router: Address, blockNumber?: bigint): Promise<RouterV3Venues> {
  const call = async (data: Hex): Promise<Hex | undefined> => {
    try {
      return (await reader.call({ to: router, data, blockNumber })).data;
    } catch (error) {
      const unreachable = rpcConnectionFailure(error);
      if (unreachable !== undefined) throw new ChainConnectionError(unreachable.url, unreachable.reason, `reading router ${router}'s V3 venue table`, error);
      if (isExecutionFailure(error)) return undefined;
      throw error;
    }
  };
  const [countData, wethData] = await Promise.all([
    call(encodeFunctionData({ abi: uniswapV3VenueAbi, functionName: "v3VenueCount" })),
    call(encodeFunctionData({ abi: wethAbi, functionName: "weth" })),
  ]);
  const weth = wethData === undefined || wethData === "0x" ? undefined : decodeFunctionResult({ abi: wethAbi, functionName: "weth", data: wethData });
  const count = countData === undefined || countData === "0x" ? 0n : decodeFunctionResult({ abi: uniswapV3VenueAbi, functionName: "v3VenueCount", data: countData });
  const venues = await Promise.all(
    Array.from({ length: Number(count > MAX_V3_VENUES ? 0n : count) }, async (_, index) => {
      const data = await call(encodeFunctionData({ abi: uniswapV3VenueAbi, functionName: "v3Venue", args: [BigInt(index)] }));
      if (data === undefined || data === "0x") return undefined;
      const [factory, poolInitCodeHash] = decodeFunctionResult({ abi: uniswapV3VenueAbi, functionName: "v3Venue", data });
      return { factory: getAddress(factory), poolInitCodeHash };
    }),
  );
  return { router: getAddress(router), weth: weth === undefined ? undefined : getAddress(weth), venues };
}
