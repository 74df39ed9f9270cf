import { existsSync } from "node:fs";
import { createPublicClient, defineChain, http, type PublicClient, type Transport } from "viem";
import { observedTransport, type RpcObserver } from "../../sdk/observability/observedTransport";
import { manifestPath, missingManifestAdvice, readManifest, type DeploymentManifest } from "../../sdk";
import type { ApiConfig } from "../config";
import { createServedChains, type ChainSource, type ServedChains, type ServedChainsDependencies } from "./servedChains";

/** Where one served chain is reached and described. */
export type ChainEndpoint = Readonly<{ chainId: number; rpcUrl: string; manifestPath: string }>;

/** The default chain (`CHAIN_ID`, `RPC_URL`, `<DEPLOYMENTS_DIR>/<CHAIN_ID>.json`) first, then `API_CHAINS`. */
export function servedChainEndpoints(config: Pick<ApiConfig, "chainId" | "rpcUrl" | "deploymentsDir" | "additionalChains">): ChainEndpoint[] {
  return [{ chainId: config.chainId, rpcUrl: config.rpcUrl, manifestPath: manifestPath(config.deploymentsDir, config.chainId) }, ...config.additionalChains];
}

/**
 * A client for quote-time reads of one chain. JSON-RPC batching (`batch: true`) turns the concurrent
 * reads of one request into one HTTP round trip; the devnet has no Multicall3 to do it on chain.
 * One retry only: a quote should fail fast rather than wait out a dead node.
 */
export function createChainClient(chainId: number, rpcUrl: string, transport?: Transport, observe?: RpcObserver): PublicClient {
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const base = transport ?? http(rpcUrl, { batch: true, retryCount: 1 });
  return createPublicClient({ chain, transport: observe === undefined ? base : observedTransport(base, observe) });
}

/** Reads a served chain's manifest, with a start-up error that says what to do when it is missing. */
export function readChainManifest(endpoint: ChainEndpoint): DeploymentManifest {
  if (!existsSync(endpoint.manifestPath)) {
    throw new Error(
      `no deployment manifest for chain ${endpoint.chainId} at ${endpoint.manifestPath}: ${missingManifestAdvice("DEPLOYMENTS_DIR (the default chain) or API_CHAINS' manifest (the others)")}`,
    );
  }
  return readManifest(endpoint.manifestPath);
}

/**
 * Every configured chain with its manifest and a batching HTTP client, ready to serve. Start-up
 * fails when a manifest is missing or describes another chain; the chains' RPCs are not contacted
 * here, so the API starts while a node is still coming up. `transports` replaces the HTTP client
 * of a chain that runs in this very process (the devnet), which skips a JSON-RPC round trip over
 * loopback on every quote.
 */
export async function loadChains(
  config: ApiConfig,
  deps: Omit<ServedChainsDependencies, "config">,
  transports: ReadonlyMap<number, Transport> = new Map(),
  /** Told of every chain RPC request (metrics). */
  observe?: RpcObserver,
): Promise<ServedChains> {
  const sources: ChainSource[] = servedChainEndpoints(config).map((endpoint) => ({
    chainId: endpoint.chainId,
    client: createChainClient(endpoint.chainId, endpoint.rpcUrl, transports.get(endpoint.chainId), observe),
    manifest: readChainManifest(endpoint),
    manifestPath: endpoint.manifestPath,
  }));
  return createServedChains(sources, { ...deps, config });
}
