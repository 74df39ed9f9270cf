import type { Address, Hex } from "viem";
import type { RelayCancelOutcome } from "./relayCancelOutcome";
import type { RelayReason, RelayStatus } from "./relayStatus";

/**
 * What the API hands the relayer once a gasless submission passed validation (the relayer's
 * internal `POST /internal/relays`): the signed transaction's target and calldata and everything
 * the relayer re-checks before each broadcast. JSON on the wire, so numbers travel as strings.
 */
export type RelayRequestJson = {
  chain_id: number;
  quote_id: string;
  /** The bytes32 quote id of the witness, which the fill's SwapSettled event carries. */
  onchain_quote_id: Hex;
  integrator_id: number;
  api_key_id: number;
  idempotency_key: string | null;
  taker: Address;
  /** The feature-3 router, `tx.to`. */
  router: Address;
  /** `tx.data` with the taker's signature patched in. */
  data: Hex;
  signature: Hex;
  permit2_nonce: string;
  /** Unix seconds: the order's on-chain deadline. */
  deadline: string;
  estimated_gas: number;
  /**
   * Decimal wei: what the signed relayer fee was worth when quoted, i.e. the gas limit's cost at the
   * quoted gas price with the margin. Null when the operator sponsors gas (no fee is asked).
   */
  fee_wei: string | null;
};

/**
 * One gas budget of the unpaid-gas ledger: gas the operator paid with no fee that this taker or
 * integrator caused in the last `window_hours`, against its budget. Spent at `charged_gas >=
 * budget_gas`; then gasless quotes (and, for an integrator, cancels of broadcast swaps) are refused
 * until `frees_at` (ISO time: when enough of the oldest charges have left the window), null when not spent.
 */
export type GasBudgetJson = { budget_gas: number; charged_gas: number; remaining_gas: number; spent: boolean; frees_at: string | null };

/** A taker's and an integrator's gas budgets (the relayer's `GET /internal/gasless-standing`). */
export type GaslessStandingJson = {
  /** The window budgets cover, in hours (24: a rolling day). */
  window_hours: number;
  taker: { address: Address } & GasBudgetJson;
  integrator: { integrator_id: number } & GasBudgetJson;
};

/** An integrator's gas budget and the budget each of its takers has (the relayer's `GET /internal/gas-budget`). */
export type IntegratorGasBudgetJson = {
  window_hours: number;
  /** Every taker's own budget, in gas per window. */
  taker_budget_gas: number;
  integrator: { integrator_id: number } & GasBudgetJson;
};

/** One transaction broadcast for a relay. */
export type RelayTransactionJson = {
  hash: Hex;
  /** `swap` carries the order; `cancel` is a zero-value self-transfer that frees the signer's nonce. */
  kind: "swap" | "cancel";
  signer: Address;
  nonce: number;
  max_fee_per_gas: string;
  max_priority_fee_per_gas: string;
  sent_at: string;
  /** This hash is the one that was mined for the relay (ours, or a copier's fill). */
  mined: boolean;
  /** A batch transaction (`swapGaslessBatch`, or a cancel replacing one): the relay's position in it (from 0) and its size; null for a transaction of its own. */
  batch?: RelayBatchSlotJson | null;
};

export type RelayBatchSlotJson = { position: number; size: number };

/** The batch transaction that carries a relay (the mined one once there is one, else the latest), with the relay's place in it. */
export type RelayBatchJson = { tx_hash: Hex; position: number; size: number };

/** A relay as `POST /gasless/submit` and `GET /gasless/status/{relay_id}` return it. */
export type RelayJson = {
  relay_id: string;
  quote_id: string;
  status: RelayStatus;
  chain_id: number;
  tx_hash: Hex | null;
  error: string | null;
  reason: RelayReason | null;
  transactions: RelayTransactionJson[];
  /** When the integrator asked to cancel it (`POST /gasless/cancel/{relay_id}`), else null. */
  cancel_requested_at: string | null;
  /** Set when the relay went out in a batch transaction (additive; absent from older relayers). */
  batch?: RelayBatchJson | null;
  created_at: string;
  updated_at: string;
};

/** The relayer's internal view adds who owns the relay, which the API checks before showing it. */
export type InternalRelayJson = RelayJson & { integrator_id: number; idempotency_key: string | null; signature: Hex };

/** The relayer's answer to a hand-off: the relay, and whether this call created it. */
export type RelayHandoffResult =
  | { outcome: "created" | "existing"; relay: InternalRelayJson }
  | { outcome: "idempotency_conflict"; relay: InternalRelayJson }
  | { outcome: "quote_conflict"; relay: InternalRelayJson };

/**
 * The transaction the taker's own wallet sends to kill the order's signature on chain: Permit2's
 * `invalidateUnorderedNonces(wordPos, mask)` for the order's nonce, from the taker, with no value.
 */
export type InvalidateNonceJson = {
  chain_id: number;
  /** The taker: only the signer's own call spends its nonce. */
  from: Address;
  /** Permit2. */
  to: Address;
  data: Hex;
  value: "0";
  /** Decimal: the order's Permit2 nonce that the call spends. */
  permit2_nonce: string;
};

/** The answer of `POST /gasless/cancel/{relay_id}` (200). */
export type RelayCancellationJson = {
  outcome: RelayCancelOutcome;
  relay: RelayJson;
  invalidate_nonce: InvalidateNonceJson;
};

/**
 * The relayer's answer to `POST /internal/relays/:id/cancel`: the outcome (`final`, with 409, when the
 * relay had already ended), the relay, and what the API needs to build the invalidation.
 */
export type InternalRelayCancellationJson = {
  outcome: RelayCancelOutcome | "final";
  relay: InternalRelayJson;
  taker: Address;
  permit2_nonce: string;
};
