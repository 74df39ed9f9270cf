import type { InternalRelayJson, RelayJson } from "../../sdk";
import type { RelayRecord } from "../store/relayStore";

/** A relay as the API shows it (`POST /gasless/submit`, `GET /gasless/status/{relay_id}`). */
export function relayJson(relay: RelayRecord): RelayJson {
  const latest = relay.transactions.filter((transaction) => transaction.kind === "swap").at(-1);
  const mined = relay.transactions.find((transaction) => transaction.mined);
  return {
    relay_id: relay.id,
    quote_id: relay.quoteId,
    status: relay.status,
    chain_id: relay.chainId,
    // The mined transaction once there is one; before that the latest swap attempt.
    tx_hash: mined?.hash ?? latest?.hash ?? null,
    error: relay.error ?? null,
    reason: relay.reason ?? null,
    transactions: relay.transactions.map((transaction) => ({
      hash: transaction.hash,
      kind: transaction.kind,
      signer: transaction.signer,
      nonce: transaction.nonce,
      max_fee_per_gas: transaction.maxFeePerGas.toString(),
      max_priority_fee_per_gas: transaction.maxPriorityFeePerGas.toString(),
      sent_at: transaction.sentAt.toISOString(),
      mined: transaction.mined,
      batch: transaction.batch === undefined ? null : { position: transaction.batch.position, size: transaction.batch.size },
    })),
    cancel_requested_at: relay.cancelRequestedAt?.toISOString() ?? null,
    batch: batchJson(relay),
    created_at: relay.createdAt.toISOString(),
    updated_at: relay.updatedAt.toISOString(),
  };
}

/** The relay's batch transaction: the mined one if it was a batch, else the latest swap if it is one. */
function batchJson(relay: RelayRecord): RelayJson["batch"] {
  const swaps = relay.transactions.filter((transaction) => transaction.kind === "swap");
  const mined = swaps.find((transaction) => transaction.mined);
  const carrying = mined ?? swaps.at(-1);
  if (carrying?.batch === undefined) return null;
  return { tx_hash: carrying.hash, position: carrying.batch.position, size: carrying.batch.size };
}

export function internalRelayJson(relay: RelayRecord): InternalRelayJson {
  return { ...relayJson(relay), integrator_id: relay.integratorId, idempotency_key: relay.idempotencyKey ?? null, signature: relay.signature };
}
