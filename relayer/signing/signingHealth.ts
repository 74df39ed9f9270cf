import { keccak256, stringToHex, type Hex } from "viem";
import { errorSummary } from "../../sdk/errors/errorSummary";

/**
 * The digest a failing signer is asked to sign to find out whether its key backend works again. A
 * fixed text's hash, never a transaction's signing hash (those hash RLP that starts with a type byte),
 * so the signature authorises nothing; it is thrown away.
 */
export const SIGNING_PROBE_DIGEST: Hex = keccak256(stringToHex("token-swap relayer: signing-health probe (authorises nothing)"));

/**
 * Whether a signer's key backend produces signatures: the outcome of its last signature (a relay's,
 * a cancel's, a probe's). A backend that cannot sign (a PKCS#11 session that cannot be reopened: the
 * HSM down, its PIN changed, the key gone) makes the signer take no new relays, `/ready` names it, and
 * with no signer left that signs `/ready` is 503. The signer upkeep probes a failing signer at each
 * check (`probe`), so it comes back without a relay having to fail on it first. The signing policy's
 * refusals are not counted here: they say nothing about the backend.
 */
export class SigningHealth {
  #error: string | undefined;
  #since: Date | undefined;

  constructor(private readonly signProbe: (digest: Hex) => Promise<unknown>) {}

  /** True from a failed signature until the next one that succeeds. */
  get failing(): boolean {
    return this.#error !== undefined;
  }

  /** The last failure's first line and since when the signer has failed, while it fails. */
  get failure(): { error: string; since: Date } | undefined {
    return this.#error === undefined ? undefined : { error: this.#error, since: this.#since! };
  }

  /** Records a signature's outcome; true when it changed whether the signer fails. */
  record(outcome: { ok: true } | { ok: false; error: unknown }, at: Date = new Date()): boolean {
    const wasFailing = this.failing;
    if (outcome.ok) {
      this.#error = undefined;
      this.#since = undefined;
    } else {
      this.#error = errorSummary(outcome.error);
      this.#since ??= at;
    }
    return wasFailing !== this.failing;
  }

  /** Runs one signature (`sign`), recording its outcome; a failure is rethrown. */
  async track<T>(sign: () => Promise<T>): Promise<T> {
    try {
      const signature = await sign();
      this.record({ ok: true });
      return signature;
    } catch (error) {
      this.record({ ok: false, error });
      throw error;
    }
  }

  /** Asks the backend for a signature of SIGNING_PROBE_DIGEST; true when it signed. */
  async probe(): Promise<boolean> {
    return this.track(() => this.signProbe(SIGNING_PROBE_DIGEST)).then(
      () => true,
      () => false,
    );
  }
}
