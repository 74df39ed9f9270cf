import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Abi, Hex } from "viem";

/** A byte range of runtime code that the constructor fills (an `immutable`). */
export type ImmutableRange = Readonly<{ start: number; length: number }>;

/**
 * One contract of our Hardhat build, read from `artifacts/` without starting Hardhat: its ABI and
 * code, the ranges of its runtime code that hold immutables, and the compiler's standard-JSON input
 * and version (for source verification on an explorer).
 */
export type BuildArtifact = Readonly<{
  contractName: string;
  sourceName: string;
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
  immutableRanges: readonly ImmutableRange[];
  solcLongVersion: string;
  standardJsonInput: unknown;
}>;

type HardhatArtifact = { contractName: string; sourceName: string; abi: Abi; bytecode: Hex; deployedBytecode: Hex };
type BuildInfo = {
  solcLongVersion: string;
  input: unknown;
  output: { contracts: Record<string, Record<string, { evm: { deployedBytecode: { immutableReferences?: Record<string, ImmutableRange[]> } } }>> };
};

/** The repository's artifacts folder (`npm run build` fills it). */
export const ARTIFACTS_DIR = resolve(__dirname, "../../artifacts");

/** Reads `sourceName:contractName` (e.g. `contracts/registry/RouterRegistry.sol:RouterRegistry`) from `artifactsDir`. */
export function readBuildArtifact(fullyQualifiedName: string, artifactsDir = ARTIFACTS_DIR): BuildArtifact {
  const [sourceName, contractName] = fullyQualifiedName.split(":") as [string, string];
  const file = join(artifactsDir, sourceName, `${contractName}.json`);
  if (!existsSync(file)) throw new Error(`no build artifact for ${fullyQualifiedName} at ${file}: run \`npm run build\` first`);
  const artifact = JSON.parse(readFileSync(file, "utf8")) as HardhatArtifact;
  const debug = JSON.parse(readFileSync(file.replace(/\.json$/, ".dbg.json"), "utf8")) as { buildInfo: string };
  const buildInfo = JSON.parse(readFileSync(resolve(dirname(file), debug.buildInfo), "utf8")) as BuildInfo;
  const references = buildInfo.output.contracts[sourceName]?.[contractName]?.evm.deployedBytecode.immutableReferences ?? {};
  return {
    contractName,
    sourceName,
    abi: artifact.abi,
    bytecode: artifact.bytecode,
    deployedBytecode: artifact.deployedBytecode,
    immutableRanges: Object.values(references).flat(),
    solcLongVersion: buildInfo.solcLongVersion,
    standardJsonInput: buildInfo.input,
  };
}

/**
 * Whether `onChain` is `artifact`'s runtime code: equal byte for byte outside the immutable ranges
 * (which hold constructor arguments). Returns the first differing byte offset, or undefined.
 */
export function runtimeCodeMismatch(artifact: Pick<BuildArtifact, "deployedBytecode" | "immutableRanges">, onChain: Hex): number | undefined {
  const built = Buffer.from(artifact.deployedBytecode.slice(2), "hex");
  const deployed = Buffer.from(onChain.slice(2), "hex");
  for (const { start, length } of artifact.immutableRanges) {
    if (start + length <= built.length) built.fill(0, start, start + length);
    if (start + length <= deployed.length) deployed.fill(0, start, start + length);
  }
  if (built.length !== deployed.length) return Math.min(built.length, deployed.length);
  const offset = built.findIndex((byte, index) => byte !== deployed[index]);
  return offset === -1 ? undefined : offset;
}
