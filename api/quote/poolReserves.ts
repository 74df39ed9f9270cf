import type { Address, PublicClient } from "viem";
import type { ManifestPool } from "../../sdk";
import type { PricedPool } from "./routeSearch";

const pairAbi = [
  {
    type: "function",
    name: "getReserves",
    stateMutability: "view",
    inputs: [],
    outputs: [
      { name: "reserve0", type: "uint112" },
      { name: "reserve1", type: "uint112" },
      { name: "blockTimestampLast", type: "uint32" },
    ],
  },
  {
    type: "function",
    name: "price0CumulativeLast",
    stateMutability: "view",
    inputs: [],
    outputs: [{ name: "", type: "uint256" }],
  },
] as const;

/**
 * Reserves of every pool at `blockNumber`, read in one JSON-RPC batch (the client batches concurrent
 * calls), and whether its price oracle has started (the gas model needs it). Token addresses come
 * back lowercase, as routing compares them.
 */
export async function readPoolReserves(client: PublicClient, pools: readonly ManifestPool[], blockNumber: bigint): Promise<PricedPool[]> {
  const [reserves, oracles] = await Promise.all([
    Promise.all(pools.map((pool) => client.readContract({ address: pool.address, abi: pairAbi, functionName: "getReserves", blockNumber }))),
    Promise.all(pools.map((pool) => client.readContract({ address: pool.address, abi: pairAbi, functionName: "price0CumulativeLast", blockNumber }))),
  ]);
  return pools.map((pool, index) => {
    const [reserve0, reserve1] = reserves[index]!;
    return {
      address: pool.address.toLowerCase() as Address,
      token0: pool.token0.toLowerCase() as Address,
      token1: pool.token1.toLowerCase() as Address,
      reserve0,
      reserve1,
      feeBps: pool.feeBps,
      source: pool.source,
      oracleStarted: oracles[index]! !== 0n,
    };
  });
}
