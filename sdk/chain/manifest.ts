import { readFileSync, writeFileSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { getAddress, type Address, type Hex } from "viem";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "expected a 20-byte hex address")
  .transform((value) => getAddress(value));
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex hash");

/** Schema of `deployments/<chainId>.json`, the record of what the deploy flow put on a chain. */
export const deploymentManifestSchema = z.object({
  chainId: z.number().int().positive(),
  deployBlock: z.number().int().nonnegative(),
  deployBlockHash: hash,
  contracts: z.object({
    routerRegistry: address,
  }),
});

export type DeploymentManifest = {
  chainId: number;
  deployBlock: number;
  deployBlockHash: Hex;
  contracts: { routerRegistry: Address };
};

/** Where the manifest of `chainId` lives inside `directory`. */
export function manifestPath(directory: string, chainId: number): string {
  return join(directory, `${chainId}.json`);
}

/** Reads and validates a manifest; throws with the offending field when the file is malformed. */
export function readManifest(path: string): DeploymentManifest {
  const parsed = deploymentManifestSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`deployment manifest ${path} is invalid at ${issue?.path.join(".") ?? "?"}: ${issue?.message ?? ""}`);
  }
  return parsed.data as DeploymentManifest;
}

/** Writes a manifest atomically (temp file + rename), so a reader never sees half a file. */
export function writeManifest(path: string, manifest: DeploymentManifest): void {
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(temp, path);
}
