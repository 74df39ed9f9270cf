import type { LocalAccount } from "viem";
import { resolveCliSigner, type CliSignerOptions } from "../../sdk";

/**
 * The account `npm run deploy` signs with: the same signer choice as every signing CLI
 * (`--keystore <file|name> [--keystore-dir <dir>] [--password-file <file>]`, or `--unsafe-private-key`
 * with OPERATOR_PRIVATE_KEY, refused when NODE_ENV=production; docs/operators/keys.md). Warnings go to
 * stderr, never a key.
 */
export async function deploySigner(options: CliSignerOptions & Readonly<{ env: NodeJS.ProcessEnv }>): Promise<LocalAccount> {
  return resolveCliSigner({ ...options, warn: (line) => process.stderr.write(`${line}\n`) });
}
