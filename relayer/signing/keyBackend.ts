import type { Address, Hex } from "viem";

/** An ECDSA signature over secp256k1 as Ethereum wants it: low-s (EIP-2), with the recovery bit. */
export type RecoverableSignature = Readonly<{ r: Hex; s: Hex; yParity: 0 | 1 }>;

/**
 * Where one relayer key lives and how it signs. The relayer never sees a key through this: it asks
 * for a signature of a 32-byte digest (a transaction's signing hash) and gets (r, s, yParity) back.
 *
 * To add a backend (a cloud KMS, Vault's transit engine, …) write ONE file that returns a KeyBackend:
 * read the key's public key once to know `address` (`addressOfPublicKey`), and in `signDigest` ask the
 * service for a raw ECDSA signature of the digest (not of a message it hashes again), decode (r, s)
 * from its answer (`rsOfDer` for the DER that most KMS return) and pass them to
 * `recoverableSignature`, which makes s low and finds the recovery bit. Then name it in
 * `openKeyBackend` and in the RELAYER_SIGNERS grammar (signerSpecs.ts). The signing policy, the daily
 * spend cap and the metrics sit above this interface, so a new backend inherits them.
 */
export interface KeyBackend {
  /** The backend's name in RELAYER_SIGNERS and in logs: `pkcs11`, `keystore`, `unsafe`. */
  readonly kind: string;
  readonly address: Address;
  /** Where the key is, for logs and the operator: never a secret (no PIN, password or key). */
  readonly description: string;
  signDigest(digest: Hex): Promise<RecoverableSignature>;
  /** Lets go of sessions and handles (the module's login); idempotent. */
  close(): Promise<void>;
}
