import { SdkError } from "./base";

/** A file that is not a Web3 Secret Storage (version 3) keystore: names the field that is wrong. */
export class KeystoreFormatError extends SdkError {
  override name = "KeystoreFormatError";
  constructor(
    readonly source: string,
    readonly field: string,
    problem: string,
  ) {
    super(`${source} is not a usable Web3 Secret Storage v3 keystore: ${field} ${problem}`, {
      details: "Keystores written by geth, `cast wallet new`/`import`, ethers' encryptKeystoreJson and `npm run keystore` are all this format (scrypt or pbkdf2, aes-128-ctr).",
    });
  }
}

/** The key-derivation parameters of a keystore are outside what this module derives (a cost cap, or scrypt's own rule). */
export class KeystoreKdfError extends SdkError {
  override name = "KeystoreKdfError";
  constructor(
    readonly parameter: string,
    problem: string,
  ) {
    super(`keystore key derivation refused: ${parameter} ${problem}`, {
      details: "Re-encrypt the key with standard parameters (scrypt n=262144 r=8 p=1, as geth and `npm run keystore` write them).",
    });
  }
}

/** The MAC does not match: the password is wrong (or the file was altered). Never says more than that. */
export class KeystorePasswordError extends SdkError {
  override name = "KeystorePasswordError";
  constructor(readonly source: string) {
    super(`wrong password for ${source} (the keystore's MAC does not match)`, {
      details: "Check the password file (one trailing newline is ignored) or type the password again.",
    });
  }
}

/** `--keystore <name>` names no file in the keystore folder, and no file at that path. */
export class KeystoreNotFoundError extends SdkError {
  override name = "KeystoreNotFoundError";
  constructor(
    readonly reference: string,
    readonly directory: string,
    known: readonly string[],
  ) {
    super(`no keystore ${reference}: not a file, and not a name in ${directory}`, {
      details:
        known.length === 0
          ? `The folder has no keystores: create one with \`npm run keystore -- new <name> --dir ${directory}\` or import a key with \`npm run keystore -- import <name>\`.`
          : `Keystores in that folder: ${known.join(", ")}. Pass a path, one of these names, or --keystore-dir <folder>.`,
    });
  }
}

/** The command line (or environment) does not choose a signer the way this run allows. */
export class SignerChoiceError extends SdkError {
  override name = "SignerChoiceError";
  constructor(problem: string, whatToDo: string) {
    super(problem, { details: whatToDo });
  }
}
