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
  /** The last failure logged per added key, so a key that cannot open is logged once per cause, not every poll. */
  readonly #failures = new Map<string, string>();

  constructor(private readonly deps: SignerRosterDeps) {}

  /**
   * Puts an opened key to work: its nonces read from the chain and from our records (a transaction we
   * signed may not have reached the node before a crash), the signing policy in front of it. The key's
   * entry is remembered, so a retired signer that is resumed opens again.
   */
  async enrol(backend: KeyBackend, spec: SignerSpec): Promise<Signer> {
    const { client, store, config, policy, pool } = this.deps;
    const { address } = backend;
    const pending = await client.getTransactionCount({ address, blockTag: "pending" });
    const nonces = new NonceTracker(pending, await store.highestNonce(address));
    const spend = new SignerSpend(config.dailySpendCapWei);
    const signing = new SigningHealth((digest) => backend.signDigest(digest));
    policy.addSigner(address);
    this.#backends.set(address.toLowerCase(), backend);
    this.#specs.set(address.toLowerCase(), spec);
    return pool.add({ account: policedAccount(backend, policy, { nextNonce: () => nonces.next, spend, health: signing }), nonces, spend, backend: backend.kind, signing });
  }

  /**
   * Opens the keys the operator's records ask of this relayer that it does not hold: an added key meant
   * for it (named, or any relayer), and one of its own retired earlier and resumed since. Retired ones
   * stay shut. Returns the signers opened.
   */
  async admit(records: readonly SignerStateRecord[]): Promise<Signer[]> {
    const { config, pool } = this.deps;
    const now = this.deps.now().getTime();
    const opened: Signer[] = [];
    for (const record of records) {
      if (record.state === "retired" || pool.bySigner(record.signer) !== undefined) continue;
      // Another relayer reported it within a lease: it holds the key, and a claim would only take a lock to learn so.
      const report = record.report;
      if (report !== undefined && report.relayerId !== config.relayerId && now - report.at.getTime() < config.leaseSeconds * 1000) continue;
      const added = record.added !== undefined && (record.added.relayerId === undefined || record.added.relayerId === config.relayerId) ? record.added.entry : undefined;
      const known = this.#specs.get(record.signer.toLowerCase());
      if (added === undefined && known === undefined) continue;
      const signer = await this.#open(record.signer, () => (added === undefined ? known! : parseSignerSpecs(added)[0]!));
      if (signer !== undefined) opened.push(signer);
    }
    return opened;
  }

  /**
   * Claims the address, then opens the key: the claim comes first, so two relayers polling together
   * never both sign with it. A key that cannot be opened is logged at warn (once per cause), its claim
   * let go, and tried again at the next poll.
   */
  async #open(address: Address, spec: () => SignerSpec): Promise<Signer | undefined> {
    const { store, config, logger, treasury } = this.deps;
    if (treasury !== undefined && treasury.toLowerCase() === address.toLowerCase()) {
      this.#failed(address, "it is this relayer's treasury key (RELAYER_TREASURY_SIGNER): the treasury is a key of its own");
      return undefined;
    }
    const now = this.deps.now();
    const holders = await store.claimSigners({ relayerId: config.relayerId, signers: [address], until: new Date(now.getTime() + config.leaseSeconds * 1000), now });
    if (holders.length > 0) return undefined;
    let backend: KeyBackend | undefined;
    try {
      const entry = spec();
      backend = await openKeyBackend(entry, { production: config.production });
      if (backend.address.toLowerCase() !== address.toLowerCase()) throw new Error(`the entry opens ${backend.address}, not ${address}`);
      const signer = await this.enrol(backend, entry);
      this.#failures.delete(address.toLowerCase());
      logger.info({ signer: address, backend: backend.kind, key: backend.description }, "signer opened at the operator's word (signers add or resume): it takes relays now");
      return signer;
    } catch (error) {
      if (backend !== undefined && this.#backends.get(address.toLowerCase()) !== backend) await backend.close();
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
   * Lets a retired signer go once nothing of it is in flight (no nonce held, none reserved): out of the
   * pool and the signing policy, its address released to other relayers, its key closed. Returns
   * whether it went. The check and the removal run in one tick, so no relay can lease it in between.
   */
  async retire(signer: Signer): Promise<boolean> {
    const { store, config, logger, pool, policy, metrics } = this.deps;
    if (signer.nonces.inFlight > 0 || signer.reserved > 0) return false;
    pool.remove(signer);
    policy.removeSigner(signer.address);
    const key = signer.address.toLowerCase();
    const backend = this.#backends.get(key);
    this.#backends.delete(key);
    for (const gauge of [metrics?.signerBalance, metrics?.signerBelowFloor, metrics?.signerSigningFailing, metrics?.signerDrained, metrics?.nonceLag]) gauge?.remove({ signer: signer.address });
    await store.releaseSigners(config.relayerId, [signer.address]).catch((error: unknown) => logger.warn({ signer: signer.address, err: errorSummary(error) }, "could not release a retired signer's address; it frees up after RELAYER_LEASE_SECONDS"));
    await backend?.close();
    logger.info({ signer: signer.address }, "signer retired: nothing of it is in flight; its key is closed and it takes no relays until resumed");
    return true;
  }

  /** Closes every key still open (the relayer stops). */
  async close(): Promise<void> {
    const backends = [...this.#backends.values()];
    this.#backends.clear();
    await Promise.all(backends.map((backend) => backend.close()));
  }
}
