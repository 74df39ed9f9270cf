import { secp256k1 } from "@noble/curves/secp256k1";
import { isAddressEqual, numberToHex, recoverAddress, type Address, type Hex } from "viem";
import type { RecoverableSignature } from "./keyBackend";

const N = secp256k1.CURVE.n;
const HALF_N = N >> 1n;

/**
 * Turns a bare ECDSA signature (r, s) of `digest`, as an HSM or a KMS returns it, into Ethereum's
 * form: s above n/2 is replaced by n - s (EIP-2: only the low form is valid), and the recovery bit is
 * the one of the two candidates that recovers `address`. A signature that recovers neither (another
 * key, or a module that signed something else) is refused rather than sent.
 */
export async function recoverableSignature(digest: Hex, r: bigint, s: bigint, address: Address): Promise<RecoverableSignature> {
  if (r <= 0n || r >= N || s <= 0n || s >= N) throw new Error(`the signer of ${address} returned an out-of-range ECDSA signature`);
  const low = s > HALF_N ? N - s : s;
  const signature = { r: numberToHex(r, { size: 32 }), s: numberToHex(low, { size: 32 }) };
  for (const yParity of [0, 1] as const) {
    const recovered = await recoverAddress({ hash: digest, signature: { ...signature, yParity } });
    if (isAddressEqual(recovered, address)) return { ...signature, yParity };
  }
  throw new Error(`the signature returned for ${address} does not recover to it: the module signed with another key or over other bytes`);
}

/** (r, s) of a 64-byte r ‖ s signature (PKCS#11's CKM_ECDSA output for a 256-bit curve). */
export function rsOfRaw(bytes: Uint8Array): { r: bigint; s: bigint } {
  if (bytes.length !== 64) throw new Error(`expected a 64-byte r||s signature, got ${bytes.length} bytes`);
  const hex = Buffer.from(bytes).toString("hex");
  return { r: BigInt(`0x${hex.slice(0, 64)}`), s: BigInt(`0x${hex.slice(64)}`) };
}

/** (r, s) of a DER `SEQUENCE { INTEGER r, INTEGER s }` signature, the form most cloud KMS return. */
export function rsOfDer(bytes: Uint8Array): { r: bigint; s: bigint } {
  const signature = secp256k1.Signature.fromDER(bytes);
  return { r: signature.r, s: signature.s };
}
