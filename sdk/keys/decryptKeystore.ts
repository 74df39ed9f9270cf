import { getAddress, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { KeystoreFormatError, KeystorePasswordError } from "../errors/keystore";
import { openPrivateKey } from "./keystoreCipher";
import { deriveKeystoreKey } from "./keystoreKdf";
import { parseKeystore } from "./keystoreSchema";

export type DecryptedKeystore = Readonly<{ privateKey: Hex; address: Address }>;

/**
 * Decrypts a Web3 Secret Storage v3 keystore (scrypt or pbkdf2-hmac-sha256, aes-128-ctr) with
 * `password`. Throws KeystorePasswordError when the MAC does not match, KeystoreFormatError naming
 * the field when the file is not such a keystore (or its `address` is not the key's), and
 * KeystoreKdfError when its cost is beyond the caps. `source` names the file in those messages.
 *
 * @example
 * const { privateKey, address } = await decryptKeystore(readFileSync(path, "utf8"), password, path);
 */
export async function decryptKeystore(keystore: unknown, password: string, source = "the keystore"): Promise<DecryptedKeystore> {
  const { crypto, address } = parseKeystore(keystore, source);
  const derivedKey = await deriveKeystoreKey(crypto, password);
  const privateKey = openPrivateKey(derivedKey, Buffer.from(crypto.cipherparams.iv, "hex"), Buffer.from(crypto.ciphertext, "hex"), Buffer.from(crypto.mac, "hex"));
  derivedKey.fill(0);
  if (privateKey === undefined) throw new KeystorePasswordError(source);
  let account;
  try {
    account = privateKeyToAccount(privateKey);
  } catch {
    throw new KeystoreFormatError(source, "crypto.ciphertext", "decrypts to a value that is not a secp256k1 private key");
  }
  if (address !== undefined && address !== account.address.slice(2).toLowerCase()) {
    throw new KeystoreFormatError(source, "address", `is 0x${address} but the key's address is ${account.address}`);
  }
  return { privateKey, address: getAddress(account.address) };
}
