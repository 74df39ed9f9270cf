import type { Logger } from "pino";
import type { Address, PublicClient } from "viem";
import type { RelayerConfig } from "../config";
import type { RelayerMetrics } from "../relayerMetrics";
import type { KeyBackend } from "../signing/keyBackend";
import { openKeyBackend } from "../signing/openKeyBackends";
import { policedAccount } from "../signing/policedAccount";
import { SignerSpend } from "../signing/signerSpend";
import { parseSignerSpecs, type SignerSpec } from "../signing/signerSpecs";
import { SigningHealth } from "../signing/signingHealth";
import type { SigningPolicy } from "../signing/signingPolicy";
import type { RelayStore, SignerStateRecord } from "../store/relayStore";
import { NonceTracker } from "./nonceTracker";
import type { Signer, SignerPool } from "./signerPool";
import { errorSummary } from "../../sdk/errors/errorSummary";

export type SignerRosterDeps = Readonly<{
  client: PublicClient;
  store: RelayStore;
  config: RelayerConfig;
  logger: Logger;
  pool: SignerPool;
  policy: SigningPolicy;
  /** The treasury key's address: never a signer (it would pay itself). */
  treasury: Address | undefined;
  metrics?: RelayerMetrics;
  now: () => Date;
}>;

/**
 * Who signs for this relayer, as it changes while it runs: the keys of RELAYER_SIGNERS at start, the
 * keys an operator adds (`relayer-admin signers add`, opened at the next signer-state poll), the
 * letting go of a retired signer once nothing of it is in flight, and its reopening when resumed. It owns every signer key it opened
 * and closes it when the signer goes or the relayer stops.
 */
export class SignerRoster {
  readonly #backends = new Map<string, KeyBackend>();
  /** Every key entry this relayer opened, by address, kept after a retirement for a resume. */
  readonly #specs = new Map<string, SignerSpec>();
  /** Drained or retired keys with relays open on them at start that are not open yet: tried again at each poll. */
  readonly #finishing = new Set<string>();
  /** The last failure logged per added key, so a key that cannot open is logged once per cause, not every poll. */
  readonly #failures = new Map<string, string>();

  constructor(private readonly deps: SignerRosterDeps) {}

  /** Takes an opened key into the roster's keeping (it closes it), before any await can fail its start. */
  hold(backend: KeyBackend, spec: SignerSpec): void {
    this.#backends.set(backend.address.toLowerCase(), backend);
    this.#specs.set(backend.address.toLowerCase(), spec);
  }

  /**
   * Puts an opened key to work: its nonces read from the chain and from our records (a transaction we
   * signed may not have reached the node before a crash), the signing policy in front of it. The key's
   * entry is remembered, so a retired signer that is resumed opens again. `drained`: it joins drained
   * (a key opened only to finish its relays).
   */
  async enrol(backend: KeyBackend, spec: SignerSpec, options: { drained?: boolean } = {}): Promise<Signer> {
    const { client, store, config, policy, pool } = this.deps;
    this.hold(backend, spec);
    const { address } = backend;
    const pending = await client.getTransactionCount({ address, blockTag: "pending" });
    const nonces = new NonceTracker(pending, await store.highestNonce(address));
    const spend = new SignerSpend(config.dailySpendCapWei);
    const signing = new SigningHealth((digest) => backend.signDigest(digest));
    policy.addSigner(address);
    const account = policedAccount(backend, policy, { nextNonce: () => nonces.next, spend, health: signing });
    return pool.add({ account, nonces, spend, backend: backend.kind, signing, drained: options.drained === true });
  }

  /**
   * Opens the keys the operator's records ask of this relayer that it does not hold: an added key meant
   * for it (named, or any relayer), and one of its own retired earlier and resumed since. A drained or
   * retired key is opened only when found at start (`initial`) with relays of this relayer open on it
   * (tried again at each poll until it opens or they end): it joins drained, finishes them, and a
   * retired one is let go again. Returns the signers opened.
   */
  async admit(records: readonly SignerStateRecord[], initial: boolean): Promise<Signer[]> {
    const { config, pool, store } = this.deps;
    const now = this.deps.now().getTime();
    const opened: Signer[] = [];
    for (const record of records) {
      if (pool.bySigner(record.signer) !== undefined) continue;
      const added = record.added !== undefined && (record.added.relayerId === undefined || record.added.relayerId === config.relayerId) ? record.added.entry : undefined;
      const known = this.#specs.get(record.signer.toLowerCase());
      if (added === undefined && known === undefined) continue;
      if (record.state !== "active") {
        // Found at start with relays open on it (or tried then and failed): opened until it succeeds or they end.
        const retrying = this.#finishing.has(record.signer.toLowerCase());
        if (!initial && !retrying) continue;
        if (!(await store.signerHasOpenRelays(record.signer, config.relayerId))) {
          this.#finishing.delete(record.signer.toLowerCase());
          continue;
        }
        this.#finishing.add(record.signer.toLowerCase());
      }
      // Another relayer reported it within a lease: it holds the key, and a claim would only take a lock to learn so.
      const report = record.report;
      if (report !== undefined && report.relayerId !== config.relayerId && now - report.at.getTime() < config.leaseSeconds * 1000) continue;
      const signer = await this.#open(record.signer, () => (added === undefined ? known! : parseSignerSpecs(added)[0]!), record.state !== "active");
      if (signer === undefined) continue;
      this.#finishing.delete(record.signer.toLowerCase());
      opened.push(signer);
    }
    return opened;
  }

  /**
   * Claims the address, then opens the key: the claim comes first, so two relayers polling together
   * never both sign with it. A key that cannot be opened is logged at warn (once per cause), its claim
   * let go, and tried again at the next poll.
   */
  async #open(address: Address, spec: () => SignerSpec, drained: boolean): Promise<Signer | undefined> {
    const { store, config, logger, treasury } = this.deps;
    if (treasury !== undefined && treasury.toLowerCase() === address.toLowerCase()) {
      this.#failed(address, "it is this relayer's treasury key (RELAYER_TREASURY_SIGNER): the treasury is a key of its own");
      return undefined;
    }
    const now = this.deps.now();
    const holders = await store.claimSigners({ relayerId: config.relayerId, signers: [address], until: new Date(now.getTime() + config.leaseSeconds * 1000), now });
    if (holders.length > 0) return undefined;
    let backend: KeyBackend | undefined;
    const knownBefore = this.#specs.has(address.toLowerCase());
    try {
      const entry = spec();
      backend = await openKeyBackend(entry, { production: config.production });
      if (backend.address.toLowerCase() !== address.toLowerCase()) throw new Error(`the entry opens ${backend.address}, not ${address}`);
      const signer = await this.enrol(backend, entry, { drained });
      this.#failures.delete(address.toLowerCase());
      if (drained) logger.info({ signer: address, backend: backend.kind }, "signer opened drained to finish its open relays; it takes no new ones");
      else logger.info({ signer: address, backend: backend.kind, key: backend.description }, "signer opened at the operator's word (signers add or resume): it takes relays now");
      return signer;
    } catch (error) {
      if (backend !== undefined) {
        if (this.#backends.get(address.toLowerCase()) === backend) this.#backends.delete(address.toLowerCase());
        await backend.close().catch(() => undefined);
      }
      // An added entry that failed is not this relayer's to remember: the operator may give it to another.
      if (!knownBefore) this.#specs.delete(address.toLowerCase());
      await store.releaseSigners(config.relayerId, [address]).catch(() => undefined);
      this.#failed(address, errorSummary(error));
      return undefined;
    }
  }

  #failed(address: Address, reason: string): void {
    if (this.#failures.get(address.toLowerCase()) === reason) return;
    this.#failures.set(address.toLowerCase(), reason);
    this.deps.logger.warn({ signer: address, reason }, "cannot open a signer key the operator asked for; trying again at each signer-state poll (fix the entry with `relayer-admin signers add`, or retire the address)");
  }

  /**
   * Lets a signer go (retired by the operator, or its address taken by another relayer: `release`
   * false) once nothing of it is in flight: no nonce held or reserved, and no open relay on it (a swap
   * mined but not yet confirmed is still followed through its signer). Out of the pool and the signing
   * policy, its address released, its key closed. Returns whether it went. The last check and the
   * removal run under the signer's lock, so no send or gap fill of it runs in between or after.
   */
  async retire(signer: Signer, options: { release: boolean } = { release: true }): Promise<boolean> {
    const { store, config, logger, pool, policy, metrics } = this.deps;
    if (signer.nonces.inFlight > 0 || signer.reserved > 0) return false;
    const address = signer.address.toLowerCase();
    if (await store.signerHasOpenRelays(signer.address, config.relayerId)) return false;
    const letGo = await signer.exclusive(async () => {
      if (signer.nonces.inFlight > 0 || signer.reserved > 0 || pool.bySigner(signer.address) !== signer) return false;
      pool.remove(signer);
      policy.removeSigner(signer.address);
      return true;
    });
    if (!letGo) return false;
    const backend = this.#backends.get(address);
    this.#backends.delete(address);
    for (const gauge of [metrics?.signerBalance, metrics?.signerBelowFloor, metrics?.signerSigningFailing, metrics?.signerDrained, metrics?.nonceLag]) gauge?.remove({ signer: signer.address });
    await backend?.close().catch((error: unknown) => logger.warn({ signer: signer.address, err: errorSummary(error) }, "could not close a retired signer's key"));
    if (options.release) {
      // Not renewed from now on either: a failed release lapses after RELAYER_LEASE_SECONDS.
      await store.releaseSigners(config.relayerId, [signer.address]).catch((error: unknown) => logger.warn({ signer: signer.address, err: errorSummary(error) }, "could not release a retired signer's address; it frees up after RELAYER_LEASE_SECONDS"));
    }
    logger.info({ signer: signer.address }, options.release ? "signer retired: nothing of it is in flight; its key is closed and it takes no relays until resumed" : "signer let go: another relayer holds its address now; its key is closed");
    return true;
  }

  /** Closes every key still open (the relayer stops). */
  async close(): Promise<void> {
    const backends = [...this.#backends.values()];
    this.#backends.clear();
    await Promise.all(backends.map((backend) => backend.close()));
  }
}
