import { defineChain } from "viem";

/** Chain id of the project's local devnet (0x1237). */
export const DEVNET_CHAIN_ID = 4663;

/** Default JSON-RPC address of the devnet started by `npm start`. */
export const DEVNET_DEFAULT_HOST = "127.0.0.1";
export const DEVNET_DEFAULT_RPC_PORT = 8545;

/** The settings that name a chain's JSON-RPC endpoint, as every script and CLI of this project reads them. */
export type RpcEnvironment = Readonly<{ RPC_URL?: string; DEVNET_HOST?: string; DEVNET_PORT?: string }>;

/**
 * The JSON-RPC URL every tool uses: `RPC_URL` when set, else the devnet `npm start` runs with the
 * same environment (`DEVNET_HOST`, `DEVNET_PORT`; a wildcard bind address is reached on loopback).
 */
export function devnetRpcUrl(env: RpcEnvironment): string {
  const explicit = env.RPC_URL?.trim();
  if (explicit) return explicit;
  const host = env.DEVNET_HOST?.trim() || DEVNET_DEFAULT_HOST;
  const reachable = host === "0.0.0.0" || host === "::" ? DEVNET_DEFAULT_HOST : host;
  const port = env.DEVNET_PORT?.trim() || String(DEVNET_DEFAULT_RPC_PORT);
  return `http://${reachable.includes(":") ? `[${reachable}]` : reachable}:${port}`;
}

/** The devnet as a viem chain, for clients built against `npm start`. */
export const devnetChain = defineChain({
  id: DEVNET_CHAIN_ID,
  name: "Token Swap Devnet",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [`http://${DEVNET_DEFAULT_HOST}:${DEVNET_DEFAULT_RPC_PORT}`] } },
  testnet: true,
});
