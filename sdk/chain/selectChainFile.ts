import type { PublicClient } from "viem";
import { ChainFileError, chainFilePath, externalAddressesOf, listChainFiles, readChainFile, type ChainFile } from "./chainFile";

export type SelectChainFileParameters = Readonly<{
  /** The folder holding `<name>.json` chain files (the repository's `chains/`). */
  directory: string;
  /** The chain the file must describe: its id is asked, and for an id alone its code is looked at. */
  client: Pick<PublicClient, "getChainId" | "getCode">;
}>;

/**
 * Whether every external address of `file` that must pre-exist has code on the chain. The
 * deterministic deployer is left out: a deploy puts it there when the chain lacks it.
 */
export async function chainFileMatchesChain(file: ChainFile, client: Pick<PublicClient, "getCode">): Promise<boolean> {
  const addresses = externalAddressesOf(file).filter(({ field }) => field !== "deterministicDeployer.address");
  if (addresses.some(({ address }) => address === null)) return false;
  const codes = await Promise.all(addresses.map(({ address }) => client.getCode({ address: address! })));
  return codes.every((code) => code !== undefined && code !== "0x");
}

/**
 * The chain file for `reference`: a name (`devnet`) picks `chains/<name>.json`; a chain id alone
 * (`4663`, which several files may share) picks the one file with that id whose external addresses all
 * have code on the chain. Either way the chain at `client` must have the file's chain id.
 */
export async function selectChainFile(reference: string, { directory, client }: SelectChainFileParameters): Promise<ChainFile> {
  const chainId = await client.getChainId();
  let file: ChainFile;
  if (/^[0-9]+$/.test(reference)) {
    const id = Number(reference);
    if (id !== chainId) throw new ChainFileError(`--chain ${reference} names chain id ${id}, but the RPC serves chain ${chainId}: point --rpc at chain ${id}`);
    const candidates = listChainFiles(directory).filter((candidate) => candidate.chainId === id);
    if (candidates.length === 0) throw new ChainFileError(`no chain file in ${directory} has chain id ${id}: write chains/<name>.json for it`);
    const matching: ChainFile[] = [];
    for (const candidate of candidates) if (await chainFileMatchesChain(candidate, client)) matching.push(candidate);
    const names = candidates.map((candidate) => candidate.name).join(", ");
    if (matching.length === 0) throw new ChainFileError(`none of the chain files with id ${id} (${names}) matches the chain (an address is unknown or has no code): name one with --chain <name> to see which field`);
    if (matching.length > 1) throw new ChainFileError(`several chain files with id ${id} match the chain (${matching.map((candidate) => candidate.name).join(", ")}): name one with --chain <name>`);
    file = matching[0]!;
  } else {
    file = readChainFile(chainFilePath(directory, reference));
    if (file.chainId !== chainId) throw new ChainFileError(`chain file ${file.name} is for chain id ${file.chainId}, but the RPC serves chain ${chainId} (field chainId): point --rpc at the right chain`);
  }
  return file;
}
