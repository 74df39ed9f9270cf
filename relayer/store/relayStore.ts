import type { Address, Hex } from "viem";
import type { RelayReason, RelayStatus } from "../../sdk";
import type { UnpaidGasCharged, UnpaidGasEntry, UnpaidGasSubject, UnpaidGasTally, UnpaidGasTotal } from "../ledger/unpaidGas";
import type { PushedStatusStore } from "./pushedStatusStore";

/**
 * Everything the relayer keeps, behind one interface so another engine can replace SQLite. The rule
 * that makes crashes safe: a signed transaction is written here before it is broadcast, so after a
 * crash at any instant the relayer knows every hash that may be on the chain. Each status change
 * also writes its event (webhooks, server-sent events) in the same transaction: PushedStatusStore.
 */
export interface RelayStore extends PushedStatusStore {
  /**
   * Stores a validated relay, or returns the one that already exists for the same quote or the same
   * idempotency key; one transaction, so concurrent hand-offs of one quote create one relay. A
   * `claim` makes the accepting relayer its owner at once.
   */
  createRelay(relay: NewRelay, claim?: Lease): Promise<RelayCreation>;
  /** What `createRelay` would find instead of creating: the relay of this idempotency key or this quote. */
  matchRelay(query: RelayMatchQuery): Promise<RelayCreation | undefined>;
  getRelay(id: string): Promise<RelayRecord | undefined>;
  /** Relays that are not final, oldest first, whoever owns them. */
  listOpenRelays(): Promise<RelayRecord[]>;
  /**
   * Claims open relays that have no owner, or whose owner's lease ran out before `now`, and with
   * `own` those `lease.owner` holds already (a restart), oldest first, at most `limit`: each is claimed by exactly one relayer
   * (`FOR UPDATE SKIP LOCKED` on PostgreSQL). Returns them with the owner they were taken from.
   */
  claimOpenRelays(lease: Lease, now: Date, limit: number, options: { own: boolean }): Promise<ClaimedRelay[]>;
  /** Extends the lease on every open relay `lease.owner` holds; returns how many. */
  renewLeases(lease: Lease): Promise<number>;
  /**
   * Persists a signed transaction before its broadcast, and moves the relay to `submitted`; but only
   * while `fence.owner` holds the relay's lease at `fence.now` (or nobody claimed it), checked in the
   * same transaction as the write. Otherwise nothing is written and the transaction must not be sent:
   * `not_ours` when another relayer claimed the relay, `lapsed` when the claim is still ours but its
   * lease ran out (renewals failing): another relayer may take it at any moment, or a renewal may
   * give it back, so the caller tries again later.
   */
  recordBroadcast(relayId: string, transaction: NewRelayTransaction, fence: BroadcastFence): Promise<BroadcastRecording>;
  /**
   * The integrator's cancellation, decided in one transaction against the relay's state now: a final
   * relay is left as it is (`final`); one never broadcast (no signer and no transaction on record, of
   * any relayer) ends `cancelled` at once, and `recordBroadcast` then refuses it, so whichever of the
   * two commits first wins; any other (a swap pending, or one on record that a relayer sent before it
   * died or before its nonce went elsewhere) is marked (the time of the first request is kept,
   * `cancelling` is set) and stays `submitted`: the caller replaces the swap, or the chain decides
   * (see inFlightCancellation.ts).
   * Undefined when there is no such relay.
   */
  requestCancellation(relayId: string, at: Date): Promise<CancellationRequest | undefined>;
  /**
   * Persists one signed batch transaction on every relay it carries (with the relay's position), in
   * one database transaction, before its broadcast: all of it or nothing. Each member must still be
   * what the caller built the batch from (`expect`): for a first broadcast an open relay with no
   * signer; for a replacement a `submitted` relay on that signer and nonce. A member that changed
   * (ended, cancelled, sent by someone else) or whose lease is not ours refuses the whole write, and
   * the caller rebuilds the batch without it.
   */
  recordBatchBroadcast(batch: BatchRecordingRequest, fence: BroadcastFence): Promise<BatchRecording>;
  /** The relays a batch transaction carries, by position (empty for an unknown hash). */
  batchMembers(hash: Hex): Promise<BatchMember[]>;
  /** The hash of the newest transaction recorded at this signer's nonce, for any relay. */
  latestAtNonce(signer: Address, nonce: number): Promise<Hex | undefined>;
  /** Ends or advances a relay; `minedHash` marks the transaction that was mined (a copier's is added). */
  updateRelay(relayId: string, update: RelayUpdate): Promise<void>;
  /** The deploy block hash of the chain run these relays belong to, if recorded. */
  chainRun(): Promise<Hex | undefined>;
  /** Records the chain run; `forgetRelays` first deletes every relay of the previous one (its chain is gone). */
  setChainRun(deployBlockHash: Hex, options: { forgetRelays: boolean }): Promise<number>;
  /** Highest nonce this relayer ever signed with `signer`, or undefined. */
  highestNonce(signer: Address): Promise<number | undefined>;
  /**
   * Writes one entry of the unpaid-gas ledger: gas the operator paid for a relay with no fee, and who
   * caused it. Idempotent on (txHash, relayId, kind): a crash and a retry, or a second relayer reading
   * the same receipt, never count it twice (the first write wins). True when this call wrote it.
   */
  recordUnpaidGas(entry: UnpaidGasEntry): Promise<boolean>;
  /**
   * Gas charged since `since` to this taker's budget (causes in TAKER_BUDGET_CAUSES) and to this
   * integrator's (INTEGRATOR_BUDGET_CAUSES), leaving out charges an operator cleared.
   */
  unpaidGasCharged(query: { taker: Address; integratorId: number; since: Date }): Promise<UnpaidGasCharged>;
  /**
   * When a subject's budget frees up, one window later: the time of the charge (since `since`, the
   * oldest leaving first) whose leaving brings its charged gas down to `keep` or less. Undefined when
   * it is at or below `keep` already. A budget `b` is spent at `b` or more, so `keep` is `b - 1`.
   */
  unpaidGasReleaseAt(subject: UnpaidGasSubject, query: { since: Date; keep: bigint }): Promise<Date | undefined>;
  /**
   * The ledger summed by cause and kind (cleared charges included: it is what the operator paid),
   * since `since` (all time when absent), of one integrator's relays or of all.
   */
  unpaidGasTotals(query: { since?: Date; integratorId?: number }): Promise<UnpaidGasTotal[]>;
  /** Every taker and integrator with gas charged to its budget since `since` (not cleared), most gas first. */
  listUnpaidGasTallies(since: Date): Promise<UnpaidGasTally[]>;
  /** Clears a taker's or an integrator's charges (kept on record, no longer counted); returns how many. */
  clearUnpaidGas(subject: UnpaidGasSubject): Promise<number>;
  /**
   * Registers `claim.relayerId` as the live user of its signer addresses until `claim.until`, unless
   * another relayer holds one of them and is still live at `claim.now`: then nothing is written and
   * the holders are returned. A relayer's own earlier registration (a restart) is taken over.
   */
  claimSigners(claim: SignerClaim): Promise<SignerHolder[]>;
  /** Extends this relayer's registration of `signers` (its heartbeat); an address it let go is not renewed and lapses. */
  renewSigners(relayerId: string, until: Date, signers: readonly Address[]): Promise<void>;
  /** The addresses registered to this relayer now: one missing was taken by another relayer after its registration lapsed. */
  heldSigners(relayerId: string): Promise<Address[]>;
  /** Whether a relay `relayerId` holds, not yet final, has its transactions on `signer` (its receipt may still be awaited). */
  signerHasOpenRelays(signer: Address, relayerId: string): Promise<boolean>;
  /** Drops this relayer's registration of its signers (a clean stop), or of those given (a signer retired). */
  releaseSigners(relayerId: string, signers?: readonly Address[]): Promise<void>;
  /**
   * The operator's decision on a signer address (`relayer-admin signers drain|resume`): a drained
   * signer takes no new relays on any relayer of this database until resumed. Any address may be
   * set, so a signer can be drained before its relayer starts.
   */
  setSignerState(signer: Address, state: SignerState, at: Date): Promise<void>;
  /**
   * Records a key for running relayers to open (`relayer-admin signers add`), active: the relayer
   * named, or any that has not the address yet, opens it at its next signer-state poll.
   */
  addSignerKey(signer: Address, key: AddedSignerKey, at: Date): Promise<void>;
  /** Every signer with a decision or a report on record, by address. */
  signerStates(): Promise<SignerStateRecord[]>;
  /** What this relayer sees of its signers now (`signers list`); leaves the operator's decision alone. */
  reportSigners(relayerId: string, reports: readonly SignerReport[], at: Date): Promise<void>;
  /**
   * Records a treasury top-up as an intent, with its signed bytes, before it is sent, and returns its id;
   * unless, as seen by every relayer of this database at once, the signer already has one unfinished,
   * the treasury's nonce is taken by an unfinished one, or it would pass the cap: then nothing is written.
   */
  recordTopUp(intent: TopUpIntent, at: Date, cap: TopUpCap): Promise<TopUpRecorded>;
  setTopUpStatus(id: number, status: TopUpStatus, at: Date): Promise<void>;
  /** Top-ups created at or after `since` (all without it), newest first, at most `limit` (default 1000). */
  topUps(query?: { since?: Date; limit?: number }): Promise<TopUpRecord[]>;
  /** Top-ups still `intent` or `sent`, oldest first: the treasury's reconciliation reads them. */
  unfinishedTopUps(): Promise<TopUpRecord[]>;
  /** A cheap round trip, for readiness. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type CancellationRequest = { decision: CancellationDecision; relay: RelayRecord };
export type CancellationDecision = "final" | "cancelled" | "cancelling";


/** Which signer addresses a relayer uses, and until when it counts as live unless it renews. */
export type SignerClaim = { relayerId: string; signers: readonly Address[]; until: Date; now: Date };
export type SignerHolder = { signer: Address; relayerId: string; until: Date };

/** A treasury top-up: `intent` signed and recorded, not known sent; `sent`; `mined`; `failed` (reverted or replaced). */
export type TopUpStatus = "intent" | "sent" | "mined" | "failed";
export type TopUpIntent = { signer: Address; treasury: Address; amountWei: bigint; nonce: number; rawTx: Hex; txHash: Hex };
export type TopUpRecord = TopUpIntent & { id: number; status: TopUpStatus; createdAt: Date; updatedAt: Date };
/** The treasury's daily cap: what its top-ups not failed since `since` may add up to, this one included. */
export type TopUpCap = { capWei: bigint; since: Date };
/** A top-up written, or why not: `unfinished` (the signer has one), `nonce` (another holds the treasury's nonce), `cap` (with what the window already holds). */
export type TopUpRecorded = { id: number } | { refused: "unfinished" | "nonce" } | { refused: "cap"; spentWei: bigint };

/**
 * `drained`: no new relays (it finishes its pending ones); `retired`: drained, and once it has nothing
 * in flight its relayer closes its key and lets it go; `active`: the default.
 */
export type SignerState = "active" | "drained" | "retired";
/** A key an operator added to running relayers: its RELAYER_SIGNERS entry, and the relayer meant to open it (undefined: any). */
export type AddedSignerKey = { entry: string; relayerId: string | undefined };
export type SignerReport = { signer: Address; backend: string; balanceWei: bigint | undefined; pending: number; dailySpendWei: bigint };
export type SignerStateRecord = {
  signer: Address;
  state: SignerState;
  stateChangedAt: Date | undefined;
  /** Set when an operator added the key (`signers add`): relayers open it while they run. */
  added: AddedSignerKey | undefined;
  /** The last report of the relayer holding it, if one did. */
  report: (Omit<SignerReport, "signer"> & { relayerId: string; at: Date }) | undefined;
};

/** A relayer's hold on relays: its id (`RELAYER_ID`) and when the hold ends unless renewed. */
export type Lease = { owner: string; until: Date };

/** Who records a broadcast, and when: the lease it must still hold. */
export type BroadcastFence = { owner: string; now: Date };
export type BroadcastRecording = "recorded" | BroadcastRefusal;
export type LeaseRefusal = "not_ours" | "lapsed";
/** `ended`: the relay is final (cancelled first, say), or it is a swap of a relay whose cancellation was asked. */
export type BroadcastRefusal = LeaseRefusal | "ended";

/** A relay's place in a batch transaction. */
export type BatchMember = { relayId: string; position: number };
/** What every member must still be when the batch is recorded. */
export type BatchExpectation = { kind: "unsent" } | { kind: "pending"; signer: Address; nonce: number };
export type BatchRecordingRequest = { transaction: NewRelayTransaction; members: readonly BatchMember[]; expect: BatchExpectation };
export type BatchRefusal = LeaseRefusal | "changed";
export type BatchRecording = { outcome: "recorded" } | { outcome: "refused"; refused: { relayId: string; refusal: BatchRefusal }[] };

export type ClaimedRelay = { relay: RelayRecord; previousOwner: string | undefined };

export type NewRelay = {
  id: string;
  chainId: number;
  quoteId: string;
  onchainQuoteId: Hex;
  integratorId: number;
  apiKeyId: number;
  idempotencyKey: string | undefined;
  taker: Address;
  router: Address;
  data: Hex;
  signature: Hex;
  permit2Nonce: bigint;
  deadline: bigint;
  estimatedGas: number;
  /**
   * What the signed relayer fee was worth in wei when quoted (it covers the gas limit at that gas
   * price); undefined when the operator sponsors gas (no fee, no loss check).
   */
  feeWei?: bigint | undefined;
  /** The chain head when the relay was accepted: a copier's fill is looked for from here on. */
  acceptedBlock: bigint;
  createdAt: Date;
};

export type RelayTransaction = {
  hash: Hex;
  kind: "swap" | "cancel";
  signer: Address;
  nonce: number;
  /** The signed transaction; absent for a copier's fill, which we did not sign. */
  raw: Hex | undefined;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  sentAt: Date;
  mined: boolean;
  /** For a batch transaction (`swapGaslessBatch`, or a cancel replacing one): this relay's position and the batch's size. */
  batch?: BatchSlot | undefined;
};

export type BatchSlot = { position: number; size: number };

export type NewRelayTransaction = Omit<RelayTransaction, "mined">;

export type RelayRecord = NewRelay & {
  status: RelayStatus;
  reason: RelayReason | undefined;
  error: string | undefined;
  /** The signer and nonce this relay's transactions use, once assigned. */
  signer: Address | undefined;
  signerNonce: number | undefined;
  /** The deadline passed or a cancellation was asked: no more swaps; a cancel at the same nonce frees it. */
  cancelling: boolean;
  /** When the integrator asked to cancel it (the first request). */
  cancelRequestedAt: Date | undefined;
  /** The relayer working on it, and until when (absent: nobody yet). */
  claimedBy: string | undefined;
  leaseUntil: Date | undefined;
  transactions: RelayTransaction[];
  updatedAt: Date;
};

export type RelayUpdate = {
  status?: RelayStatus;
  reason?: RelayReason;
  error?: string;
  cancelling?: boolean;
  /** Forget the signer and nonce (their nonce went to something else); the relay is broadcast anew. */
  releaseSigner?: boolean;
  mined?: { hash: Hex; foreign?: { from: Address; nonce: number } };
  at: Date;
};

export type RelayMatchQuery = Pick<NewRelay, "chainId" | "quoteId" | "integratorId" | "idempotencyKey" | "signature">;

export type RelayCreation =
  | { outcome: "created" | "existing"; relay: RelayRecord }
  | { outcome: "idempotency_conflict" | "quote_conflict"; relay: RelayRecord };
