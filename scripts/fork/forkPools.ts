import { erc20Abi, getAbiItem, getAddress, type Address, type PublicClient } from "viem";
import { uniswapV3FactoryAbi } from "../../sdk";
import type { ChainFile } from "../../sdk/chain/chainFile";
import type { ManifestToken, ManifestVenuePool } from "../../sdk/chain/manifest";
import { pairCreatedEvent } from "../../api/quote/market/poolEvents";

const poolCreatedEvent = getAbiItem({ abi: uniswapV3FactoryAbi, name: "PoolCreated" });

/** Blocks per `eth_getLogs` when the fork's pools are looked for (public RPCs refuse wide ranges). */
export const DEFAULT_FORK_LOG_RANGE = 10_000n;

export type ForkMarket = Readonly<{ pools: ManifestVenuePool[]; tokens: ManifestToken[]; skipped: string[] }>;

/**
 * The pools of the chain file's venues that exist at the fork block: each factory's `PairCreated` /
 * `PoolCreated` events from the venue's start block, in windows of `range` blocks, read from the
 * original chain. A V3 pool of a fee tier the chain file does not list, or of a token whose ERC-20
 * metadata cannot be read (on the fork), is left out and said in `skipped`.
 */
export async function discoverForkPools(remote: PublicClient, fork: PublicClient, chainFile: ChainFile, toBlock: bigint, range = DEFAULT_FORK_LOG_RANGE): Promise<ForkMarket> {
  const found: ManifestVenuePool[] = [];
  const skipped: string[] = [];
  for (const venue of chainFile.venues) {
    const factory = venue.factory.address;
    if (factory === null) continue;
    for (let from = BigInt(venue.startBlock); from <= toBlock; from += range) {
      const to = from + range - 1n < toBlock ? from + range - 1n : toBlock;
      if (venue.type === "uniswap-v2") {
        const logs = await remote.getLogs({ address: factory, event: pairCreatedEvent, fromBlock: from, toBlock: to, strict: true });
        for (const log of logs) {
          found.push({ address: getAddress(log.args.pair), token0: getAddress(log.args.token0), token1: getAddress(log.args.token1), type: "uniswap-v2", source: "uniswap-v2", feeBps: venue.feeTiers[0]!.fee / 100 });
        }
      } else {
        const logs = await remote.getLogs({ address: factory, event: poolCreatedEvent, fromBlock: from, toBlock: to, strict: true });
        for (const log of logs) {
          const { fee, tickSpacing } = log.args;
          if (!venue.feeTiers.some((tier) => tier.fee === fee && tier.tickSpacing === tickSpacing)) {
            skipped.push(`${log.args.pool} (${venue.name}): fee ${fee} / tick spacing ${tickSpacing} is not a fee tier of the chain file`);
            continue;
          }
          found.push({ address: getAddress(log.args.pool), token0: getAddress(log.args.token0), token1: getAddress(log.args.token1), type: "uniswap-v3", source: venue.name, fee, tickSpacing });
        }
      }
    }
  }
  const tokens = new Map<Address, ManifestToken | undefined>();
  for (const token of new Set(found.flatMap((pool) => [pool.token0, pool.token1]))) tokens.set(token, await readToken(fork, token));
  const pools = found.filter((pool) => {
    const unreadable = [pool.token0, pool.token1].filter((token) => tokens.get(token) === undefined);
    if (unreadable.length > 0) skipped.push(`${pool.address} (${pool.source}): ERC-20 symbol/name/decimals unreadable for ${unreadable.join(", ")}`);
    return unreadable.length === 0;
  });
  return { pools, tokens: [...tokens.values()].filter((token): token is ManifestToken => token !== undefined), skipped };
}

async function readToken(client: PublicClient, address: Address): Promise<ManifestToken | undefined> {
  try {
    const [symbol, name, decimals] = await Promise.all([
      client.readContract({ address, abi: erc20Abi, functionName: "symbol" }),
      client.readContract({ address, abi: erc20Abi, functionName: "name" }),
      client.readContract({ address, abi: erc20Abi, functionName: "decimals" }),
    ]);
    return symbol.length > 0 ? { symbol, name, address, decimals } : undefined;
  } catch {
    return undefined;
  }
}
