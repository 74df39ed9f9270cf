import { pbkdf2, scrypt } from "node:crypto";
import { KeystoreKdfError } from "../errors/keystore";
import type { KeystoreKdfParams } from "./keystoreSchema";

/**
 * What a keystore may ask of this process. geth's standard scrypt (n=2^18, r=8) needs 256 MiB; the
 * cap leaves room for twice that and no more, so a hostile or corrupt file cannot exhaust memory.
 */
export const KEYSTORE_KDF_LIMITS = { scryptMemoryBytes: 2 ** 29, scryptMaxP: 16, pbkdf2MaxIterations: 10_000_000 } as const;

/** The standard cost geth (and `npm run keystore -- new`) writes: about 256 MiB and a second to derive. */
export const STANDARD_SCRYPT = { n: 2 ** 18, r: 8, p: 1 } as const;

/** Checks scrypt's parameters against RFC 7914 (as OpenSSL enforces it) and the caps above, naming the one that fails. */
export function checkScryptParams(params: { n: number; r: number; p: number }): void {
  const { n, r, p } = params;
  if (n < 2 || (n & (n - 1)) !== 0 || n > 2 ** 30) throw new KeystoreKdfError("scrypt n", `must be a power of two from 2 to 2^30, got ${n}`);
  // RFC 7914: N < 2^(128·r/8). The Web3 Secret Storage definition's own scrypt test vector (n=2^18, r=1) breaks it.
  if (16 * r < 31 && n >= 2 ** (16 * r)) throw new KeystoreKdfError("scrypt n", `must be below 2^(16·r) = 2^${16 * r} for r=${r} (RFC 7914), got ${n}`);
  if (p > KEYSTORE_KDF_LIMITS.scryptMaxP) throw new KeystoreKdfError("scrypt p", `must be at most ${KEYSTORE_KDF_LIMITS.scryptMaxP}, got ${p}`);
  if (128 * n * r > KEYSTORE_KDF_LIMITS.scryptMemoryBytes) {
    throw new KeystoreKdfError("scrypt n·r", `needs ${(128 * n * r) / 2 ** 20} MiB, above the ${KEYSTORE_KDF_LIMITS.scryptMemoryBytes / 2 ** 20} MiB cap`);
  }
}

/** The 32-byte key a keystore's KDF derives from `password` (its UTF-8 bytes, as geth reads them). */
export function deriveKeystoreKey(kdf: KeystoreKdfParams, password: string): Promise<Buffer> {
  const secret = Buffer.from(password, "utf8");
  if (kdf.kdf === "scrypt") {
    const { n, r, p, salt, dklen } = kdf.kdfparams;
    checkScryptParams({ n, r, p });
    return new Promise((resolve, reject) => {
      // Node's maxmem counts the 128·N·r working array plus scrypt's p blocks; the rest is slack.
      scrypt(secret, Buffer.from(salt, "hex"), dklen, { N: n, r, p, maxmem: 128 * n * r + 128 * r * p + 2 ** 20 }, (error, key) => (error ? reject(error) : resolve(key)));
    });
  }
  const { c, salt, dklen } = kdf.kdfparams;
  if (c > KEYSTORE_KDF_LIMITS.pbkdf2MaxIterations) throw new KeystoreKdfError("pbkdf2 c", `must be at most ${KEYSTORE_KDF_LIMITS.pbkdf2MaxIterations}, got ${c}`);
  return new Promise((resolve, reject) => {
    pbkdf2(secret, Buffer.from(salt, "hex"), c, dklen, "sha256", (error, key) => (error ? reject(error) : resolve(key)));
  });
}
