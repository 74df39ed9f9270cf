import { randomBytes, randomUUID } from "node:crypto";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { sealPrivateKey } from "./keystoreCipher";
import { checkScryptParams, deriveKeystoreKey, STANDARD_SCRYPT } from "./keystoreKdf";
import type { Web3SecretStorage } from "./keystoreSchema";

export type EncryptKeystoreOptions = Readonly<{
  /** scrypt cost; default geth's standard n=2^18, r=8, p=1. Lower only for tests or throwaway keys. */
  scrypt?: Readonly<{ n: number; r: number; p: number }>;
  /** Fixed randomness, for reproducible test vectors only; default fresh from node:crypto. */
  salt?: Uint8Array;
  iv?: Uint8Array;
  id?: string;
}>;

/**
 * Encrypts a private key into a Web3 Secret Storage v3 keystore (scrypt, aes-128-ctr, keccak256 MAC)
 * with the `address` field, as geth and `cast wallet` write it: the JSON object to save as the file.
 *
 * @example
 * const keystore = await encryptKeystore(privateKey, password);
 * writeFileSync(path, JSON.stringify(keystore), { mode: 0o600 });
 */
export async function encryptKeystore(privateKey: Hex, password: string, options: EncryptKeystoreOptions = {}): Promise<Web3SecretStorage> {
  // Refuses a key that is not a valid secp256k1 scalar before any work.
  const { address } = privateKeyToAccount(privateKey);
  const { n, r, p } = options.scrypt ?? STANDARD_SCRYPT;
  checkScryptParams({ n, r, p });
  const salt = Buffer.from(options.salt ?? randomBytes(32)).toString("hex");
  const iv = Buffer.from(options.iv ?? randomBytes(16));
  if (iv.length !== 16) throw new RangeError(`the iv must be 16 bytes, got ${iv.length}`);
  const kdf = { kdf: "scrypt" as const, kdfparams: { dklen: 32 as const, n, r, p, salt } };
  const derivedKey = await deriveKeystoreKey(kdf, password);
  const { ciphertext, mac } = sealPrivateKey(derivedKey, iv, Buffer.from(privateKey.slice(2), "hex"));
  derivedKey.fill(0);
  return {
    version: 3,
    id: options.id ?? randomUUID(),
    address: address.slice(2).toLowerCase(),
    crypto: { cipher: "aes-128-ctr", cipherparams: { iv: iv.toString("hex") }, ciphertext: ciphertext.toString("hex"), mac: mac.toString("hex"), ...kdf },
  };
}
