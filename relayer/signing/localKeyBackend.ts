import type { Hex } from "viem";
import { privateKeyToAccount, sign } from "viem/accounts";
import type { KeyBackend } from "./keyBackend";

/**
 * A key held in this process's memory: decrypted from a keystore file, or a raw key marked unsafe
 * (RELAYER_PRIVATE_KEYS on the devnet, `unsafe:` in RELAYER_SIGNERS). Signs with viem's secp256k1
 * (already low-s, with its recovery bit).
 */
export function localKeyBackend(privateKey: Hex, kind: "keystore" | "unsafe", description: string): KeyBackend {
  const { address } = privateKeyToAccount(privateKey);
  let open = true;
  return {
    kind,
    address,
    description,
    async signDigest(digest) {
      // Closed (the signer retired, the relayer stopping): the key signs no more, as a module's closed session would not.
      if (!open) throw new Error(`the ${kind} key ${address} is closed`);
      const { r, s, yParity } = await sign({ hash: digest, privateKey, to: "object" });
      return { r, s, yParity: yParity === 1 ? 1 : 0 };
    },
    async close() {
      open = false;
    },
  };
}
