import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import { getAddress, isAddress, type Address } from "viem";
import { KeystoreFormatError, KeystoreNotFoundError } from "../errors/keystore";
import { parseKeystore, type Web3SecretStorage } from "./keystoreSchema";

/**
 * Foundry's folder, so `cast wallet list` and `cast send --account <name>` see the same keystores;
 * KEYSTORE_DIR or `--keystore-dir`/`--dir` choose another.
 */
export function defaultKeystoreDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.KEYSTORE_DIR?.trim();
  return resolve(configured !== undefined && configured !== "" ? configured : join(homedir(), ".foundry", "keystores"));
}

/** A keystore is a few hundred bytes; anything far larger is not one, and is not read whole. */
const MAX_KEYSTORE_BYTES = 64 * 1024;

/** A name as `cast wallet` stores it: the file's name in the folder, no extension added. */
const KEYSTORE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export type KeystoreEntry = Readonly<{ name: string; file: string; address: Address | undefined; kdf: "scrypt" | "pbkdf2" }>;
export type KeystoreListing = Readonly<{ directory: string; keystores: KeystoreEntry[]; unreadable: { name: string; problem: string }[] }>;

/** Reads and parses one keystore file, refusing oversized files before reading them. */
export function readKeystoreFile(file: string): Web3SecretStorage {
  const size = statSync(file).size;
  if (size > MAX_KEYSTORE_BYTES) throw new KeystoreFormatError(file, "the file", `is ${size} bytes, more than a keystore's ${MAX_KEYSTORE_BYTES}`);
  return parseKeystore(readFileSync(file, "utf8"), file);
}

/** The keystores in `directory` (sorted by name), and the files there that are not keystores, with why. A missing folder lists nothing. */
export function listKeystores(directory: string): KeystoreListing {
  let names: string[];
  try {
    names = readdirSync(directory, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { directory, keystores: [], unreadable: [] };
    throw error;
  }
  const keystores: KeystoreEntry[] = [];
  const unreadable: { name: string; problem: string }[] = [];
  for (const name of names) {
    const file = join(directory, name);
    try {
      const keystore = readKeystoreFile(file);
      keystores.push({ name, file, address: keystore.address === undefined ? undefined : getAddress(`0x${keystore.address}`), kdf: keystore.crypto.kdf });
    } catch (error) {
      unreadable.push({ name, problem: error instanceof KeystoreFormatError ? error.shortMessage.replace(`${file} `, "") : String(error) });
    }
  }
  return { directory, keystores, unreadable };
}

/**
 * The file `reference` names: a path to a file; else a name in `directory` (as given, or with
 * `.json`); else an address that one keystore in `directory` holds. KeystoreNotFoundError lists the
 * folder's names otherwise.
 */
export function findKeystore(reference: string, directory: string): string {
  const isFile = (path: string) => {
    try {
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (isFile(reference)) return resolve(reference);
  if (basename(reference) === reference) {
    for (const candidate of [reference, `${reference}.json`]) {
      if (isFile(join(directory, candidate))) return join(directory, candidate);
    }
  }
  const listing = listKeystores(directory);
  if (isAddress(reference, { strict: false })) {
    const wanted = getAddress(reference.toLowerCase());
    const holders = listing.keystores.filter((entry) => entry.address === wanted);
    if (holders.length === 1) return holders[0]!.file;
    if (holders.length > 1) throw new KeystoreNotFoundError(reference, directory, holders.map((entry) => `${entry.name} (same address: pass the name)`));
  }
  throw new KeystoreNotFoundError(reference, directory, listing.keystores.map((entry) => entry.name));
}

/**
 * Writes a new keystore file `name` in `directory` (created 0700 when missing), readable by its owner
 * only (0600), and never over an existing file. Returns the file's path.
 */
export function writeKeystoreFile(directory: string, name: string, keystore: Web3SecretStorage): string {
  if (!KEYSTORE_NAME.test(name)) throw new RangeError(`a keystore name is 1-100 letters, digits, '.', '_' or '-' (not starting with one of the last three); got ${JSON.stringify(name)}`);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const file = join(directory, name);
  try {
    writeFileSync(file, `${JSON.stringify(keystore)}\n`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new Error(`a keystore named ${name} already exists in ${directory}: choose another name (nothing was written)`);
    throw error;
  }
  return file;
}
