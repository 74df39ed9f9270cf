/**
 * `npm run keystore -- new | import | list`: the operator's encrypted keys, as Web3 Secret Storage v3
 * files (the format of geth and `cast wallet`), in a folder (default ~/.foundry/keystores, Foundry's;
 * KEYSTORE_DIR or --dir choose another).
 *
 *   new [<name>]     a fresh key, encrypted; prints its address (never the key)
 *   import [<name>]  an existing key, read from a hidden prompt or --private-key-file
 *   list             the folder's keystores: name, address, KDF
 *
 * Passwords come from --password-file (one trailing newline ignored) or a hidden prompt (asked twice
 * when creating). Secrets are never printed: stdout carries names, files and addresses only.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { defaultKeystoreDir, encryptKeystore, listKeystores, promptHidden, readPasswordFile, STANDARD_SCRYPT, writeKeystoreFile } from "../sdk";
import { printTable } from "./textTable";

const USAGE = [
  "usage: npm run keystore -- <command> [options]",
  "  new [<name>]      create a key and save it encrypted; prints its address",
  "  import [<name>]   encrypt an existing key (typed at a hidden prompt, or --private-key-file <file>)",
  "  list              the keystores in the folder",
  "  options: --dir <folder> (default KEYSTORE_DIR, else ~/.foundry/keystores), --password-file <file>, --json",
  "           --scrypt-n <power of two> (default 262144, geth's standard; lower only for throwaway keys)",
  "  a name defaults to geth's UTC--<time>--<address>; sign with it: --keystore <name> on registry, venues, migrate-router",
].join("\n");

export type KeystoreCliIo = Readonly<{
  print: (line: string) => void;
  /** Progress and prompts go to stderr, so `--json` output stays parseable. */
  note: (line: string) => void;
  prompt: (question: string) => Promise<string>;
  env: NodeJS.ProcessEnv;
}>;

/** geth's file name for a new key: UTC--2026-11-27T22-30-00.000Z--<address, lowercase, no 0x>. */
function gethStyleName(address: string, now: Date): string {
  return `UTC--${now.toISOString().replace(/:/g, "-")}--${address.slice(2).toLowerCase()}`;
}

async function newPassword(io: KeystoreCliIo, passwordFile: string | undefined): Promise<string> {
  const password = passwordFile !== undefined ? readPasswordFile(passwordFile) : await io.prompt("new keystore password: ");
  if (password === "") throw new Error("refusing an empty password: it would leave the key unprotected");
  if (passwordFile === undefined && (await io.prompt("repeat the password: ")) !== password) throw new Error("the passwords differ: nothing was written");
  return password;
}

async function importedKey(io: KeystoreCliIo, privateKeyFile: string | undefined): Promise<Hex> {
  const text = (privateKeyFile !== undefined ? readFileSync(privateKeyFile, "utf8") : await io.prompt("private key (hidden): ")).trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? `0x${text}` : text;
  // The message says what is wrong with the key, never what it is.
  if (!/^0x[0-9a-fA-F]{64}$/.test(key)) throw new Error(`the private key${privateKeyFile === undefined ? "" : ` in ${privateKeyFile}`} must be 64 hex digits (0x optional)`);
  try {
    privateKeyToAccount(key as Hex);
  } catch {
    throw new Error("the private key is not a valid secp256k1 key (zero, or not below the curve order)");
  }
  return key as Hex;
}

/** Runs one command and returns the exit code (0 done, 1 failed, 2 usage). */
export async function runKeystoreCommand(args: readonly string[], io: KeystoreCliIo): Promise<number> {
  let positionals: string[];
  let values: { dir?: string; "password-file"?: string; "private-key-file"?: string; json?: boolean; "scrypt-n"?: string };
  try {
    ({ positionals, values } = parseArgs({
      args: [...args],
      options: { dir: { type: "string" }, "password-file": { type: "string" }, "private-key-file": { type: "string" }, json: { type: "boolean" }, "scrypt-n": { type: "string" } },
      allowPositionals: true,
      strict: true,
    }));
  } catch (error) {
    return usage(io, error instanceof Error ? error.message : String(error));
  }
  const [command, name, ...extra] = positionals;
  if (extra.length > 0) return usage(io, `unexpected argument ${extra[0]}`);
  const directory = values.dir ?? defaultKeystoreDir(io.env);

  if (command === "list") {
    if (name !== undefined) return usage(io, `unexpected argument ${name}`);
    const listing = listKeystores(directory);
    if (values.json === true) {
      io.print(JSON.stringify({ directory, keystores: listing.keystores, unreadable: listing.unreadable }, null, 2));
      return 0;
    }
    if (listing.keystores.length === 0) io.print(`no keystores in ${directory}: create one with \`npm run keystore -- new <name> --dir ${directory}\``);
    else {
      io.print(`keystores in ${directory}`);
      printTable(io.print, [["NAME", "ADDRESS", "KDF"], ...listing.keystores.map((entry) => [entry.name, entry.address ?? "(not recorded)", entry.kdf])]);
    }
    for (const file of listing.unreadable) io.note(`skipped ${file.name}: ${file.problem}`);
    return 0;
  }

  if (command === "new" || command === "import") {
    if (command === "new" && values["private-key-file"] !== undefined) return usage(io, "--private-key-file is for import; new creates its own key");
    const scryptN = values["scrypt-n"] === undefined ? STANDARD_SCRYPT.n : Number(values["scrypt-n"]);
    if (!Number.isSafeInteger(scryptN)) return usage(io, `--scrypt-n must be a power of two, got ${values["scrypt-n"]}`);
    const privateKey = command === "new" ? generatePrivateKey() : await importedKey(io, values["private-key-file"]);
    const password = await newPassword(io, values["password-file"]);
    const { address } = privateKeyToAccount(privateKey);
    io.note(`encrypting with scrypt n=${scryptN} (about a second at the standard cost)…`);
    const keystore = await encryptKeystore(privateKey, password, { scrypt: { ...STANDARD_SCRYPT, n: scryptN } });
    const keystoreName = name ?? gethStyleName(address, new Date());
    const file = writeKeystoreFile(directory, keystoreName, keystore);
    if (values.json === true) io.print(JSON.stringify({ name: keystoreName, file, address }, null, 2));
    else {
      io.print(`${command === "new" ? "created" : "imported"} keystore ${keystoreName}`);
      printTable(io.print, [
        ["address", address],
        ["file", file],
        ["sign with", `--keystore ${keystoreName}${values.dir === undefined ? "" : ` --keystore-dir ${directory}`}`],
      ]);
    }
    return 0;
  }
  return usage(io, command === undefined ? undefined : `unknown command ${command}`);
}

function usage(io: KeystoreCliIo, problem: string | undefined): number {
  if (problem !== undefined) io.print(problem);
  io.print(USAGE);
  return 2;
}

if (require.main === module) {
  runKeystoreCommand(process.argv.slice(2), {
    print: (line) => process.stdout.write(`${line}\n`),
    note: (line) => process.stderr.write(`${line}\n`),
    prompt: (question) => promptHidden(question),
    env: process.env,
  })
    .then((code) => {
      process.exitCode = code;
    })
    .catch((error: unknown) => {
      console.error("keystore:", error instanceof Error ? error.message : error);
      process.exitCode = 1;
    });
}
