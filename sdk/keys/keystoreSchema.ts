import { z } from "zod";
import { KeystoreFormatError } from "../errors/keystore";

/** Hex bytes as keystores write them (geth: no 0x prefix; a prefix is tolerated), of `bytes` length when given. */
function hexBytes(bytes?: number) {
  const pattern = bytes === undefined ? /^(0x)?([0-9a-fA-F]{2})+$/ : new RegExp(`^(0x)?[0-9a-fA-F]{${bytes * 2}}$`);
  return z
    .string()
    .regex(pattern, bytes === undefined ? "must be hex bytes" : `must be ${bytes} bytes of hex`)
    .transform((value) => value.replace(/^0x/, "").toLowerCase());
}

const scryptParams = z.object({
  dklen: z.literal(32),
  n: z.number().int().positive(),
  r: z.number().int().positive(),
  p: z.number().int().positive(),
  salt: hexBytes(),
});

const pbkdf2Params = z.object({
  dklen: z.literal(32),
  c: z.number().int().positive(),
  prf: z.literal("hmac-sha256"),
  salt: hexBytes(),
});

const cryptoSection = z.intersection(
  z.object({
    cipher: z.literal("aes-128-ctr"),
    cipherparams: z.object({ iv: hexBytes(16) }),
    // A secp256k1 private key: 32 bytes.
    ciphertext: hexBytes(32),
    mac: hexBytes(32),
  }),
  z.discriminatedUnion("kdf", [z.object({ kdf: z.literal("scrypt"), kdfparams: scryptParams }), z.object({ kdf: z.literal("pbkdf2"), kdfparams: pbkdf2Params })]),
);

/**
 * A Web3 Secret Storage version 3 keystore (the JSON geth, `cast wallet` and ethers write). The
 * encrypted section is `crypto` (geth before 1.4 wrote `Crypto`: both are read, `crypto` is written);
 * `address` is optional in the definition but every common writer includes it.
 */
export const web3SecretStorageSchema = z
  .object({
    version: z.literal(3),
    id: z.string().min(1),
    address: hexBytes(20).optional(),
    crypto: cryptoSection.optional(),
    Crypto: cryptoSection.optional(),
  })
  .transform(({ Crypto, crypto, ...rest }, context) => {
    const section = crypto ?? Crypto;
    if (section === undefined) {
      context.addIssue({ code: "custom", path: ["crypto"], message: "is missing" });
      return z.NEVER;
    }
    return { ...rest, crypto: section };
  });

export type Web3SecretStorage = z.output<typeof web3SecretStorageSchema>;
export type KeystoreKdfParams = Web3SecretStorage["crypto"] extends infer C ? (C extends { kdf: infer K; kdfparams: infer P } ? { kdf: K; kdfparams: P } : never) : never;

/** `input` (parsed JSON, or its text) as a keystore; a KeystoreFormatError names the first wrong field. `source` names the file in messages. */
export function parseKeystore(input: unknown, source: string): Web3SecretStorage {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch {
      throw new KeystoreFormatError(source, "the file", "is not JSON");
    }
  }
  const parsed = web3SecretStorageSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new KeystoreFormatError(source, issue.path.length === 0 ? "the document" : issue.path.map(String).join("."), issue.message);
  }
  return parsed.data;
}
