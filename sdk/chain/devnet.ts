import { defineChain } from "viem";

/** Chain id of the project's local devnet (0x1237). */
export const DEVNET_CHAIN_ID = 4663;

/** Default JSON-RPC address of the devnet started by `npm start`. */
export const DEVNET_DEFAULT_HOST = "127.0.0.1";
export const DEVNET_DEFAULT_RPC_PORT = 8545;

/** The devnet as a viem chain, for clients built against `npm start`. */
export const devnetChain = defineChain({
  id: DEVNET_CHAIN_ID,
  name: "Token Swap Devnet",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [`http://${DEVNET_DEFAULT_HOST}:${DEVNET_DEFAULT_RPC_PORT}`] } },
  testnet: true,
});
