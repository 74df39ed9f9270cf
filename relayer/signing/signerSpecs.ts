import { isHex, type Hex } from "viem";

/**
 * One relayer key as RELAYER_SIGNERS names it. Entries are separated by whitespace (spaces or new
 * lines; a URI has none), each one of:
 * - `pkcs11:token=<token label>;object=<key label>[;id=<hex id, %-encoded>][;slot-id=<n>]?module-path=<module .so>&pin-source=file:<pin file>`
 *   (an RFC 7512 PKCS#11 URI, the form p11-kit and OpenSSL take): the module is the vendor's library,
 *   the token is found by its label (or `slot-id`), the key pair by its label (`object`) and/or `id`,
 *   and the user PIN is read from a file (never written in the URI);
 * - `keystore:<file or name>?password-file=<file>[&dir=<keystore folder>]`: a Web3 Secret Storage file;
 * - `unsafe:0x<64 hex digits>`: a raw key, refused when NODE_ENV=production.
 */
export type SignerSpec =
  | Readonly<{ kind: "pkcs11"; modulePath: string; token?: string; slotId?: bigint; serial?: string; object?: string; id?: Hex; pinFile: string }>
  | Readonly<{ kind: "keystore"; reference: string; passwordFile: string; dir?: string }>
  | Readonly<{ kind: "unsafe"; privateKey: Hex }>;

export class SignerSpecError extends Error {
  override readonly name = "SignerSpecError";
}

/** The bytes of a %-encoded attribute (RFC 7512's `id=%01%ff`), letters standing for themselves. */
function percentBytes(value: string, what: string): Hex {
  const bytes: number[] = [];
  for (let index = 0; index < value.length; index++) {
    if (value[index] !== "%") {
      bytes.push(value.charCodeAt(index) & 0xff);
      continue;
    }
    const pair = value.slice(index + 1, index + 3);
    if (!/^[0-9a-fA-F]{2}$/.test(pair)) throw new SignerSpecError(`${what} has a malformed %-escape`);
    bytes.push(parseInt(pair, 16));
    index += 2;
  }
  if (bytes.length === 0) throw new SignerSpecError(`${what} is empty`);
  return `0x${Buffer.from(bytes).toString("hex")}`;
}

function decode(value: string, what: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new SignerSpecError(`${what} has a malformed %-escape`);
  }
}

/** `a=1;b=2` (or `a=1&b=2` with `separator` "&") into a map, refusing repeated or unknown attributes. */
function attributes(text: string, separator: string, known: readonly string[], where: string): Map<string, string> {
  const map = new Map<string, string>();
  if (text === "") return map;
  for (const part of text.split(separator)) {
    const equals = part.indexOf("=");
    // The text itself is not repeated: a mistyped entry may hold a secret.
    if (equals <= 0) throw new SignerSpecError(`${where}: an attribute is not name=value (known names: ${known.join(", ")})`);
    const name = part.slice(0, equals);
    if (!known.includes(name)) throw new SignerSpecError(`${where}: unknown attribute "${name}" (known: ${known.join(", ")})`);
    if (map.has(name)) throw new SignerSpecError(`${where}: "${name}" is given twice`);
    const value = part.slice(equals + 1);
    // An id is bytes, not text: kept %-encoded for percentBytes.
    map.set(name, name === "id" ? value : decode(value, `${where} attribute ${name}`));
  }
  return map;
}

function parsePkcs11(body: string, position: number): SignerSpec {
  const where = `signer ${position} (pkcs11)`;
  const question = body.indexOf("?");
  const path = attributes(question < 0 ? body : body.slice(0, question), ";", ["token", "object", "id", "slot-id", "serial", "type"], where);
  const query = attributes(question < 0 ? "" : body.slice(question + 1), "&", ["module-path", "pin-source", "pin-value"], where);
  if (query.has("pin-value")) throw new SignerSpecError(`${where}: pin-value would put the PIN in the environment; write it to a file readable only by the relayer and give pin-source=file:<path>`);
  const modulePath = query.get("module-path");
  if (modulePath === undefined) throw new SignerSpecError(`${where}: module-path=<the vendor's PKCS#11 library> is required (SoftHSM2: /usr/lib/softhsm/libsofthsm2.so)`);
  const pinSource = query.get("pin-source");
  if (pinSource === undefined || !pinSource.startsWith("file:") || pinSource.length === 5) throw new SignerSpecError(`${where}: pin-source=file:<path of a file holding the user PIN> is required`);
  const type = path.get("type");
  if (type !== undefined && type !== "private") throw new SignerSpecError(`${where}: type must be "private" (the key pair is found by its private key) or absent`);
  const token = path.get("token");
  const slotText = path.get("slot-id");
  if (token === undefined && slotText === undefined && path.get("serial") === undefined) throw new SignerSpecError(`${where}: name the token: token=<label>, serial=<serial> or slot-id=<n>`);
  if (slotText !== undefined && !/^[0-9]{1,20}$/.test(slotText)) throw new SignerSpecError(`${where}: slot-id must be a decimal number`);
  const object = path.get("object");
  const idBytes = path.get("id");
  if (object === undefined && idBytes === undefined) throw new SignerSpecError(`${where}: name the key: object=<key label> and/or id=<%-encoded id bytes>`);
  const serial = path.get("serial");
  return {
    kind: "pkcs11",
    modulePath,
    pinFile: pinSource.slice(5),
    ...(token === undefined ? {} : { token }),
    ...(slotText === undefined ? {} : { slotId: BigInt(slotText) }),
    ...(serial === undefined ? {} : { serial }),
    ...(object === undefined ? {} : { object }),
    ...(idBytes === undefined ? {} : { id: percentBytes(idBytes, `${where} attribute id`) }),
  };
}

function parseKeystore(body: string, position: number): SignerSpec {
  const where = `signer ${position} (keystore)`;
  const question = body.indexOf("?");
  const reference = decode(question < 0 ? body : body.slice(0, question), where);
  if (reference === "") throw new SignerSpecError(`${where}: give the keystore's file or name: keystore:<file|name>?password-file=<file>`);
  const query = attributes(question < 0 ? "" : body.slice(question + 1), "&", ["password-file", "dir"], where);
  const passwordFile = query.get("password-file");
  if (passwordFile === undefined) throw new SignerSpecError(`${where}: password-file=<file holding the password> is required (a service has nobody to type it)`);
  const dir = query.get("dir");
  return { kind: "keystore", reference, passwordFile, ...(dir === undefined ? {} : { dir }) };
}

/**
 * Parses RELAYER_SIGNERS. Messages name the entry by position and never repeat an `unsafe:` key.
 *
 * @example
 * parseSignerSpecs("pkcs11:token=relayer;object=signer-1?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=file:/run/secrets/pin");
 */
export function parseSignerSpecs(text: string): SignerSpec[] {
  const entries = text.split(/\s+/).filter((entry) => entry !== "");
  if (entries.length === 0) throw new SignerSpecError("lists no signer");
  return entries.map((entry, index) => {
    const position = index + 1;
    const colon = entry.indexOf(":");
    const scheme = colon < 0 ? entry : entry.slice(0, colon);
    const body = colon < 0 ? "" : entry.slice(colon + 1);
    switch (scheme) {
      case "pkcs11":
        return parsePkcs11(body, position);
      case "keystore":
        return parseKeystore(body, position);
      case "unsafe":
        if (!isHex(body) || body.length !== 66) throw new SignerSpecError(`signer ${position} (unsafe): must be unsafe:0x followed by 64 hex digits`);
        return { kind: "unsafe", privateKey: body as Hex };
      default:
        // Named only when it looks like a scheme: an entry without one may be a pasted key.
        if (colon < 0 || !/^[a-z][a-z0-9+.-]{0,19}$/.test(scheme)) throw new SignerSpecError(`signer ${position}: names no backend (it is not shown: it may be a key); an entry starts with pkcs11:, keystore: or unsafe:`);
        throw new SignerSpecError(`signer ${position}: unknown backend "${scheme}" (pkcs11:, keystore: or unsafe:)`);
    }
  });
}

/** A spec as logs and errors may show it: no key, and the files rather than their content. */
export function describeSignerSpec(spec: SignerSpec): string {
  switch (spec.kind) {
    case "pkcs11":
      return `pkcs11 token ${spec.token ?? spec.serial ?? `slot ${spec.slotId}`} key ${spec.object ?? spec.id} (${spec.modulePath})`;
    case "keystore":
      return `keystore ${spec.reference}`;
    case "unsafe":
      return "unsafe raw key";
  }
}
