import { expect } from "chai";
import { decryptKeystoreJson, encryptKeystoreJson, Wallet } from "ethers";
import fc from "fast-check";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { KeystoreFormatError, KeystoreKdfError, KeystoreNotFoundError, KeystorePasswordError, SignerChoiceError } from "../../sdk/errors/keystore";
import { decryptKeystore } from "../../sdk/keys/decryptKeystore";
import { encryptKeystore } from "../../sdk/keys/encryptKeystore";
import { promptHidden } from "../../sdk/keys/hiddenPrompt";
import { keystoreMac, openPrivateKey } from "../../sdk/keys/keystoreCipher";
import { findKeystore, listKeystores, writeKeystoreFile } from "../../sdk/keys/keystoreDirectory";
import { resolveCliSigner } from "../../sdk/keys/resolveCliSigner";
import { PassThrough } from "node:stream";

/** The Web3 Secret Storage definition's test vectors (password "testpassword"). */
const VECTOR_KEY = "0x7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d";
const PBKDF2_VECTOR = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "6087dab2f9fdbbfaddc31a909735c1e6" },
    ciphertext: "5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46",
    kdf: "pbkdf2",
    kdfparams: { c: 262144, dklen: 32, prf: "hmac-sha256", salt: "ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd" },
    mac: "517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2",
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3,
};
const SCRYPT_VECTOR = {
  crypto: {
    cipher: "aes-128-ctr",
    cipherparams: { iv: "83dbcc02d8ccb40e466191a123791e0e" },
    ciphertext: "d172bf743a674da9cdad04534d56926ef8358534d458fffccd4e6ad2fbde479c",
    kdf: "scrypt",
    kdfparams: { dklen: 32, n: 262144, p: 8, r: 1, salt: "ab0c7876052600dd703518d6fc3fe8984592145b591fc8fb5c6d43190334ba19" },
    mac: "2103ac29920d71da29f15d75b4a16dbe95cfd7ff8faea1056c33131d846e3097",
  },
  id: "3198bc9c-6672-5ab3-d995-4942343ae5b6",
  version: 3,
};
/** The derived key the definition publishes for its scrypt vector. */
const SCRYPT_VECTOR_DERIVED_KEY = "fac192ceb5fd772906bea3e118a69e8bbb5cc24229e20d8766fd298291bba6bd";

/** Cheap scrypt for tests that are about the format, not the cost. */
const LIGHT = { n: 2 ** 10, r: 8, p: 1 } as const;
const KEY_A = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d" as Hex;

describe("Web3 Secret Storage keystores (sdk/keys)", function () {
  this.timeout(120_000);
  let directory: string;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), "keystores-"));
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it("decrypts the definition's PBKDF2-SHA-256 test vector to its published key; a wrong password is a KeystorePasswordError", async () => {
    const decrypted = await decryptKeystore(PBKDF2_VECTOR, "testpassword");
    expect(decrypted.privateKey).to.equal(VECTOR_KEY);
    expect(decrypted.address).to.equal(privateKeyToAccount(VECTOR_KEY).address);
    const wrong = await decryptKeystore(PBKDF2_VECTOR, "testpassword!").catch((error: unknown) => error);
    expect(wrong).to.be.instanceOf(KeystorePasswordError);
    expect(String(wrong)).to.not.contain("testpassword");
  });

  it("the definition's scrypt vector: its published derived key opens the ciphertext under its MAC, and its n=2^18 with r=1 (outside RFC 7914) is refused naming n", async () => {
    const derivedKey = Buffer.from(SCRYPT_VECTOR_DERIVED_KEY, "hex");
    const ciphertext = Buffer.from(SCRYPT_VECTOR.crypto.ciphertext, "hex");
    expect(keystoreMac(derivedKey, ciphertext).toString("hex")).to.equal(SCRYPT_VECTOR.crypto.mac);
    expect(openPrivateKey(derivedKey, Buffer.from(SCRYPT_VECTOR.crypto.cipherparams.iv, "hex"), ciphertext, Buffer.from(SCRYPT_VECTOR.crypto.mac, "hex"))).to.equal(VECTOR_KEY);
    // One flipped bit of the derived key's MAC half fails the MAC.
    derivedKey[20]! ^= 1;
    expect(openPrivateKey(derivedKey, Buffer.from(SCRYPT_VECTOR.crypto.cipherparams.iv, "hex"), ciphertext, Buffer.from(SCRYPT_VECTOR.crypto.mac, "hex"))).to.equal(undefined);
    const refused = await decryptKeystore(SCRYPT_VECTOR, "testpassword").catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(KeystoreKdfError);
    expect((refused as KeystoreKdfError).parameter).to.equal("scrypt n");
    expect(String(refused)).to.contain("RFC 7914");
  });

  it("encrypts with geth's standard scrypt cost by default, in the format geth writes, and decrypts it back", async () => {
    const keystore = await encryptKeystore(KEY_A, "correct horse");
    expect(keystore.crypto).to.include({ cipher: "aes-128-ctr", kdf: "scrypt" });
    expect(keystore.crypto.kdfparams).to.include({ n: 262144, r: 8, p: 1, dklen: 32 });
    expect(keystore.address).to.equal(privateKeyToAccount(KEY_A).address.slice(2).toLowerCase());
    expect(keystore.id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.stringify(keystore)).to.not.contain(KEY_A.slice(2));
    expect((await decryptKeystore(JSON.stringify(keystore), "correct horse")).privateKey).to.equal(KEY_A);
  });

  it("round trip for any key and password, and ethers (a second implementation) decrypts what we write", async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.string({ maxLength: 40 }), async (bytes, password) => {
        const key = `0x${Buffer.from(bytes).toString("hex")}` as Hex;
        let valid = true;
        try {
          privateKeyToAccount(key);
        } catch {
          valid = false;
        }
        if (!valid) {
          // Zero or above the curve order: refused before any work.
          expect(await encryptKeystore(key, password, { scrypt: LIGHT }).then(() => "accepted", () => "refused")).to.equal("refused");
          return;
        }
        const keystore = await encryptKeystore(key, password, { scrypt: LIGHT });
        expect((await decryptKeystore(keystore, password)).privateKey).to.equal(key);
        const byEthers = await decryptKeystoreJson(JSON.stringify(keystore), password);
        expect(byEthers.privateKey).to.equal(key);
      }),
      { numRuns: 12 },
    );
  });

  it("reads a file written by ethers' encryptKeystoreJson, found by name, by name.json and by its address", async () => {
    const wallet = new Wallet(KEY_A);
    const json = await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, "ethers password", { scrypt: { N: 2 ** 12 } });
    writeFileSync(join(directory, "from-ethers.json"), json);
    writeFileSync(join(directory, "notes.txt"), "not a keystore");
    writeFileSync(join(directory, "password"), "ethers password\n");
    const listing = listKeystores(directory);
    expect(listing.keystores.map((entry) => [entry.name, entry.address, entry.kdf])).to.deep.equal([["from-ethers.json", wallet.address, "scrypt"]]);
    expect(listing.unreadable.map((entry) => entry.name)).to.deep.equal(["notes.txt", "password"]);
    for (const reference of ["from-ethers", "from-ethers.json", wallet.address.toLowerCase(), join(directory, "from-ethers.json")]) {
      expect(findKeystore(reference, directory), reference).to.equal(join(directory, "from-ethers.json"));
      const account = await resolveCliSigner({ keystore: reference, keystoreDir: directory, passwordFile: join(directory, "password"), env: {} });
      expect(account.address).to.equal(wallet.address);
    }
  });

  it("writes a keystore readable by its owner only, never over an existing file; an unknown name lists the folder's keystores", async () => {
    const keystore = await encryptKeystore(KEY_A, "pw", { scrypt: LIGHT });
    const file = writeKeystoreFile(join(directory, "nested"), "operator", keystore);
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    expect(statSync(join(directory, "nested")).mode & 0o777).to.equal(0o700);
    expect(() => writeKeystoreFile(join(directory, "nested"), "operator", keystore)).to.throw(/already exists.*nothing was written/);
    expect(() => writeKeystoreFile(directory, "../escape", keystore)).to.throw(RangeError);
    expect(() => findKeystore("nobody", join(directory, "nested"))).to.throw(KeystoreNotFoundError, /no keystore nobody/).with.property("message").that.contains("operator");
  });

  it("refuses malformed keystores naming the field, and costs beyond the caps naming the parameter, before deriving anything", async () => {
    const good = await encryptKeystore(KEY_A, "pw", { scrypt: LIGHT });
    const cases: [string, unknown, string][] = [
      ["no crypto", { version: 3, id: "x" }, "crypto"],
      ["version 1", { ...good, version: 1 }, "version"],
      ["another cipher", { ...good, crypto: { ...good.crypto, cipher: "aes-128-cbc" } }, "crypto.cipher"],
      ["a short ciphertext", { ...good, crypto: { ...good.crypto, ciphertext: "00" } }, "crypto.ciphertext"],
      ["another address", { ...good, address: "00".repeat(20) }, "address"],
    ];
    for (const [what, keystore, field] of cases) {
      const error = await decryptKeystore(keystore, "pw", "k.json").catch((caught: unknown) => caught);
      expect(error, what).to.be.instanceOf(KeystoreFormatError);
      expect((error as KeystoreFormatError).field, what).to.equal(field);
      expect(String(error), what).to.not.contain(KEY_A.slice(2));
    }
    expect(await decryptKeystore("{not json", "pw").catch((caught: unknown) => caught)).to.be.instanceOf(KeystoreFormatError);
    const costly = (kdfparams: object) => ({ ...good, crypto: { ...good.crypto, kdfparams: { ...good.crypto.kdfparams, ...kdfparams } } });
    for (const [kdfparams, parameter] of [[{ n: 2 ** 20 }, "scrypt n·r"], [{ n: 1000 }, "scrypt n"], [{ p: 64 }, "scrypt p"]] as const) {
      const error = await decryptKeystore(costly(kdfparams), "pw").catch((caught: unknown) => caught);
      expect(error, parameter).to.be.instanceOf(KeystoreKdfError);
      expect((error as KeystoreKdfError).parameter).to.equal(parameter);
    }
  });

  it("signer choice: a keystore's password from a prompt when no file is given; the raw key only with the unsafe flag and never in production; errors carry no secret", async () => {
    writeKeystoreFile(directory, "operator", await encryptKeystore(KEY_A, "typed secret", { scrypt: LIGHT }));
    const asked: string[] = [];
    const account = await resolveCliSigner({ keystore: "operator", keystoreDir: directory, env: {}, prompt: async (question) => (asked.push(question), "typed secret") });
    expect(account.address).to.equal(privateKeyToAccount(KEY_A).address);
    expect(asked).to.deep.equal([`password for ${join(directory, "operator")}: `]);
    const wrong = await resolveCliSigner({ keystore: "operator", keystoreDir: directory, env: {}, prompt: async () => "typed secreT" }).catch((error: unknown) => error);
    expect(wrong).to.be.instanceOf(KeystorePasswordError);
    expect(String(wrong)).to.not.contain("typed secre");

    const warnings: string[] = [];
    const raw = await resolveCliSigner({ unsafePrivateKey: true, env: { OPERATOR_PRIVATE_KEY: KEY_A }, warn: (line) => warnings.push(line) });
    expect(raw.address).to.equal(account.address);
    expect(warnings.join("\n")).to.contain("unsafe").and.not.contain(KEY_A.slice(2));
    expect((await resolveCliSigner({ env: { OPERATOR_PRIVATE_KEY: KEY_A, ALLOW_UNSAFE_PRIVATE_KEY: "true" } })).address).to.equal(account.address);

    const refusals: [string, Parameters<typeof resolveCliSigner>[0], RegExp][] = [
      ["production", { unsafePrivateKey: true, env: { OPERATOR_PRIVATE_KEY: KEY_A, NODE_ENV: "production" } }, /refused when NODE_ENV=production/],
      ["no flag", { env: { OPERATOR_PRIVATE_KEY: KEY_A } }, /signs only with --unsafe-private-key/],
      ["both", { keystore: "operator", keystoreDir: directory, unsafePrivateKey: true, env: { OPERATOR_PRIVATE_KEY: KEY_A } }, /both a keystore and --unsafe-private-key/],
      ["flag without key", { unsafePrivateKey: true, env: {} }, /needs OPERATOR_PRIVATE_KEY/],
      ["malformed key", { unsafePrivateKey: true, env: { OPERATOR_PRIVATE_KEY: `${KEY_A}00` } }, /OPERATOR_PRIVATE_KEY is not a private key/],
      ["nothing", { env: {} }, /no signer chosen/],
      ["bad flag variable", { env: { ALLOW_UNSAFE_PRIVATE_KEY: "yes please" } }, /ALLOW_UNSAFE_PRIVATE_KEY is invalid/],
    ];
    for (const [what, parameters, message] of refusals) {
      const error = await resolveCliSigner(parameters).catch((caught: unknown) => caught);
      expect(error, what).to.be.instanceOf(SignerChoiceError);
      expect(String(error), what).to.match(message).and.not.contain(KEY_A.slice(2));
    }
  });

  it("the hidden prompt refuses a stream that is not a terminal and says to use a password file", async () => {
    const input = new PassThrough() as unknown as NodeJS.ReadStream;
    const error = await promptHidden("password: ", { input, output: new PassThrough() }).catch((caught: unknown) => caught);
    expect(String(error)).to.contain("--password-file");
  });
});
