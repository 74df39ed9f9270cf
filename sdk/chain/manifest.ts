import { existsSync, readFileSync, writeFileSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join } from "node:path";
import { z } from "zod";
import { getAddress, isAddress, type Address, type Hex } from "viem";

const address = z
  .string()
  .refine((value) => isAddress(value, { strict: false }), "expected a 20-byte hex address")
  .transform((value) => getAddress(value));
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "expected a 32-byte hex hash");

/** Schema of `deployments/<chainId>.json`, the record of what the deploy flow put on a chain. */
export const deploymentManifestSchema = z.object({
  chainId: z.number().int().positive(),
  deployBlock: z.number().int().nonnegative(),
  deployBlockHash: hash,
  contracts: z.object({
    routerRegistry: address,
    permit2: address,
    weth: address,
    uniswapV2Factory: address,
    allowanceHolder: address,
    takerSwapRouter: address,
    gaslessSwapRouter: address,
    propAmmAllowlist: address.optional(),
  }),
  tokens: z.array(
    z.object({ symbol: z.string().min(1), name: z.string(), address, decimals: z.number().int().min(0).max(255) }),
  ),
  pools: z.array(
    z.object({
      address,
      token0: address,
      token1: address,
      source: z.literal("uniswap-v2"),
      feeBps: z.number().int().min(0).max(9999),
    }),
  ),
  devnet: z.object({ smartWallet: address, smartWalletOwner: address, plainToken: address }).optional(),
  propAmms: z.array(z.object({ name: z.string().min(1), address, token0: address, token1: address })).optional(),
});

export type ManifestToken = { symbol: string; name: string; address: Address; decimals: number };
/** A propAMM the deploy flow put on the allowlist; token0/token1 are its configured order (IPropAmm). */
export type ManifestPropAmm = { name: string; address: Address; token0: Address; token1: Address };
export type ManifestPool = { address: Address; token0: Address; token1: Address; source: "uniswap-v2"; feeBps: number };

/**
 * What the deploy flow put on a chain. `takerSwapRouter` and `gaslessSwapRouter` are the routers
 * deployed with it; after a migration the registry, not the manifest, names the active ones.
 */
export type DeploymentManifest = {
  chainId: number;
  deployBlock: number;
  deployBlockHash: Hex;
  contracts: {
    routerRegistry: Address;
    permit2: Address;
    weth: Address;
    uniswapV2Factory: Address;
    allowanceHolder: Address;
    takerSwapRouter: Address;
    gaslessSwapRouter: Address;
    /** The propAMMs routers may call (PropAmmAllowlist); absent on chains deployed before propAMMs. */
    propAmmAllowlist?: Address | undefined;
  };
  tokens: ManifestToken[];
  pools: ManifestPool[];
  /** Devnet only: an ERC-1271 smart wallet (owned by dev account #12) and a token without EIP-2612 (docs/integrators/gasless.md). */
  devnet?: { smartWallet: Address; smartWalletOwner: Address; plainToken: Address } | undefined;
  /** The propAMMs deployed with the chain (the allowlist, not the manifest, says which routers may call). */
  propAmms?: ManifestPropAmm[] | undefined;
};

/** Where the manifest of `chainId` lives inside `directory`. */
export function manifestPath(directory: string, chainId: number): string {
  return join(directory, `${chainId}.json`);
}

/**
 * What to do when a chain has no deployment manifest. Only the devnet deploys itself for now (a
 * command that deploys to other chains is planned); any other chain's manifest is pointed at.
 */
export function missingManifestAdvice(setting = "DEPLOYMENTS_DIR"): string {
  return `start the devnet with \`npm start\` (it deploys the contracts and writes the manifest), or point ${setting} at the folder holding the manifest of contracts deployed on this chain`;
}

/** Reads and validates a manifest; throws with the offending field when the file is malformed, and with what to do when it is missing. */
export function readManifest(path: string): DeploymentManifest {
  if (!existsSync(path)) throw new Error(`no deployment manifest at ${path}: ${missingManifestAdvice()}`);
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
