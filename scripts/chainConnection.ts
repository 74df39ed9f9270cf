import { resolve } from "node:path";
import { BaseError, createPublicClient, http, type PublicClient } from "viem";
import { existsSync } from "node:fs";
import { devnetRpcUrl, manifestPath, missingManifestAdvice, readManifest, type DeploymentManifest } from "../sdk";

/**
 * Where every script and CLI finds the chain: `RPC_URL` (default: the devnet's own
 * http://DEVNET_HOST:DEVNET_PORT) and `DEPLOYMENTS_DIR` (default deployments). The API reads the same
 * variables (api/config.ts).
 */
export type ChainTarget = Readonly<{ rpcUrl: string; deploymentsDir: string }>;

export function loadChainTarget(env: NodeJS.ProcessEnv = process.env): ChainTarget {
  return { rpcUrl: devnetRpcUrl(env), deploymentsDir: resolve(env.DEPLOYMENTS_DIR?.trim() || "deployments") };
}

/** The chain could not be reached: the message names the URL and what to do. */
export class ChainUnreachableError extends Error {
  override readonly name = "ChainUnreachableError";

  constructor(
    readonly rpcUrl: string,
    reason: string,
  ) {
    super(`cannot reach a chain at ${rpcUrl} (${reason}); start the devnet with npm start, or set RPC_URL (or DEVNET_HOST/DEVNET_PORT) to the chain's JSON-RPC URL`);
  }
}

export type ConnectedChain = Readonly<{ client: PublicClient; chainId: number; rpcUrl: string; manifest: DeploymentManifest; manifestFile: string }>;

/**
 * Connects to the chain at `target.rpcUrl`, asks its id, and reads its manifest from
 * `target.deploymentsDir`. Fails with a message that names the URL or the manifest file it tried.
 */
export async function connectToChain(target: ChainTarget): Promise<ConnectedChain> {
  const client = createPublicClient({ transport: http(target.rpcUrl, { retryCount: 0, timeout: 10_000 }), pollingInterval: 50, cacheTime: 0 });
  let chainId: number;
  try {
    chainId = await client.getChainId();
  } catch (error) {
    throw new ChainUnreachableError(target.rpcUrl, error instanceof BaseError ? error.shortMessage : String(error));
  }
  const manifestFile = manifestPath(target.deploymentsDir, chainId);
  let manifest: DeploymentManifest;
  try {
    manifest = readManifest(manifestFile);
  } catch (error) {
    throw new Error(
      existsSync(manifestFile)
        ? `chain ${chainId} at ${target.rpcUrl} has an unreadable deployment manifest (${error instanceof Error ? error.message : String(error)})`
        : `chain ${chainId} at ${target.rpcUrl} has no deployment manifest at ${manifestFile}: ${missingManifestAdvice()}`,
    );
  }
  // A manifest left by an earlier devnet run names contracts this chain may not have.
  const block = await client.getBlock({ blockNumber: BigInt(manifest.deployBlock) }).catch(() => undefined);
  if (block?.hash !== manifest.deployBlockHash) {
    throw new Error(`${manifestFile} describes another run of chain ${chainId} than the one at ${target.rpcUrl} (a stale manifest): restart the devnet with \`npm start\` (it deploys again), or point DEPLOYMENTS_DIR at this chain's manifest`);
  }
  return { client, chainId, rpcUrl: target.rpcUrl, manifest, manifestFile };
}
