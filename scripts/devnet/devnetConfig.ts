import { resolve } from "node:path";
import { z } from "zod";
import { portNumber } from "../../sdk/config/portNumber";
import { DEVNET_DEFAULT_API_PORT, DEVNET_DEFAULT_HOST, DEVNET_DEFAULT_RPC_PORT } from "../../sdk/chain/devnet";


/** `npm start`'s environment (npm run docs:reference lists it with the DevnetConfig doc comments). */
export const devnetEnvironmentSchema = z.object({
  DEVNET_HOST: z.string().min(1).default(DEVNET_DEFAULT_HOST),
  DEVNET_PORT: portNumber.default(DEVNET_DEFAULT_RPC_PORT),
  DEPLOYMENTS_DIR: z.string().min(1).default("deployments"),
  // The API's and the relayer's own variables (api/config.ts, relayer/config.ts), read here only to
  // check every port before anything is deployed.
  API_HOST: z.string().min(1).default(DEVNET_DEFAULT_HOST),
  API_PORT: portNumber.default(DEVNET_DEFAULT_API_PORT),
  RELAYER_HOST: z.string().min(1).default(DEVNET_DEFAULT_HOST),
  RELAYER_PORT: portNumber.default(8090),
  DEVNET_RELAYER: z.enum(["on", "off"], { error: 'must be "on" or "off"' }).default("on"),
  RELAYER_INTERNAL_TOKEN: z.string().trim().min(16, "must be at least 16 characters (a shared secret with the API)").optional(),
  FORK_URL: z.string().trim().url("must be the JSON-RPC URL of the chain to fork (http://…)").optional(),
  FORK_BLOCK: z.coerce.number().int().nonnegative().optional(),
  FORK_CHAIN: z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, "must name a chain file (its name without .json)").optional(),
  FORK_LOG_RANGE: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  CHAINS_DIR: z.string().min(1).optional(),
});

export type DevnetConfig = {
  /** Interface the JSON-RPC server binds to. `DEVNET_HOST`, default 127.0.0.1. */
  host: string;
  /** JSON-RPC port; 0 picks a free one. `DEVNET_PORT`, default 8545. */
  port: number;
  /** Folder of the deployment manifests. `DEPLOYMENTS_DIR`, default ./deployments. */
  deploymentsDir: string;
  /** The API's interface and port (`API_HOST`, `API_PORT`). */
  api: { host: string; port: number };
  /** The relayer's interface and port (`RELAYER_HOST`, `RELAYER_PORT`). */
  relayer: { host: string; port: number };
  /** Whether npm start runs (and restarts) the relayer; `DEVNET_RELAYER=off` leaves it to be run by hand. */
  startRelayer: boolean;
  /** The API's secret for the relayer, `RELAYER_INTERNAL_TOKEN`; absent: a random one per start. */
  relayerToken: string | undefined;
  /** Fork mode (`FORK_URL` set; absent: the devnet builds its chain from nothing). */
  fork:
    | {
        /** The JSON-RPC URL of the chain to fork, `FORK_URL`: npm start runs as a fork of it. */
        url: string;
        /** The block to fork at, `FORK_BLOCK`; default the chain's head. */
        block: bigint | undefined;
        /** The chain file to use, by name, `FORK_CHAIN`; default the one whose addresses all have code at the fork block. */
        chainName: string | undefined;
        /** Folder of the chain files a fork is matched against, `CHAINS_DIR`; default the repository's chains/. */
        chainsDir: string;
        /** Blocks per eth_getLogs while a fork's pools are looked for from each venue's start block, `FORK_LOG_RANGE`; default 10,000. */
        logRange: bigint;
      }
    | undefined;
};

/** Reads the devnet's settings from the environment once; an invalid value stops the start. */
export function loadDevnetConfig(env: NodeJS.ProcessEnv = process.env): DevnetConfig {
  const parsed = devnetEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? ""}`);
  }
  return {
    host: parsed.data.DEVNET_HOST,
    port: parsed.data.DEVNET_PORT,
    deploymentsDir: resolve(parsed.data.DEPLOYMENTS_DIR),
    api: { host: parsed.data.API_HOST, port: parsed.data.API_PORT },
    relayer: { host: parsed.data.RELAYER_HOST, port: parsed.data.RELAYER_PORT },
    startRelayer: parsed.data.DEVNET_RELAYER === "on",
    relayerToken: parsed.data.RELAYER_INTERNAL_TOKEN,
    fork:
      parsed.data.FORK_URL === undefined
        ? undefined
        : {
            url: parsed.data.FORK_URL,
            block: parsed.data.FORK_BLOCK === undefined ? undefined : BigInt(parsed.data.FORK_BLOCK),
            chainName: parsed.data.FORK_CHAIN,
            // The repository's chains/ unless CHAINS_DIR names another folder (relative to where npm start runs).
            chainsDir: parsed.data.CHAINS_DIR === undefined ? resolve(__dirname, "../../chains") : resolve(parsed.data.CHAINS_DIR),
            logRange: BigInt(parsed.data.FORK_LOG_RANGE),
          },
  };
}
