import type { Selectable } from "kysely";
import { getAddress, type Hex } from "viem";
import { isFinalRelayStatus, type RelayReason } from "../../sdk";
import type { RelaysTable, RelayTransactionsTable } from "./relaySchema";
import type { BatchExpectation, BatchRefusal, BroadcastFence, CancellationDecision, LeaseRefusal, NewRelay, RelayRecord, RelayTransaction } from "./relayStore";

/** A `relays` row as both engines return it: times in milliseconds, addresses lowercase, amounts as text. */
export type RelayRow = Selectable<RelaysTable>;

export type TransactionRow = Selectable<RelayTransactionsTable>;

export function relayParams(relay: NewRelay, claim: { owner: string; until: Date } | undefined) {
  return {
    id: relay.id,
    chain_id: relay.chainId,
    quote_id: relay.quoteId,
    onchain_quote_id: relay.onchainQuoteId.toLowerCase(),
    integrator_id: relay.integratorId,
    api_key_id: relay.apiKeyId,
    idempotency_key: relay.idempotencyKey ?? null,
    taker: relay.taker.toLowerCase(),
    router: relay.router.toLowerCase(),
    data: relay.data.toLowerCase(),
    signature: relay.signature.toLowerCase(),
    permit2_nonce: relay.permit2Nonce.toString(),
    deadline: Number(relay.deadline),
    estimated_gas: relay.estimatedGas,
    fee_wei: relay.feeWei === undefined ? null : relay.feeWei.toString(),
    accepted_block: Number(relay.acceptedBlock),
    claimed_by: claim?.owner ?? null,
    lease_until: claim?.until.getTime() ?? null,
    created_at: relay.createdAt.getTime(),
  };
}

export function transactionParams(relayId: string, transaction: RelayTransaction) {
  return {
    hash: transaction.hash.toLowerCase(),
    relay_id: relayId,
    kind: transaction.kind,
    signer: transaction.signer.toLowerCase(),
    nonce: transaction.nonce,
    raw: transaction.raw ?? null,
    max_fee_per_gas: transaction.maxFeePerGas.toString(),
    max_priority_fee_per_gas: transaction.maxPriorityFeePerGas.toString(),
    sent_at: transaction.sentAt.getTime(),
    mined: Number(transaction.mined),
    batch_position: transaction.batch?.position ?? null,
    batch_size: transaction.batch?.size ?? null,
  };
}

/** What `updateRelay` records for a copier's fill: a transaction we did not sign. */
export function foreignFill(hash: Hex, foreign: { from: string; nonce: number }, at: Date): RelayTransaction {
  return { hash, kind: "swap", signer: getAddress(foreign.from), nonce: foreign.nonce, raw: undefined, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, sentAt: at, mined: true };
}

export function transactionFromRow(row: TransactionRow): RelayTransaction {
  return {
    hash: row.hash as Hex,
    kind: row.kind,
    signer: getAddress(row.signer),
    nonce: row.nonce,
    raw: (row.raw ?? undefined) as Hex | undefined,
    maxFeePerGas: BigInt(row.max_fee_per_gas),
    maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas),
    sentAt: new Date(row.sent_at),
    mined: row.mined === 1,
    batch: row.batch_position === null || row.batch_position === undefined || row.batch_size === null || row.batch_size === undefined ? undefined : { position: row.batch_position, size: row.batch_size },
  };
}

export function relayFromRow(row: RelayRow, transactions: RelayTransaction[]): RelayRecord {
  return {
    id: row.id,
    chainId: row.chain_id,
    quoteId: row.quote_id,
    onchainQuoteId: row.onchain_quote_id as Hex,
    integratorId: row.integrator_id,
    apiKeyId: row.api_key_id,
    idempotencyKey: row.idempotency_key ?? undefined,
    taker: getAddress(row.taker),
    router: getAddress(row.router),
    data: row.data as Hex,
    signature: row.signature as Hex,
    permit2Nonce: BigInt(row.permit2_nonce),
    deadline: BigInt(row.deadline),
    estimatedGas: row.estimated_gas,
    feeWei: row.fee_wei === null ? undefined : BigInt(row.fee_wei),
    acceptedBlock: BigInt(row.accepted_block),
    createdAt: new Date(row.created_at),
    status: row.status,
    reason: (row.reason ?? undefined) as RelayReason | undefined,
    error: row.error ?? undefined,
    signer: row.signer === null ? undefined : getAddress(row.signer),
    signerNonce: row.signer_nonce ?? undefined,
    cancelling: row.cancelling === 1,
    cancelRequestedAt: row.cancel_requested_at === null || row.cancel_requested_at === undefined ? undefined : new Date(Number(row.cancel_requested_at)),
    claimedBy: row.claimed_by ?? undefined,
    leaseUntil: row.lease_until === null ? undefined : new Date(row.lease_until),
    transactions,
    updatedAt: new Date(row.updated_at),
  };
}

/** Which relay a query's match is: the same idempotency key (unless it names another quote), else the same quote. */
export function matchOutcome(
  query: { chainId: number; quoteId: string; signature: Hex },
  byKey: RelayRow | undefined,
  byQuote: RelayRow | undefined,
): { outcome: "existing" | "idempotency_conflict" | "quote_conflict"; row: RelayRow } | undefined {
  if (byKey !== undefined) {
    const sameQuote = byKey.chain_id === query.chainId && byKey.quote_id === query.quoteId;
    return { outcome: sameQuote ? "existing" : "idempotency_conflict", row: byKey };
  }
  if (byQuote === undefined) return undefined;
  return { outcome: byQuote.signature === query.signature.toLowerCase() ? "existing" : "quote_conflict", row: byQuote };
}

/**
 * The fence of `recordBroadcast`: undefined (go ahead) when the relay is unclaimed, or `fence.owner`
 * claimed it and its lease runs past `fence.now`; otherwise why not. Both engines decide with this one
 * rule inside their transaction.
 */
export function leaseRefusal(row: Pick<RelayRow, "claimed_by" | "lease_until">, fence: BroadcastFence): LeaseRefusal | undefined {
  if (row.claimed_by === null) return undefined;
  if (row.claimed_by !== fence.owner) return "not_ours";
  return row.lease_until !== null && row.lease_until > fence.now.getTime() ? undefined : "lapsed";
}

/**
 * The second fence of `recordBroadcast`: nothing more is sent for a final relay (one cancelled before
 * its first broadcast, say), and no swap once its cancellation was asked (only the cancel's bumps).
 */
export function endedRefusal(row: Pick<RelayRow, "status" | "cancel_requested_at">, kind: RelayTransaction["kind"]): "ended" | undefined {
  if (isFinalRelayStatus(row.status)) return "ended";
  return kind === "swap" && row.cancel_requested_at !== null ? "ended" : undefined;
}

/**
 * What a cancellation request does to a relay in this state (see `RelayStore.requestCancellation`).
 * `broadcast`: a transaction of it is on record, from any relayer (one that died included). Such a
 * relay is in flight even with no signer of its own now (taken over, or its nonce went elsewhere):
 * the recorded swap may still be in a mempool and mine, so only the chain can end it.
 */
export function cancellationDecision(row: Pick<RelayRow, "status" | "signer">, broadcast: boolean): CancellationDecision {
  if (isFinalRelayStatus(row.status)) return "final";
  return row.signer === null && !broadcast ? "cancelled" : "cancelling";
}

/** The error text of a relay cancelled before anything of it was in flight. */
export const CANCELLED_UNSENT = "cancelled by the integrator before the swap was broadcast";

/**
 * Whether a batch member's row is still what the batch was built from (`recordBatchBroadcast`):
 * undefined to go ahead, else why not. Both engines decide with this one rule inside their transaction.
 */
export function batchMemberRefusal(row: Pick<RelayRow, "claimed_by" | "lease_until" | "status" | "signer" | "signer_nonce" | "cancel_requested_at">, expect: BatchExpectation, fence: BroadcastFence, kind: RelayTransaction["kind"]): BatchRefusal | undefined {
  const lease = leaseRefusal(row, fence);
  if (lease !== undefined) return lease;
  // A relay whose cancellation was asked joins no batch swap, first or replacement: the rebuild leaves
  // it out (a cancel that frees the batch's nonce is still recorded on it).
  if (kind === "swap" && row.cancel_requested_at !== null) return "changed";
  if (expect.kind === "unsent") return (row.status === "accepted" || row.status === "submitted") && row.signer === null ? undefined : "changed";
  return row.status === "submitted" && row.signer === expect.signer.toLowerCase() && row.signer_nonce === expect.nonce ? undefined : "changed";
}


