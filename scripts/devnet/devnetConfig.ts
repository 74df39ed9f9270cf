import { resolve } from "node:path";
import { z } from "zod";
import { DEVNET_DEFAULT_HOST, DEVNET_DEFAULT_RPC_PORT } from "../../sdk/chain/devnet";

const schema = z.object({
  DEVNET_HOST: z.string().min(1).default(DEVNET_DEFAULT_HOST),
  DEVNET_PORT: z.coerce.number().int().min(0).max(65535).default(DEVNET_DEFAULT_RPC_PORT),
  DEPLOYMENTS_DIR: z.string().min(1).default("deployments"),
});

export type DevnetConfig = {
  /** Interface the JSON-RPC server binds to. `DEVNET_HOST`, default 127.0.0.1. */
  host: string;
  /** JSON-RPC port; 0 picks a free one. `DEVNET_PORT`, default 8545. */
  port: number;
  /** Folder of the deployment manifests. `DEPLOYMENTS_DIR`, default ./deployments. */
  deploymentsDir: string;
};

/** Reads the devnet's settings from the environment once; an invalid value stops the start. */
export function loadDevnetConfig(env: NodeJS.ProcessEnv = process.env): DevnetConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`invalid ${issue?.path.join(".") ?? "environment"}: ${issue?.message ?? ""}`);
  }
  return {
    host: parsed.data.DEVNET_HOST,
    port: parsed.data.DEVNET_PORT,
    deploymentsDir: resolve(parsed.data.DEPLOYMENTS_DIR),
  };
}
