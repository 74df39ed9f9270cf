import type { Address, LocalAccount } from "viem";
import { NonceTracker } from "./nonceTracker";
import type { SignerSpend } from "../signing/signerSpend";
import { SigningHealth } from "../signing/signingHealth";

/** One relayer key, its exact nonces, and a lock that keeps sign-persist-send of its transactions in nonce order. */
export type Signer = {
  /** Signs through the signing policy (relayer/signing/policedAccount.ts), whatever backend holds the key. */
  readonly account: LocalAccount;
  readonly address: Address;
  readonly nonces: NonceTracker;
  /** Its spending against the daily cap: exhausted, no new work is given to it. */
  readonly spend: SignerSpend;
  /** The key backend's kind (pkcs11, keystore, unsafe), for the operator's list. */
  readonly backend: string;
  /** Whether its key backend signs: failing, no new work is given to it (relayer/signing/signingHealth.ts). */
  readonly signing: SigningHealth;
  /** False while the balance is below the floor: no new work is given to it. */
  funded: boolean;
  /** The balance at the last check, undefined before the first. */
  balance: bigint | undefined;
  /** Drained by the operator (relayer-admin, read from the store): no new work; it finishes its pending ones. */
  drained: boolean;
  /** Its address was taken by another relayer (this one's registration lapsed): drained, and no nonce repair of it here. */
  lost: boolean;
  /** Leased for a broadcast whose nonce is not allocated yet; counts against the signer's room. */
  reserved: number;
  /** Runs `work` alone for this signer, after every earlier call finished. */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
};

export type SignerKey = { account: LocalAccount; nonces: NonceTracker; spend: SignerSpend; backend?: string; signing?: SigningHealth; drained?: boolean };

function createSigner({ account, nonces, spend, backend, signing, drained }: SignerKey): Signer {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    account,
    address: account.address,
    nonces,
    spend,
    backend: backend ?? "local",
    // Without a backend's own health (a test's bare account): probing signs through the account itself.
    signing: signing ?? new SigningHealth((digest) => account.sign!({ hash: digest })),
    funded: true,
    balance: undefined,
    drained: drained === true,
    lost: false,
    reserved: 0,
    exclusive<T>(work: () => Promise<T>): Promise<T> {
      const run = tail.then(work, work);
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

/**
 * The relayer's signers. New work goes to the funded, undrained signer with the fewest transactions in flight,
 * so no signer idles while another has a backlog; each signer pipelines up to `maxPendingPerSigner`
 * transactions. When all are full, `lease` waits for the next release.
 */
export class SignerPool {
  // Replaced, never changed in place: a loop over `signers` across awaits sees one list throughout.
  #signers: readonly Signer[];
  readonly #waiters: (() => void)[] = [];

  constructor(
    keys: readonly SignerKey[],
    private readonly maxPendingPerSigner: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#signers = keys.map(createSigner);
  }

  /** The signers now: those named at start, plus those an operator added, minus those retired since. */
  get signers(): readonly Signer[] {
    return this.#signers;
  }

  /** How many transactions the signers may have in flight together. */
  get capacity(): number {
    return this.#signers.length * this.maxPendingPerSigner;
  }

  /** A key opened while the relayer runs (relayer-admin signers add) joins, and the waiters look again. */
  add(key: SignerKey): Signer {
    const signer = createSigner(key);
    this.#signers = [...this.#signers, signer];
    this.notify();
    return signer;
  }

  /** A retired signer with nothing in flight leaves the pool. */
  remove(signer: Signer): void {
    this.#signers = this.#signers.filter((other) => other !== signer);
  }

  bySigner(address: Address): Signer | undefined {
    return this.signers.find((signer) => signer.address.toLowerCase() === address.toLowerCase());
  }

  /** The least busy funded, undrained, signing signer with room and spend left, or undefined when none has any. */
  tryLease(): Signer | undefined {
    let best: Signer | undefined;
    for (const signer of this.signers) {
      const load = signer.nonces.inFlight + signer.reserved;
      if (!signer.funded || signer.drained || signer.signing.failing || load >= this.maxPendingPerSigner || signer.spend.exhausted(this.now())) continue;
      if (best === undefined || load < best.nonces.inFlight + best.reserved) best = signer;
    }
    return best;
  }

  /**
   * Waits until a signer has room and reserves one place on it (taken in the same tick as the choice,
   * so concurrent leases spread out); `unreserve` gives it back once the nonce is allocated or the
   * broadcast is abandoned.
   */
  async lease(): Promise<Signer> {
    for (;;) {
      const signer = this.tryLease();
      if (signer !== undefined) {
        signer.reserved++;
        return signer;
      }
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  unreserve(signer: Signer): void {
    signer.reserved--;
    this.notify();
  }

  /** A nonce was freed somewhere (mined, released, or a signer refunded): wake the waiters to look again. */
  notify(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
