import type { HardhatRuntimeEnvironment } from "hardhat/types";
import { BaseError, createPublicClient, http, type PublicClient } from "viem";
import type { ChainFile } from "../../sdk/chain/chainFile";
import { selectChainFile } from "../../sdk/chain/selectChainFile";

/** The chain the devnet stands on in fork mode: where, at which block, and the chain file that describes it. */
export type ForkTarget = Readonly<{
  url: string;
  block: bigint;
  chainFile: ChainFile;
  /** Reads of the original chain (logs up to the fork block come from it, never from the fork). */
  remote: PublicClient;
}>;

export type ForkOptions = Readonly<{ url: string; block: bigint | undefined; chainsDir: string; chainName: string | undefined }>;

/** A fork that cannot start: the message says which variable to change. */
export class ForkError extends Error {
  override readonly name = "ForkError";
}

/**
 * Turns the in-process Hardhat network into a fork of the chain at `url` (hardhat_reset with
 * forking), at FORK_BLOCK or the chain's head. Before that it picks the chain file whose external
 * addresses all have code at that block (or the one FORK_CHAIN names). The fork keeps the devnet's
 * chain id: signatures and Permit2's domain are for it, so only a chain with the same id is forked.
 */
export async function forkHardhatNetwork(hre: HardhatRuntimeEnvironment, options: ForkOptions): Promise<ForkTarget> {
  const remote = createPublicClient({ transport: http(options.url, { retryCount: 1, timeout: 30_000 }), cacheTime: 0 }) as PublicClient;
  let remoteChainId: number;
  let head: bigint;
  try {
    [remoteChainId, head] = await Promise.all([remote.getChainId(), remote.getBlockNumber()]);
  } catch (error) {
    throw new ForkError(`cannot reach the chain at FORK_URL=${options.url} (${error instanceof BaseError ? error.shortMessage : String(error)}): check FORK_URL`);
  }
  const localChainId = hre.network.config.chainId;
  if (remoteChainId !== localChainId) {
    throw new ForkError(`FORK_URL serves chain ${remoteChainId}; the devnet forks chains with its own id ${localChainId} only (quotes and Permit2 signatures are for that id)`);
  }
  const block = options.block ?? head;
  if (block > head) throw new ForkError(`FORK_BLOCK=${block} is past the chain's head ${head}: pick a block at or before it`);
  // The chain file must match the chain as forked: its addresses are looked at at the fork block.
  const atForkBlock = { getChainId: () => remote.getChainId(), getCode: ({ address }: { address: `0x${string}` }) => remote.getCode({ address, blockNumber: block }) };
  const chainFile = await selectChainFile(options.chainName ?? String(remoteChainId), { directory: options.chainsDir, client: atForkBlock as Pick<PublicClient, "getChainId" | "getCode"> });
  await hre.network.provider.request({ method: "hardhat_reset", params: [{ forking: { jsonRpcUrl: options.url, blockNumber: Number(block) } }] });
  // One local block on top: "latest" is then the fork's own, whatever the remote chain's rules.
  await hre.network.provider.request({ method: "evm_mine", params: [] });
  return { url: options.url, block, chainFile, remote };
}
