import type { Address, PublicClient } from "viem";
import { uniswapV2PairAbi, type ManifestPool } from "../../sdk";
import type { PricedPool } from "./routeSearch";


/**
 * Reserves of every pool at `blockNumber`, read in one JSON-RPC batch (the client batches concurrent
 * calls), and whether its price oracle has started (the gas model needs it). Token addresses come
 * back lowercase, as routing compares them.
 */
export async function readPoolReserves(client: PublicClient, pools: readonly ManifestPool[], blockNumber: bigint): Promise<PricedPool[]> {
  const [reserves, oracles] = await Promise.all([
    Promise.all(pools.map((pool) => client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: "getReserves", blockNumber }))),
    Promise.all(pools.map((pool) => client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: "price0CumulativeLast", blockNumber }))),
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
