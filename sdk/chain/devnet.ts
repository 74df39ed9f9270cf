import { defineChain } from "viem";

/** Chain id of the project's local devnet (0x1237). */
export const DEVNET_CHAIN_ID = 4663;

/** Default JSON-RPC address of the devnet started by `npm start`. */
export const DEVNET_DEFAULT_HOST = "127.0.0.1";
export const DEVNET_DEFAULT_RPC_PORT = 8545;
/** Default port of the integrator API started by `npm start` (and `npm run api`). */
export const DEVNET_DEFAULT_API_PORT = 8080;

/** The settings that name a chain's JSON-RPC endpoint, as every script and CLI of this project reads them. */
export type RpcEnvironment = Readonly<{ RPC_URL?: string; DEVNET_HOST?: string; DEVNET_PORT?: string }>;

/**
 * The JSON-RPC URL every tool uses: `RPC_URL` when set, else the devnet `npm start` runs with the
 * same environment (`DEVNET_HOST`, `DEVNET_PORT`; a wildcard bind address is reached on loopback).
 */
export function devnetRpcUrl(env: RpcEnvironment): string {
  const explicit = env.RPC_URL?.trim();
  if (explicit) return explicit;
  return loopbackUrl(env.DEVNET_HOST, env.DEVNET_PORT, DEVNET_DEFAULT_RPC_PORT);
}

/** The settings that name the integrator API's URL, as the CLI and the examples read them. */
export type ApiEnvironment = Readonly<{ SWAP_API_URL?: string; API_HOST?: string; API_PORT?: string }>;

/**
 * The API URL every tool uses: `SWAP_API_URL` when set, else the API `npm start` (or `npm run api`)
 * serves with the same environment (`API_HOST`, `API_PORT`; default http://127.0.0.1:8080).
 */
export function devnetApiUrl(env: ApiEnvironment): string {
  const explicit = env.SWAP_API_URL?.trim();
  if (explicit) return explicit.replace(/\/+$/, "");
  return loopbackUrl(env.API_HOST, env.API_PORT, DEVNET_DEFAULT_API_PORT);
}

/** http://host:port for a server bound to `host`; a wildcard bind address is reached on loopback. */
function loopbackUrl(hostSetting: string | undefined, portSetting: string | undefined, defaultPort: number): string {
  const host = hostSetting?.trim() || DEVNET_DEFAULT_HOST;
  const reachable = host === "0.0.0.0" || host === "::" ? DEVNET_DEFAULT_HOST : host;
  const port = portSetting?.trim() || String(defaultPort);
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
