import {
  AbiDecodingDataSizeTooSmallError,
  AbiDecodingZeroDataError,
  BaseError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  SliceOffsetOutOfBoundsError,
  type Address,
  type PublicClient,
} from "viem";
import { uniswapV2PairAbi, type ManifestPool } from "../../../sdk";
import type { V2Pool } from "../routing/routeSearch";

/** The readable pools, and why each of the others could not be read. */
export type PoolReserves = Readonly<{ pools: readonly V2Pool[]; unreadable: ReadonlyMap<Address, string> }>;

/**
 * Whether a read failed because of the pool itself (no code at the address, a revert, data that is
 * not a pair's), as opposed to the node (unreachable, timing out), which fails the whole quote.
 */
export function isPoolFault(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  return (
    error.walk(
      (cause) =>
        cause instanceof ContractFunctionZeroDataError ||
        cause instanceof ContractFunctionRevertedError ||
        cause instanceof AbiDecodingZeroDataError ||
        cause instanceof AbiDecodingDataSizeTooSmallError ||
        cause instanceof SliceOffsetOutOfBoundsError,
    ) !== null
  );
}

/**
 * Reserves of every pool at `blockNumber`, read in one JSON-RPC batch (the client batches concurrent
 * calls), and whether its price oracle has started (the gas model needs it). Token addresses come
 * back lowercase, as routing compares them. A pool that cannot be read is left out (one dead pool,
 * such as one recorded on an earlier devnet run, must not fail quotes that never use it); a node
 * failure still throws.
 */
export async function readPoolReserves(client: PublicClient, pools: readonly ManifestPool[], blockNumber: bigint): Promise<PoolReserves> {
  const unreadable = new Map<Address, string>();
  const read = await Promise.all(
    pools.map(async (pool) => {
      try {
        const [[reserve0, reserve1, timestampLast], oracle] = await Promise.all([
          client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: "getReserves", blockNumber }),
          client.readContract({ address: pool.address, abi: uniswapV2PairAbi, functionName: "price0CumulativeLast", blockNumber }),
        ]);
        const priced: V2Pool = {
          address: pool.address.toLowerCase() as Address,
          token0: pool.token0.toLowerCase() as Address,
          token1: pool.token1.toLowerCase() as Address,
          reserve0,
          reserve1,
          feeBps: pool.feeBps,
          source: pool.source,
          oracleStarted: oracle !== 0n,
          timestampLast,
        };
        return priced;
      } catch (error) {
        if (!isPoolFault(error)) throw error;
        unreadable.set(pool.address, (error as BaseError).shortMessage);
        return undefined;
      }
    }),
  );
  return { pools: read.filter((pool): pool is V2Pool => pool !== undefined), unreadable };
}
