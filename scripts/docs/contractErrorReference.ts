import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { keccak256, slice, toBytes } from "viem";
import { markdownCell } from "./markdownCell";

/** The folders of production contracts whose custom errors integrators and operators meet on chain. */
const PRODUCTION_FOLDERS = ["registry", "routers", "allowance"] as const;

type AbiParameter = { type: string; components?: readonly AbiParameter[] };
type AbiItem = { type: string; name?: string; inputs?: readonly AbiParameter[] };
type Artifact = { contractName: string; sourceName: string; abi: readonly AbiItem[]; bytecode: string };
type NatspecEntries = Record<string, { notice?: string; details?: string }[]>;

/** A parameter's canonical type as the ABI signature spells it (tuples as `(a,b)`, with their array suffix). */
function canonicalType(parameter: AbiParameter): string {
  if (!parameter.type.startsWith("tuple")) return parameter.type;
  return `(${(parameter.components ?? []).map(canonicalType).join(",")})${parameter.type.slice("tuple".length)}`;
}

export type ContractError = Readonly<{ signature: string; selector: string; raisedBy: readonly string[]; meaning: string }>;

function artifactsIn(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return artifactsIn(path);
    return entry.name.endsWith(".json") && !entry.name.endsWith(".dbg.json") ? [path] : [];
  });
}

/**
 * Every custom error of the deployable contracts in contracts/registry, routers and allowance, from
 * the compiled artifacts: its signature and selector, the contracts whose ABI has it, and its natspec
 * (`@notice`, else `@dev`) from the compiler's metadata. Needs compiled contracts (`npx hardhat compile`).
 */
export function contractErrors(root: string): ContractError[] {
  const files = PRODUCTION_FOLDERS.flatMap((folder) => artifactsIn(join(root, "artifacts", "contracts", folder)));
  if (files.length === 0) throw new Error("no compiled contracts under artifacts/contracts: run npx hardhat compile, then npm run docs:reference");
  const buildInfos = new Map<string, { output: { contracts: Record<string, Record<string, { metadata?: string }>> } }>();
  const errors = new Map<string, { raisedBy: Set<string>; meaning: string }>();
  for (const file of files) {
    const artifact = JSON.parse(readFileSync(file, "utf8")) as Artifact;
    if (artifact.bytecode === "0x") continue; // abstract contracts and interfaces are covered by the contracts that inherit them
    const debug = JSON.parse(readFileSync(file.replace(/\.json$/, ".dbg.json"), "utf8")) as { buildInfo: string };
    const buildInfoPath = resolve(dirname(file), debug.buildInfo);
    if (!buildInfos.has(buildInfoPath)) buildInfos.set(buildInfoPath, JSON.parse(readFileSync(buildInfoPath, "utf8")));
    const metadataText = buildInfos.get(buildInfoPath)!.output.contracts[artifact.sourceName]?.[artifact.contractName]?.metadata;
    const metadata = metadataText === undefined ? undefined : (JSON.parse(metadataText) as { output: { userdoc?: { errors?: NatspecEntries }; devdoc?: { errors?: NatspecEntries } } });
    for (const item of artifact.abi) {
      if (item.type !== "error" || item.name === undefined) continue;
      const signature = `${item.name}(${(item.inputs ?? []).map(canonicalType).join(",")})`;
      const entry = errors.get(signature) ?? { raisedBy: new Set<string>(), meaning: "" };
      entry.raisedBy.add(artifact.contractName);
      if (entry.meaning === "") {
        const notice = metadata?.output.userdoc?.errors?.[signature]?.[0]?.notice;
        const details = metadata?.output.devdoc?.errors?.[signature]?.[0]?.details;
        entry.meaning = (notice ?? details ?? "").replace(/\s+/g, " ").trim();
      }
      errors.set(signature, entry);
    }
  }
  return [...errors.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([signature, entry]) => ({ signature, selector: slice(keccak256(toBytes(signature)), 0, 4), raisedBy: [...entry.raisedBy].sort(), meaning: entry.meaning }));
}

export function renderContractErrors(root: string): string[] {
  return [
    "## Contract errors",
    "",
    "The custom errors of the deployed contracts (registry, routers, allowance holder), from the compiled",
    "artifacts: the selector is what a reverted transaction's data starts with, and the meaning is the",
    "error's natspec in `contracts/interfaces/`. Permit2's own errors are Uniswap's.",
    "",
    "| Error | Selector | Raised by | Meaning |",
    "|---|---|---|---|",
    ...contractErrors(root).map((error) => `| \`${error.signature}\` | \`${error.selector}\` | ${error.raisedBy.join(", ")} | ${markdownCell(error.meaning) || "—"} |`),
    "",
  ];
}
