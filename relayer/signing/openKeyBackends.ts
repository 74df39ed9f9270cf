import { decryptKeystore, defaultKeystoreDir, findKeystore, readKeystoreFile, readPasswordFile } from "../../sdk";
import type { KeyBackend } from "./keyBackend";
import { localKeyBackend } from "./localKeyBackend";
import { pkcs11Backend } from "./pkcs11Backend";
import type { SignerSpec } from "./signerSpecs";

/** Opens one key: logs in to its token, or decrypts its keystore; refuses a raw key in production. */
export async function openKeyBackend(spec: SignerSpec, environment: { production: boolean }): Promise<KeyBackend> {
  switch (spec.kind) {
    case "pkcs11":
      return pkcs11Backend(spec);
    case "keystore": {
      const file = findKeystore(spec.reference, spec.dir ?? defaultKeystoreDir());
      const { privateKey } = await decryptKeystore(readKeystoreFile(file), readPasswordFile(spec.passwordFile), file);
      return localKeyBackend(privateKey, "keystore", `keystore ${file}`);
    }
    case "unsafe":
      // The devnet shares chain id 4663 with the live chain: only NODE_ENV tells them apart.
      if (environment.production) throw new Error("a raw signer key (unsafe: in RELAYER_SIGNERS, or RELAYER_PRIVATE_KEYS) is refused when NODE_ENV=production: use pkcs11: or keystore: signers");
      return localKeyBackend(spec.privateKey, "unsafe", "unsafe raw key");
  }
}

/**
 * Opens every configured key in order; if one fails, those already open are closed and the error
 * says which entry (by position, never its secret) failed. Two entries for one address are refused:
 * they would spend each other's nonces.
 */
export async function openKeyBackends(specs: readonly SignerSpec[], environment: { production: boolean }): Promise<KeyBackend[]> {
  const opened: KeyBackend[] = [];
  try {
    for (const [index, spec] of specs.entries()) {
      let backend: KeyBackend;
      try {
        backend = await openKeyBackend(spec, environment);
      } catch (error) {
        throw new Error(`signer ${index + 1} (${spec.kind}): ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      opened.push(backend);
      if (opened.some((other) => other !== backend && other.address === backend.address)) throw new Error(`signer ${index + 1} is ${backend.address} again: each key is listed once`);
    }
    return opened;
  } catch (error) {
    await Promise.all(opened.map((backend) => backend.close()));
    throw error;
  }
}
