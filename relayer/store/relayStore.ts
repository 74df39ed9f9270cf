import type { Address, Hex } from "viem";
import type { RelayReason, RelayStatus } from "../../sdk";

/**
 * Everything the relayer keeps, behind one interface so another engine can replace SQLite. The rule
 * that makes crashes safe: a signed transaction is written here before it is broadcast, so after a
 * crash at any instant the relayer knows every hash that may be on the chain.
 */
export interface RelayStore {
  /**
   * Stores a validated relay, or returns the one that already exists for the same quote or the same
   * idempotency key; one transaction, so concurrent hand-offs of one quote create one relay.
   */
  createRelay(relay: NewRelay): RelayCreation;
  /** What `createRelay` would find instead of creating: the relay of this idempotency key or this quote. */
  matchRelay(query: RelayMatchQuery): RelayCreation | undefined;
  getRelay(id: string): RelayRecord | undefined;
  /** Relays that are not final, oldest first: what a restarted relayer must finish. */
  listOpenRelays(): RelayRecord[];
  /** Persists a signed transaction before its broadcast, and moves the relay to `submitted`. */
  recordBroadcast(relayId: string, transaction: NewRelayTransaction): void;
  /** Ends or advances a relay; `minedHash` marks the transaction that was mined (a copier's is added). */
  updateRelay(relayId: string, update: RelayUpdate): void;
  /** The deploy block hash of the chain run these relays belong to, if recorded. */
  chainRun(): Hex | undefined;
  /** Records the chain run; `forgetRelays` first deletes every relay of the previous one (its chain is gone). */
  setChainRun(deployBlockHash: Hex, options: { forgetRelays: boolean }): number;
  /** Highest nonce this relayer ever signed with `signer`, or undefined. */
  highestNonce(signer: Address): number | undefined;
  close(): void;
}

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
};

export type NewRelayTransaction = Omit<RelayTransaction, "mined">;

export type RelayRecord = NewRelay & {
  status: RelayStatus;
  reason: RelayReason | undefined;
  error: string | undefined;
  /** The signer and nonce this relay's transactions use, once assigned. */
  signer: Address | undefined;
  signerNonce: number | undefined;
  /** The deadline passed: no more bumps; a cancel at the same nonce frees it. */
  cancelling: boolean;
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
