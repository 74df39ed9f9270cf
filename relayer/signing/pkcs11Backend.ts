import { readFileSync, statSync } from "node:fs";
import * as pkcs11js from "pkcs11js";
import { bytesToHex, type Address, type Hex } from "viem";
import { publicKeyToAddress } from "viem/accounts";
import type { KeyBackend } from "./keyBackend";
import { recoverableSignature, rsOfRaw } from "./recoverableSignature";
import type { SignerSpec } from "./signerSpecs";

type Pkcs11Spec = Extract<SignerSpec, { kind: "pkcs11" }>;

/** DER of the secp256k1 curve's OID (1.3.132.0.10), the CKA_EC_PARAMS of a key pair on that curve. */
const SECP256K1_PARAMS = "06052b8104000a";

/**
 * One loaded module per library path, shared by every key in it: C_Initialize may run once per
 * process and module, and C_Finalize only after the last key closed.
 */
const modules = new Map<string, { module: pkcs11js.PKCS11; users: number }>();

function openModule(path: string): pkcs11js.PKCS11 {
  const loaded = modules.get(path);
  if (loaded !== undefined) {
    loaded.users++;
    return loaded.module;
  }
  const module = new pkcs11js.PKCS11();
  try {
    module.load(path);
  } catch (error) {
    throw new Error(`cannot load the PKCS#11 module ${path}: ${error instanceof Error ? error.message : String(error)} (SoftHSM2: apt-get install softhsm2; the module is /usr/lib/softhsm/libsofthsm2.so)`);
  }
  module.C_Initialize();
  modules.set(path, { module, users: 1 });
  return module;
}

function closeModule(path: string): void {
  const loaded = modules.get(path);
  if (loaded === undefined) return;
  if (--loaded.users > 0) return;
  modules.delete(path);
  loaded.module.C_Finalize();
  loaded.module.close();
}

/** Answers that mean the session is gone, not the key or the request: a new session may sign. */
const LOST_SESSION = new Set(["CKR_SESSION_HANDLE_INVALID", "CKR_SESSION_CLOSED", "CKR_DEVICE_REMOVED", "CKR_TOKEN_NOT_PRESENT", "CKR_USER_NOT_LOGGED_IN", "CKR_OBJECT_HANDLE_INVALID", "CKR_KEY_HANDLE_INVALID", "CKR_DEVICE_ERROR"]);

function pkcs11Code(error: unknown): string | undefined {
  return error instanceof Error && /^CKR_/.test(error.message) ? error.message : undefined;
}

/** A PIN file's content without one trailing newline; refused when others may read it. */
function readPin(file: string): string {
  const stat = statSync(file);
  if (stat.size > 256) throw new Error(`PIN file ${file} is ${stat.size} bytes: it holds the PIN only`);
  // A PIN readable by every user of the host is a PIN anyone there can sign with.
  if ((stat.mode & 0o004) !== 0) throw new Error(`PIN file ${file} is readable by every user (mode ${(stat.mode & 0o777).toString(8)}): chmod 600 it`);
  return readFileSync(file, "utf8").replace(/\r?\n$/, "");
}

function findSlot(module: pkcs11js.PKCS11, spec: Pkcs11Spec): Buffer {
  const slots = module.C_GetSlotList(true);
  const matching = slots.filter((slot) => {
    if (spec.slotId !== undefined && slot.readBigUInt64LE(0) !== spec.slotId) return false;
    const info = module.C_GetTokenInfo(slot);
    if (spec.token !== undefined && info.label.trim() !== spec.token) return false;
    if (spec.serial !== undefined && info.serialNumber.trim() !== spec.serial) return false;
    return true;
  });
  const wanted = [spec.token === undefined ? undefined : `label "${spec.token}"`, spec.serial === undefined ? undefined : `serial ${spec.serial}`, spec.slotId === undefined ? undefined : `slot ${spec.slotId}`].filter(Boolean).join(", ");
  if (matching.length === 0) {
    const present = slots.map((slot) => `"${module.C_GetTokenInfo(slot).label.trim()}"`).join(", ") || "none";
    throw new Error(`no PKCS#11 token with ${wanted} in ${spec.modulePath} (tokens present: ${present})`);
  }
  if (matching.length > 1) throw new Error(`${matching.length} PKCS#11 tokens match ${wanted}: name one by serial=<serial> or slot-id=<n>`);
  return matching[0]!;
}

function findObjects(module: pkcs11js.PKCS11, session: Buffer, objectClass: number, spec: Pkcs11Spec): Buffer[] {
  const template: pkcs11js.Template = [{ type: pkcs11js.CKA_CLASS, value: objectClass }];
  if (spec.object !== undefined) template.push({ type: pkcs11js.CKA_LABEL, value: spec.object });
  if (spec.id !== undefined) template.push({ type: pkcs11js.CKA_ID, value: Buffer.from(spec.id.slice(2), "hex") });
  module.C_FindObjectsInit(session, template);
  try {
    return module.C_FindObjects(session, 2);
  } finally {
    module.C_FindObjectsFinal(session);
  }
}

/** The uncompressed point 04 ‖ x ‖ y of CKA_EC_POINT: DER OCTET STRING-wrapped by the standard, bare in some modules. */
function uncompressedPoint(value: Buffer): Hex {
  if (value.length === 67 && value[0] === 0x04 && value[1] === 0x41 && value[2] === 0x04) return bytesToHex(value.subarray(2));
  if (value.length === 65 && value[0] === 0x04) return bytesToHex(value);
  throw new Error(`the public key's CKA_EC_POINT is not an uncompressed secp256k1 point (${value.length} bytes)`);
}

function attribute(module: pkcs11js.PKCS11, session: Buffer, object: Buffer, type: number): Buffer {
  const [read] = module.C_GetAttributeValue(session, object, [{ type }]);
  if (read === undefined || !Buffer.isBuffer(read.value)) throw new Error(`attribute ${type} unreadable`);
  return read.value;
}

/**
 * A key pair inside a PKCS#11 token (an HSM, a cloud HSM, a YubiHSM, SoftHSM2): the module path is the
 * vendor's library; the token is found by label, serial or slot id; the user PIN logs in; the private
 * key is found by its label and/or id, with its public key (same label/id) giving the address. The
 * private key must be marked sensitive and not extractable: a key that could leave the token is
 * refused. Each signature is `C_Sign` with CKM_ECDSA over the 32-byte digest (the module does not hash
 * it), whose r ‖ s is made low-s and given its recovery bit here. Signatures of one key run one at a
 * time on its own session; C_Sign runs off the event loop.
 */
export function pkcs11Backend(spec: Pkcs11Spec): KeyBackend {
  const pin = readPin(spec.pinFile);
  const module = openModule(spec.modulePath);
  let session: Buffer | undefined;
  try {
    const slot = findSlot(module, spec);
    session = module.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
    try {
      module.C_Login(session, pkcs11js.CKU_USER, pin);
    } catch (error) {
      // The login is per application and token: a second key on the same token finds it done.
      if (pkcs11Code(error) !== "CKR_USER_ALREADY_LOGGED_IN") throw new Error(`PKCS#11 login to token ${spec.token ?? spec.serial ?? spec.slotId} failed: ${pkcs11Code(error) ?? String(error)} (check the PIN file)`);
    }
    const name = spec.object ?? spec.id;
    const privateKeys = findObjects(module, session, pkcs11js.CKO_PRIVATE_KEY, spec);
    if (privateKeys.length !== 1) throw new Error(privateKeys.length === 0 ? `no private key ${name} in the token` : `more than one private key matches ${name}: give both object= and id=`);
    const privateKey = privateKeys[0]!;
    if (attribute(module, session, privateKey, pkcs11js.CKA_KEY_TYPE).readUInt32LE(0) !== pkcs11js.CKK_EC) throw new Error(`key ${name} is not an EC key`);
    if (attribute(module, session, privateKey, pkcs11js.CKA_EXTRACTABLE)[0] !== 0 || attribute(module, session, privateKey, pkcs11js.CKA_SENSITIVE)[0] !== 1) {
      throw new Error(`key ${name} may leave the token (extractable, or not sensitive): generate a relayer key inside the token, non-extractable`);
    }
    const publicKeys = findObjects(module, session, pkcs11js.CKO_PUBLIC_KEY, spec);
    if (publicKeys.length !== 1) throw new Error(`the public key of ${name} is ${publicKeys.length === 0 ? "missing" : "ambiguous"} in the token (it is found by the same label/id)`);
    const params = bytesToHex(attribute(module, session, publicKeys[0]!, pkcs11js.CKA_EC_PARAMS)).slice(2);
    if (params !== SECP256K1_PARAMS) throw new Error(`key ${name} is not on secp256k1 (CKA_EC_PARAMS ${params}): generate it with --key-type EC:secp256k1`);
    const address: Address = publicKeyToAddress(uncompressedPoint(attribute(module, session, publicKeys[0]!, pkcs11js.CKA_EC_POINT)));
    let tail: Promise<unknown> = Promise.resolve();
    let closed = false;
    let open = session;
    let key = privateKey;
    const signOnce = (digest: Hex) =>
      new Promise<Buffer>((resolve, reject) => {
        if (closed) return reject(new Error(`the PKCS#11 signer ${address} is closed`));
        try {
          module.C_SignInit(open, { mechanism: pkcs11js.CKM_ECDSA }, key);
        } catch (error) {
          return reject(error);
        }
        module.C_Sign(open, Buffer.from(digest.slice(2), "hex"), Buffer.alloc(72), (error, signature) => (error ? reject(error) : resolve(signature)));
      });
    /**
     * A session the module lost (the HSM restarted, a network HSM's connection dropped, the token was
     * re-inserted) never comes back by itself: open a new one, log in, find the key again (its handle
     * belongs to the old session), once per failed signature.
     */
    const reopen = () => {
      try {
        module.C_CloseSession(open);
      } catch {
        // Already gone: that is why we are here.
      }
      const slot = findSlot(module, spec);
      const fresh = module.C_OpenSession(slot, pkcs11js.CKF_SERIAL_SESSION | pkcs11js.CKF_RW_SESSION);
      try {
        module.C_Login(fresh, pkcs11js.CKU_USER, pin);
      } catch (error) {
        if (pkcs11Code(error) !== "CKR_USER_ALREADY_LOGGED_IN") {
          module.C_CloseSession(fresh);
          throw error;
        }
      }
      const keys = findObjects(module, fresh, pkcs11js.CKO_PRIVATE_KEY, spec);
      if (keys.length !== 1) {
        module.C_CloseSession(fresh);
        throw new Error(`after reopening the PKCS#11 session, key ${name} is ${keys.length === 0 ? "missing" : "ambiguous"} in the token`);
      }
      open = fresh;
      key = keys[0]!;
    };
    return {
      kind: "pkcs11",
      address,
      description: `pkcs11 token ${spec.token ?? spec.serial ?? `slot ${spec.slotId}`} key ${name}`,
      signDigest(digest) {
        const run = tail.then(async () => {
          const raw = await signOnce(digest).catch((error: unknown) => {
            if (!LOST_SESSION.has(pkcs11Code(error) ?? "")) throw error;
            reopen();
            return signOnce(digest);
          });
          const { r, s } = rsOfRaw(raw);
          return recoverableSignature(digest, r, s, address);
        });
        tail = run.catch(() => undefined);
        return run;
      },
      async close() {
        if (closed) return;
        closed = true;
        await tail;
        module.C_CloseSession(open);
        closeModule(spec.modulePath);
      },
    };
  } catch (error) {
    if (session !== undefined) module.C_CloseSession(session);
    closeModule(spec.modulePath);
    throw error;
  }
}
