import { resolve } from "node:path";
import { z } from "zod";
import { portNumber } from "../../sdk/config/portNumber";
import { environmentSchemaOf, readSettings, setting } from "../../sdk/config/settingDeclaration";
import { DEVNET_DEFAULT_API_PORT, DEVNET_DEFAULT_HOST, DEVNET_DEFAULT_RPC_PORT } from "../../sdk/chain/devnet";


/**
 * `npm start`'s environment, declared once: each variable's parser (with its default) and its meaning.
 * `loadDevnetConfig` parses them, `npm run docs:reference` lists them (docs/reference/environment.md).
 */
export const devnetSettings = {
  DEVNET_HOST: setting(z.string().min(1).default(DEVNET_DEFAULT_HOST), "Interface the JSON-RPC server binds to."),
  DEVNET_PORT: setting(portNumber.default(DEVNET_DEFAULT_RPC_PORT), "JSON-RPC port; 0 picks a free one."),
  DEPLOYMENTS_DIR: setting(z.string().min(1).default("deployments"), "Folder of the deployment manifests."),
  // The API's and the relayer's own variables (api/config.ts, relayer/config.ts), read here only to
  // check every port before anything is deployed.
  API_HOST: setting(z.string().min(1).default(DEVNET_DEFAULT_HOST), "The API's interface, checked free before anything is deployed (api/config.ts reads it)."),
  API_PORT: setting(portNumber.default(DEVNET_DEFAULT_API_PORT), "The API's port, checked free before anything is deployed."),
  RELAYER_HOST: setting(z.string().min(1).default(DEVNET_DEFAULT_HOST), "The relayer's interface, checked free before anything is deployed (relayer/config.ts reads it)."),
  RELAYER_PORT: setting(portNumber.default(8090), "The relayer's port, checked free before anything is deployed."),
  DEVNET_RELAYER: setting(
    z.enum(["on", "off"], { error: 'must be "on" or "off"' }).default("on"),
    "Whether npm start runs (and restarts) the relayer; `off` leaves it to be run by hand.",
  ),
  RELAYER_INTERNAL_TOKEN: setting(
    z.string().trim().min(16, "must be at least 16 characters (a shared secret with the API)").optional(),
    "The API's secret for the relayer; unset: a random one per start.",
  ),
  FORK_URL: setting(z.string().trim().url("must be the JSON-RPC URL of the chain to fork (http://…)").optional(), "The JSON-RPC URL of the chain to fork: npm start runs as a fork of it; unset: the devnet builds its chain from nothing."),
  FORK_BLOCK: setting(z.coerce.number().int().nonnegative().optional(), "The block to fork at; unset: the chain's head."),
  FORK_CHAIN: setting(
    z.string().regex(/^[a-z0-9][a-z0-9-]{0,47}$/, "must name a chain file (its name without .json)").optional(),
    "The chain file to use, by name; unset: the one whose addresses all have code at the fork block.",
  ),
  FORK_LOG_RANGE: setting(z.coerce.number().int().min(1).max(1_000_000).default(10_000), "Blocks per eth_getLogs while a fork's pools are looked for from each venue's start block."),
  CHAINS_DIR: setting(z.string().min(1).optional(), "Folder of the chain files a fork is matched against; unset: the repository's chains/."),
};

/** `npm start`'s environment as one zod object (the settings' parsers). */
export const devnetEnvironmentSchema = environmentSchemaOf(devnetSettings);

/** The devnet's settings as npm start takes them; what each variable means: `devnetSettings`. */
export type DevnetConfig = {
  /** DEVNET_HOST. */
  host: string;
  /** DEVNET_PORT. */
  port: number;
  /** DEPLOYMENTS_DIR, resolved. */
  deploymentsDir: string;
  /** API_HOST, API_PORT. */
  api: { host: string; port: number };
  /** RELAYER_HOST, RELAYER_PORT. */
  relayer: { host: string; port: number };
  /** DEVNET_RELAYER is on. */
  startRelayer: boolean;
  /** RELAYER_INTERNAL_TOKEN. */
  relayerToken: string | undefined;
  /** Fork mode: FORK_URL is set. */
  fork:
    | {
        /** FORK_URL. */
        url: string;
        /** FORK_BLOCK. */
        block: bigint | undefined;
        /** FORK_CHAIN. */
        chainName: string | undefined;
        /** CHAINS_DIR, resolved (default the repository's chains/). */
        chainsDir: string;
        /** FORK_LOG_RANGE. */
        logRange: bigint;
      }
    | undefined;
};

/** Reads the devnet's settings from the environment once; invalid values stop the start, every one named. */
export function loadDevnetConfig(env: NodeJS.ProcessEnv = process.env): DevnetConfig {
  const values = readSettings(devnetSettings, env);
  return {
    host: values.DEVNET_HOST,
    port: values.DEVNET_PORT,
    deploymentsDir: resolve(values.DEPLOYMENTS_DIR),
    api: { host: values.API_HOST, port: values.API_PORT },
    relayer: { host: values.RELAYER_HOST, port: values.RELAYER_PORT },
    startRelayer: values.DEVNET_RELAYER === "on",
    relayerToken: values.RELAYER_INTERNAL_TOKEN,
    fork:
      values.FORK_URL === undefined
        ? undefined
        : {
            url: values.FORK_URL,
            block: values.FORK_BLOCK === undefined ? undefined : BigInt(values.FORK_BLOCK),
            chainName: values.FORK_CHAIN,
            // The repository's chains/ unless CHAINS_DIR names another folder (relative to where npm start runs).
            chainsDir: values.CHAINS_DIR === undefined ? resolve(__dirname, "../../chains") : resolve(values.CHAINS_DIR),
            logRange: BigInt(values.FORK_LOG_RANGE),
          },
  };
}
