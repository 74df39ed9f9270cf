import { z } from "zod";
import { booleanFlag } from "../config/booleanFlag";
import { SignerChoiceError } from "../errors/keystore";

/**
 * The signer flags every signing CLI takes, as `node:util` parseArgs options: spread them into a
 * command's own options, then pass the parsed values through `cliSignerOptionsOf`.
 */
export const CLI_SIGNER_ARGS = {
  keystore: { type: "string" },
  "keystore-dir": { type: "string" },
  "password-file": { type: "string" },
  "unsafe-private-key": { type: "boolean" },
} as const;

/** One usage line for the flags above, for each CLI's help. */
export const CLI_SIGNER_USAGE =
  "signer: --keystore <file|name> [--keystore-dir <dir>] [--password-file <file>] (the password is prompted for, hidden, without a file), or --unsafe-private-key (the raw key in OPERATOR_PRIVATE_KEY; never in production)";

export type CliSignerOptions = Readonly<{ keystore?: string; keystoreDir?: string; passwordFile?: string; unsafePrivateKey?: boolean }>;

export function cliSignerOptionsOf(values: { keystore?: string | boolean; "keystore-dir"?: string | boolean; "password-file"?: string | boolean; "unsafe-private-key"?: string | boolean }): CliSignerOptions {
  const text = (value: string | boolean | undefined) => (typeof value === "string" ? value : undefined);
  return { keystore: text(values.keystore), keystoreDir: text(values["keystore-dir"]), passwordFile: text(values["password-file"]), unsafePrivateKey: values["unsafe-private-key"] === true };
}

const optionalText = z
  .string()
  .trim()
  .transform((value) => (value === "" ? undefined : value))
  .optional();

/**
 * The environment's share of the signer choice, parsed once: each variable is the twin of a flag,
 * which wins when both are given.
 */
export const signerEnvironmentSchema = z.object({
  /** A keystore (path or name) to sign with: the twin of `--keystore`. */
  OPERATOR_KEYSTORE: optionalText,
  /** The folder keystore names are looked up in: the twin of `--keystore-dir` (default ~/.foundry/keystores, Foundry's). */
  KEYSTORE_DIR: optionalText,
  /** A file holding the keystore's password (one trailing newline ignored): the twin of `--password-file`. */
  KEYSTORE_PASSWORD_FILE: optionalText,
  /** A raw private key (0x + 64 hex digits); used only with `--unsafe-private-key` or ALLOW_UNSAFE_PRIVATE_KEY. */
  OPERATOR_PRIVATE_KEY: optionalText,
  /** `true` allows OPERATOR_PRIVATE_KEY without the flag (scripts and tests on the devnet): the twin of `--unsafe-private-key`. */
  ALLOW_UNSAFE_PRIVATE_KEY: z.preprocess((value) => (typeof value === "string" && value.trim() === "" ? undefined : value), booleanFlag.optional()),
  /** `production` refuses raw keys altogether. */
  NODE_ENV: optionalText,
});

export type SignerEnvironment = z.output<typeof signerEnvironmentSchema>;

/** The signer variables of `env`; a SignerChoiceError names an invalid one, never its value (it may be a key). */
export function parseSignerEnvironment(env: NodeJS.ProcessEnv): SignerEnvironment {
  const parsed = signerEnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SignerChoiceError(`environment variable ${issue.path.join(".")} is invalid`, "ALLOW_UNSAFE_PRIVATE_KEY takes true/false/1/0.");
  }
  return parsed.data;
}

/** Whether flags or environment choose a signer at all (a CLI may otherwise fall back to a node's unlocked account). */
export function cliSignerChosen(options: CliSignerOptions, env: SignerEnvironment): boolean {
  return options.keystore !== undefined || options.unsafePrivateKey === true || env.OPERATOR_KEYSTORE !== undefined || env.ALLOW_UNSAFE_PRIVATE_KEY === true || env.OPERATOR_PRIVATE_KEY !== undefined;
}
