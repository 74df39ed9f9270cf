import { createCipheriv, createDecipheriv, timingSafeEqual } from "node:crypto";
import { keccak256, type Hex } from "viem";

/**
 * The cipher half of Web3 Secret Storage: AES-128-CTR under the derived key's first 16 bytes, and a
 * MAC of keccak256(derivedKey[16..32] ‖ ciphertext). Kept apart from the KDF so the definition's
 * published derived keys can be checked against it directly.
 */
export function keystoreMac(derivedKey: Uint8Array, ciphertext: Uint8Array): Buffer {
  return Buffer.from(keccak256(Buffer.concat([derivedKey.subarray(16, 32), ciphertext])).slice(2), "hex");
}

/** Encrypts a 32-byte private key: the ciphertext and its MAC. */
export function sealPrivateKey(derivedKey: Uint8Array, iv: Uint8Array, privateKey: Uint8Array): { ciphertext: Buffer; mac: Buffer } {
  const cipher = createCipheriv("aes-128-ctr", derivedKey.subarray(0, 16), iv);
  const ciphertext = Buffer.concat([cipher.update(privateKey), cipher.final()]);
  return { ciphertext, mac: keystoreMac(derivedKey, ciphertext) };
}

/** Checks the MAC (in constant time) and decrypts; undefined when the MAC does not match (a wrong password). */
export function openPrivateKey(derivedKey: Uint8Array, iv: Uint8Array, ciphertext: Uint8Array, mac: Uint8Array): Hex | undefined {
  const expected = keystoreMac(derivedKey, ciphertext);
  if (expected.length !== mac.length || !timingSafeEqual(expected, mac)) return undefined;
  const decipher = createDecipheriv("aes-128-ctr", derivedKey.subarray(0, 16), iv);
  return `0x${Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString("hex")}`;
}
