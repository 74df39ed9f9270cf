import type { Address } from "viem";
import type { SigningRefusalReason } from "./signingRules";

/** The signing policy refused a transaction: nothing was signed, and the nonce it named is unused. */
export class SigningRefusedError extends Error {
  override readonly name = "SigningRefusedError";
  constructor(
    readonly signer: Address,
    readonly reason: SigningRefusalReason,
    readonly detail: string,
  ) {
    super(`the signing policy refused a transaction of ${signer}: ${reason} (${detail})`);
  }
}
