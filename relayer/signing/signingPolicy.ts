import type { Logger } from "pino";
import type { Address, TransactionSerializable } from "viem";
import type { Counter } from "prom-client";
import type { SignerSpend } from "./signerSpend";
import { judgeTransaction, worstCaseCost, type SigningPurpose, type SigningRefusalReason } from "./signingRules";
import { SigningRefusedError } from "./signingRefusedError";

export type SigningPolicyLimits = Readonly<{
  chainId: number;
  /** The highest maxFeePerGas signed (RELAYER_MAX_FEE_GWEI, plus the one bump a cancel may take past it). */
  maxFeePerGas: bigint;
  /** RELAYER_MAX_VALUE_PER_TX_ETH in wei. */
  maxValue: bigint;
}>;

/**
 * The signing policy of one relayer, applied to every signature whatever asked for it (relayer code,
 * a bug, a compromised dependency above the signer): the rules of `judgeTransaction`, against the
 * registry's routers as last read and the relayer's own signers, then the signer's daily spend cap.
 * A refusal is logged at warn, counted (relayer_signing_refusals_total{signer, reason}) and thrown as
 * SigningRefusedError; nothing is signed.
 */
export class SigningPolicy {
  readonly #ownSigners: Set<string>;
  /** Signers retired and let go: they sign nothing until opened again. */
  readonly #letGo = new Set<string>();

  constructor(
    private readonly limits: SigningPolicyLimits,
    private readonly routers: () => ReadonlySet<string>,
    ownSigners: readonly Address[],
    private readonly logger: Logger,
    private readonly refusals?: Counter<"signer" | "reason">,
    private readonly now: () => number = Date.now,
  ) {
    this.#ownSigners = new Set(ownSigners.map((signer) => signer.toLowerCase()));
  }

  /** A signer opened while the relayer runs: its self-transfers and top-ups to it are allowed. */
  addSigner(signer: Address): void {
    this.#ownSigners.add(signer.toLowerCase());
    this.#letGo.delete(signer.toLowerCase());
  }

  /** A signer retired and let go: nothing more is signed by it (signer_let_go) or sent to it as a top-up. */
  removeSigner(signer: Address): void {
    this.#ownSigners.delete(signer.toLowerCase());
    this.#letGo.add(signer.toLowerCase());
  }

  /** Allows the transaction (and counts its cost against the signer's day) or throws SigningRefusedError. */
  authorize(signer: Address, transaction: TransactionSerializable, state: { nextNonce: number; spend: SignerSpend }): SigningPurpose {
    // A key let go may still be reached by work that began before (a reconciliation, a bump): it signs nothing more.
    if (this.#letGo.has(signer.toLowerCase())) this.#refuse(signer, transaction, "signer_let_go", "this relayer let the signer go (retired by the operator, or its address taken by another relayer)");
    const verdict = judgeTransaction(transaction, {
      signer,
      chainId: this.limits.chainId,
      ownSigners: this.#ownSigners,
      routers: this.routers(),
      nextNonce: state.nextNonce,
      maxFeePerGas: this.limits.maxFeePerGas,
      maxValue: this.limits.maxValue,
    });
    if (!verdict.allowed) this.#refuse(signer, transaction, verdict.reason, verdict.detail);
    else if (!state.spend.admit(transaction.nonce ?? -1, worstCaseCost(transaction), this.now(), verdict.purpose === "self_transfer")) {
      this.#refuse(signer, transaction, "daily_spend_cap", `the signer's daily spend cap of ${state.spend.capWei} wei would be passed`);
    }
    return verdict.allowed ? verdict.purpose : "router_call";
  }

  #refuse(signer: Address, transaction: TransactionSerializable, reason: SigningRefusalReason, detail: string): never {
    this.refusals?.inc({ signer, reason });
    this.logger.warn({ signer, reason, detail, to: transaction.to, nonce: transaction.nonce, value: (transaction.value ?? 0n).toString() }, "signing policy refused a transaction");
    throw new SigningRefusedError(signer, reason, detail);
  }
}
