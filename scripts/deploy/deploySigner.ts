import type { Hex, LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/**
 * The signer flags of `npm run deploy`, the same as every signing CLI's (issue 31's keystore work):
 * `--keystore <file|name> [--keystore-dir <dir>] [--password-file <file>]`, or `--unsafe-private-key`
 * with the raw key in OPERATOR_PRIVATE_KEY.
 */
export type DeploySignerOptions = Readonly<{ keystore?: string; keystoreDir?: string; passwordFile?: string; unsafePrivateKey?: boolean; env: NodeJS.ProcessEnv }>;

/** The signer could not be chosen: the message says what to pass, never a key. */
export class DeploySignerError extends Error {
  override readonly name = "DeploySignerError";
}

/**
 * The account the deploy signs with. The one place the deploy chooses its signer: when the encrypted
 * keystores land, this body becomes a call of `resolveCliSigner(options)` with the same options.
 * Until then only the explicit unsafe path exists: `--unsafe-private-key` (or
 * ALLOW_UNSAFE_PRIVATE_KEY=true) with OPERATOR_PRIVATE_KEY, refused when NODE_ENV=production.
 */
export async function deploySigner(options: DeploySignerOptions): Promise<LocalAccount> {
  const { env } = options;
  if (options.keystore !== undefined || env.OPERATOR_KEYSTORE?.trim()) {
    throw new DeploySignerError("keystore signing is not wired into the deploy yet: use --unsafe-private-key with OPERATOR_PRIVATE_KEY on a test chain for now");
  }
  const unsafe = options.unsafePrivateKey === true || /^(true|1)$/i.test(env.ALLOW_UNSAFE_PRIVATE_KEY?.trim() ?? "");
  if (!unsafe) throw new DeploySignerError("no signer: pass --keystore <file|name> (encrypted), or --unsafe-private-key with the raw key in OPERATOR_PRIVATE_KEY");
  if (env.NODE_ENV?.trim() === "production") throw new DeploySignerError("a raw private key is refused when NODE_ENV=production: sign from an encrypted keystore (--keystore)");
  const key = env.OPERATOR_PRIVATE_KEY?.trim();
  // The message names the variable, never its value.
  if (key === undefined || !/^0x[0-9a-fA-F]{64}$/.test(key)) throw new DeploySignerError("--unsafe-private-key needs OPERATOR_PRIVATE_KEY set to 0x and 64 hex digits");
  return privateKeyToAccount(key as Hex);
}
