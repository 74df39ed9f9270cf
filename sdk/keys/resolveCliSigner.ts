import { readFileSync, statSync } from "node:fs";
import type { Hex, LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { SignerChoiceError } from "../errors/keystore";
import { parseSignerEnvironment, type CliSignerOptions } from "./cliSignerOptions";
import { decryptKeystore } from "./decryptKeystore";
import { promptHidden } from "./hiddenPrompt";
import { defaultKeystoreDir, findKeystore, readKeystoreFile } from "./keystoreDirectory";

export type ResolveCliSignerParameters = CliSignerOptions &
  Readonly<{
    /** The process environment, parsed here once (default process.env). */
    env?: NodeJS.ProcessEnv;
    /** Asks for a secret without echo; default a hidden prompt on the terminal (stdin/stderr). */
    prompt?: (question: string) => Promise<string>;
    /** Told (on stderr, by the CLIs) when a raw key signs, so the choice is visible; never given the key. */
    warn?: (line: string) => void;
  }>;

/** A password file's content without one trailing newline (as `echo pw > file` leaves it); never logged. */
export function readPasswordFile(file: string): string {
  const size = statSync(file).size;
  if (size > 4096) throw new SignerChoiceError(`password file ${file} is ${size} bytes`, "A password file holds the password only (at most 4 KiB).");
  return readFileSync(file, "utf8").replace(/\r?\n$/, "");
}

/**
 * The account a signing CLI signs with, from its flags and the environment:
 * - `--keystore <file|name>` (or OPERATOR_KEYSTORE): a Web3 Secret Storage keystore, found as a path or
 *   a name in `--keystore-dir` (KEYSTORE_DIR, default ~/.foundry/keystores), decrypted with the password
 *   in `--password-file` (KEYSTORE_PASSWORD_FILE) or typed at a hidden prompt;
 * - `--unsafe-private-key` (or ALLOW_UNSAFE_PRIVATE_KEY=true): the raw key in OPERATOR_PRIVATE_KEY,
 *   refused when NODE_ENV=production (the devnet shares chain id 4663 with the live chain, so the
 *   chain id cannot tell a rehearsal from the real thing).
 * Throws SignerChoiceError (saying what to pass) when neither or both are chosen. No message ever
 * contains the key or the password.
 *
 * @example
 * const account = await resolveCliSigner({ keystore: "deployer", passwordFile: "/run/secrets/pw" });
 */
export async function resolveCliSigner(parameters: ResolveCliSignerParameters): Promise<LocalAccount> {
  const env = parseSignerEnvironment(parameters.env ?? process.env);
  const keystore = parameters.keystore ?? env.OPERATOR_KEYSTORE;
  const unsafe = parameters.unsafePrivateKey === true || env.ALLOW_UNSAFE_PRIVATE_KEY === true;
  if (keystore !== undefined && unsafe) {
    throw new SignerChoiceError("both a keystore and --unsafe-private-key are given", "Choose one: --keystore <file|name> (safe), or --unsafe-private-key with OPERATOR_PRIVATE_KEY.");
  }
  if (keystore !== undefined) {
    const file = findKeystore(keystore, parameters.keystoreDir ?? env.KEYSTORE_DIR ?? defaultKeystoreDir({}));
    // Read the file first, so a malformed one is refused before the password is asked for.
    const parsed = readKeystoreFile(file);
    const passwordFile = parameters.passwordFile ?? env.KEYSTORE_PASSWORD_FILE;
    const password = passwordFile !== undefined ? readPasswordFile(passwordFile) : await (parameters.prompt ?? promptHidden)(`password for ${file}: `);
    const { privateKey } = await decryptKeystore(parsed, password, file);
    return privateKeyToAccount(privateKey);
  }
  if (unsafe) {
    if (env.NODE_ENV === "production") {
      throw new SignerChoiceError("a raw private key is refused when NODE_ENV=production", "Sign from an encrypted keystore: `npm run keystore -- import <name>`, then --keystore <name>.");
    }
    const raw = env.OPERATOR_PRIVATE_KEY;
    if (raw === undefined) throw new SignerChoiceError("--unsafe-private-key needs OPERATOR_PRIVATE_KEY", "Set OPERATOR_PRIVATE_KEY to 0x followed by 64 hex digits (never on the command line: other users can read it).");
    if (!/^0x[0-9a-fA-F]{64}$/.test(raw)) throw new SignerChoiceError("OPERATOR_PRIVATE_KEY is not a private key", "It must be 0x followed by 64 hex digits.");
    let account: LocalAccount;
    try {
      account = privateKeyToAccount(raw as Hex);
    } catch {
      throw new SignerChoiceError("OPERATOR_PRIVATE_KEY is not a valid secp256k1 private key", "It must be a nonzero number below the curve order.");
    }
    parameters.warn?.(`signing as ${account.address} with the raw key in OPERATOR_PRIVATE_KEY (unsafe: prefer --keystore)`);
    return account;
  }
  if (env.OPERATOR_PRIVATE_KEY !== undefined) {
    throw new SignerChoiceError(
      "OPERATOR_PRIVATE_KEY is set, but a raw key signs only with --unsafe-private-key (or ALLOW_UNSAFE_PRIVATE_KEY=true)",
      "Prefer an encrypted keystore: `npm run keystore -- import <name>`, then --keystore <name>; or pass --unsafe-private-key on a devnet.",
    );
  }
  throw new SignerChoiceError("no signer chosen", "Pass --keystore <file|name> [--keystore-dir <dir>] [--password-file <file>], or --unsafe-private-key with OPERATOR_PRIVATE_KEY.");
}
