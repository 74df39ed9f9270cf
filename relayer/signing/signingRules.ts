import type { Address, TransactionSerializable } from "viem";

/** What a signature the policy allows is for. */
export type SigningPurpose = "router_call" | "self_transfer" | "top_up";

/** Why the policy refused a signature (the `reason` label of relayer_signing_refusals_total). */
export type SigningRefusalReason =
  | "wrong_chain"
  | "not_eip1559"
  | "no_gas_limit"
  | "fee_above_ceiling"
  | "value_above_cap"
  | "contract_creation"
  | "transfer_to_stranger"
  | "call_to_unlisted_contract"
  | "value_to_router"
  | "self_transfer_not_cancel"
  | "self_transfer_foreign_nonce"
  | "top_up_not_plain"
  | "daily_spend_cap"
  | "signer_let_go";

export type SigningVerdict = { allowed: true; purpose: SigningPurpose } | { allowed: false; reason: SigningRefusalReason; detail: string };

/** What the rules judge a transaction against, all read at the moment of signing. */
export type SigningFacts = Readonly<{
  signer: Address;
  chainId: number;
  /** Lowercase addresses of the relayer's own signers (top-ups go only to them). */
  ownSigners: ReadonlySet<string>;
  /** Lowercase addresses of the registry's current and previous gasless (feature 3) routers. */
  routers: ReadonlySet<string>;
  /** The signer's next unallocated nonce: a self-transfer must reuse one below it (cancel, gap fill). */
  nextNonce: number;
  /** The highest maxFeePerGas signed, in wei. */
  maxFeePerGas: bigint;
  /** The highest value one transaction may carry, in wei. */
  maxValue: bigint;
}>;

/** A plain transfer's gas: enough for nothing but moving ETH, so its cost is known before it is signed (self-transfers and top-ups carry exactly this). */
export const TRANSFER_GAS = 21_000n;

const refuse = (reason: SigningRefusalReason, detail: string): SigningVerdict => ({ allowed: false, reason, detail });

/**
 * The signing policy's rules over one transaction (issue 34, "A signing policy"): the relayer signs
 * only a call carrying no value to the registry's current or previous gasless router, a zero-value
 * self-transfer of 21,000 gas at one of its own allocated nonces (a cancel, a nonce-gap fill), and a
 * plain transfer of at most `maxValue` to one of its own signers (a top-up); always EIP-1559 on its
 * chain, with a gas limit, and at most `maxFeePerGas`. Pure: the daily spend cap is judged apart,
 * with the ledger (SignerSpend).
 */
export function judgeTransaction(transaction: TransactionSerializable, facts: SigningFacts): SigningVerdict {
  if (transaction.chainId !== facts.chainId) return refuse("wrong_chain", `chain ${transaction.chainId ?? "none"} is not ${facts.chainId}`);
  if (transaction.type !== "eip1559" || transaction.maxFeePerGas === undefined || transaction.maxPriorityFeePerGas === undefined) return refuse("not_eip1559", "only EIP-1559 transactions with both fees are signed");
  if (transaction.gas === undefined || transaction.gas <= 0n) return refuse("no_gas_limit", "a transaction without a gas limit has no bounded cost");
  if (transaction.maxFeePerGas > facts.maxFeePerGas || transaction.maxPriorityFeePerGas > transaction.maxFeePerGas) {
    return refuse("fee_above_ceiling", `maxFeePerGas ${transaction.maxFeePerGas} is above the ceiling ${facts.maxFeePerGas} (or its tip above it)`);
  }
  const value = transaction.value ?? 0n;
  if (value > facts.maxValue) return refuse("value_above_cap", `value ${value} is above the per-transaction cap ${facts.maxValue}`);
  const to = transaction.to?.toLowerCase();
  if (to === undefined || to === null) return refuse("contract_creation", "the relayer deploys nothing");
  const data = transaction.data ?? "0x";
  const plain = data === "0x" && transaction.gas === TRANSFER_GAS;
  if (to === facts.signer.toLowerCase()) {
    if (value !== 0n || !plain) return refuse("self_transfer_not_cancel", "a self-transfer carries no value, no data and 21,000 gas");
    if (transaction.nonce === undefined || transaction.nonce >= facts.nextNonce) return refuse("self_transfer_foreign_nonce", `nonce ${transaction.nonce ?? "none"} is not one the relayer allocated (next ${facts.nextNonce})`);
    return { allowed: true, purpose: "self_transfer" };
  }
  if (facts.routers.has(to)) {
    if (value !== 0n) return refuse("value_to_router", "a relayed swap carries no ETH from the relayer");
    return { allowed: true, purpose: "router_call" };
  }
  if (facts.ownSigners.has(to)) {
    if (!plain || value === 0n) return refuse("top_up_not_plain", "a top-up is a plain transfer of ETH (no data, 21,000 gas)");
    return { allowed: true, purpose: "top_up" };
  }
  return data === "0x" ? refuse("transfer_to_stranger", `${transaction.to} is not one of the relayer's signers`) : refuse("call_to_unlisted_contract", `${transaction.to} is not the registry's current or previous gasless router`);
}

/** The most a transaction can cost its signer: every unit of gas at its max fee, plus its value. */
export function worstCaseCost(transaction: TransactionSerializable): bigint {
  return (transaction.gas ?? 0n) * (transaction.maxFeePerGas ?? transaction.gasPrice ?? 0n) + (transaction.value ?? 0n);
}
