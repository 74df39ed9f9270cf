import type { Address, Hex, LocalAccount } from "viem";
import { keccak256, TransactionReceiptNotFoundError } from "viem";
import type { RelayContext } from "../queue/relayContext";
import { SPEND_WINDOW_MS } from "../signing/signerSpend";
import type { TopUpRecord, TopUpRecorded } from "../store/relayStore";
import { TRANSFER_GAS } from "../signing/signingRules";
import { errorSummary } from "../../sdk/errors/errorSummary";
import type { SigningHealth } from "../signing/signingHealth";

/** Why the store's atomic check refused a top-up this treasury had just decided on, for its log line. */
const REFUSAL_REASONS: Record<Extract<TopUpRecorded, { refused: string }>["refused"], string> = {
  unfinished: "the signer has an unfinished top-up (another relayer's, written since this one looked)",
  nonce: "another top-up holds the treasury's nonce",
  cap: "the daily cap (RELAYER_TREASURY_DAILY_CAP_ETH) was spent since this one looked",
};

/**
 * The treasury key (RELAYER_TREASURY_SIGNER) topping signers up to RELAYER_TOPUP_TARGET_ETH within
 * RELAYER_TREASURY_DAILY_CAP_ETH. Each top-up is signed, then recorded as an intent WITH its signed
 * bytes, then sent: after a crash the same bytes are sent again (same nonce, same hash), never a second
 * transfer, so a crash cannot pay twice. One top-up per signer is unfinished at a time. The treasury
 * sends rarely, so its nonce is read from the chain (pending) at each top-up. Its key backend's health
 * is followed as a signer's is (signingHealth.ts): failing, it tries no top-up, a probe at each check
 * finds out when it signs again, and `/ready` and `relayer_treasury_signing_failing` say so.
 */
export class Treasury {
  /** Signers the daily cap holds back, warned about once. */
  readonly #capped = new Set<Address>();
  /** Whether the last check logged the backend as failing. */
  #reportedFailing = false;
  /** Signers whose top-up the signing policy refused, warned about once while it lasts. */
  readonly #unsigned = new Set<Address>();

  constructor(
    private readonly context: RelayContext,
    private readonly account: LocalAccount,
    private readonly settings: Readonly<{ targetWei: bigint; dailyCapWei: bigint }>,
    /** The outcome of the treasury key's last signature; `account` records into it. */
    readonly signing: SigningHealth,
  ) {}

  get address(): Address {
    return this.account.address;
  }

  /** The treasury key's balance now; also set on relayer_treasury_balance_wei. */
  async readBalance(): Promise<bigint> {
    const balance = await this.context.client.getBalance({ address: this.account.address });
    this.context.metrics?.treasuryBalance.set(Number(balance));
    return balance;
  }

  /** What this treasury key's top-ups not failed add up to over the last rolling day, in wei. */
  async spentToday(): Promise<bigint> {
    const recent = await this.context.store.topUps({ since: this.#windowStart(), limit: 100_000 });
    const spent = recent.filter((topUp) => topUp.treasury.toLowerCase() === this.account.address.toLowerCase() && topUp.status !== "failed").reduce((total, topUp) => total + topUp.amountWei, 0n);
    this.context.metrics?.treasuryDailySpend.set(Number(spent));
    return spent;
  }

  /**
   * Finishes what a previous check or run left: a top-up whose transaction is mined is marked so (or
   * failed if it reverted); one not mined has its same signed bytes sent again; one whose nonce the
   * treasury has passed without it is marked failed (another transaction took the nonce).
   */
  async settle(): Promise<void> {
    const { store, logger } = this.context;
    await this.#checkSigning();
    // Read at each check for their gauges, so the treasury's alerts see a balance running down and a
    // day's top-ups ageing out even when no top-up is due; a failed read only leaves a gauge as it was.
    await Promise.all([this.readBalance(), this.spentToday()]).catch((error: unknown) =>
      logger.warn({ treasury: this.address, err: errorSummary(error) }, "treasury balance or daily spend could not be read; read again at the next upkeep"),
    );
    for (const topUp of await store.unfinishedTopUps()) {
      // A read that fails decides nothing: the top-up waits for the next check as it is.
      await this.#settleOne(topUp).catch((error: unknown) =>
        logger.warn({ signer: topUp.signer, hash: topUp.txHash, err: errorSummary(error) }, "treasury top-up could not be checked; it is checked again at the next upkeep"),
      );
    }
  }

  /** A backend that failed its last signature is probed, then its state reported (#reportSigning). */
  async #checkSigning(): Promise<void> {
    if (this.signing.failing) await this.signing.probe();
    this.#reportSigning();
  }

  /** The backend's state on its gauge; a change logged once (warn when it starts failing, info when it signs again). */
  #reportSigning(): void {
    const { logger, metrics } = this.context;
    metrics?.treasurySigningFailing.set(this.signing.failing ? 1 : 0);
    if (this.signing.failing === this.#reportedFailing) return;
    this.#reportedFailing = this.signing.failing;
    if (this.signing.failing) logger.warn({ treasury: this.address, err: this.signing.failure?.error }, "treasury key's backend fails to sign; no top-ups until a probe signs (at each signer check)");
    else logger.info({ treasury: this.address }, "treasury key's backend signs again; top-ups resume");
  }

  async #settleOne(topUp: TopUpRecord): Promise<void> {
    const { client, store, logger } = this.context;
    // The nonce is read before the receipt: a nonce past the top-up's with no receipt after it means
    // another transaction took the nonce, never that the receipt was not yet visible.
    const mined = await client.getTransactionCount({ address: topUp.treasury, blockTag: "latest" });
    const receipt = await client.getTransactionReceipt({ hash: topUp.txHash }).catch((error: unknown) => {
      if (error instanceof TransactionReceiptNotFoundError) return undefined;
      throw error;
    });
    if (receipt !== undefined) {
      const status = receipt.status === "success" ? "mined" : "failed";
      await store.setTopUpStatus(topUp.id, status, this.context.now());
      this.context.metrics?.treasuryTopUps.inc({ status });
      logger.info({ signer: topUp.signer, amount: topUp.amountWei.toString(), hash: topUp.txHash, status }, "treasury top-up final");
      return;
    }
    if (mined > topUp.nonce) {
      await store.setTopUpStatus(topUp.id, "failed", this.context.now());
      this.context.metrics?.treasuryTopUps.inc({ status: "failed" });
      logger.warn({ signer: topUp.signer, hash: topUp.txHash, nonce: topUp.nonce }, "treasury top-up lost its nonce to another transaction; marked failed");
      return;
    }
    await this.#send(topUp);
  }

  /** Tops `signer` up towards the target, unless one is unfinished for it or the day's cap is spent. */
  async topUp(signer: Address, balance: bigint): Promise<void> {
    const { client, config, store, logger } = this.context;
    // Its failure is logged once by the check; the probe there finds out when it signs again.
    if (this.signing.failing) return;
    if ((await store.unfinishedTopUps()).some((topUp) => topUp.signer === signer)) return;
    const wanted = this.settings.targetWei - balance;
    if (wanted <= 0n) return;
    const left = this.settings.dailyCapWei - (await this.spentToday());
    let amount = wanted < config.maxValuePerTxWei ? wanted : config.maxValuePerTxWei;
    if (left < amount) amount = left;
    if (amount <= 0n) {
      this.context.metrics?.treasuryTopUps.inc({ status: "capped" });
      // One warn per signer while the cap holds it back, not one per upkeep.
      if (!this.#capped.has(signer)) logger.warn({ signer, balance: balance.toString(), wanted: wanted.toString(), cap: this.settings.dailyCapWei.toString() }, "treasury daily cap (RELAYER_TREASURY_DAILY_CAP_ETH) reached; no top-up for this signer");
      this.#capped.add(signer);
      return;
    }
    this.#capped.delete(signer);
    const nonce = await client.getTransactionCount({ address: this.account.address, blockTag: "pending" });
    const fees = await client.estimateFeesPerGas();
    const maxFeePerGas = fees.maxFeePerGas < config.maxFeeWei ? fees.maxFeePerGas : config.maxFeeWei;
    const tip = fees.maxPriorityFeePerGas < maxFeePerGas ? fees.maxPriorityFeePerGas : maxFeePerGas;
    let rawTx: Hex;
    try {
      rawTx = await this.account.signTransaction({ chainId: config.chainId, type: "eip1559", to: signer, value: amount, gas: TRANSFER_GAS, nonce, maxFeePerGas, maxPriorityFeePerGas: tip });
    } catch (error) {
      // Nothing was recorded or sent. A backend failure is now in `signing`: reported once, and probed
      // from the next check on. A policy refusal (logged and counted where it was made) is logged here
      // once per signer while it lasts.
      if (this.signing.failing) this.#reportSigning();
      else if (!this.#unsigned.has(signer)) logger.warn({ signer, treasury: this.address, err: errorSummary(error) }, "treasury top-up not signed; tried again at each check");
      if (!this.signing.failing) this.#unsigned.add(signer);
      return;
    }
    this.#unsigned.delete(signer);
    const intent = { signer, treasury: this.account.address, amountWei: amount, nonce, rawTx, txHash: keccak256(rawTx) };
    // Checked again where it is written, atomically: another relayer sharing this treasury may have topped
    // this signer up, taken this nonce or spent the cap since the reads above. Then the bytes are dropped unsent.
    const recorded = await store.recordTopUp(intent, this.context.now(), { capWei: this.settings.dailyCapWei, since: this.#windowStart() });
    if ("refused" in recorded) {
      if (recorded.refused === "cap") this.context.metrics?.treasuryTopUps.inc({ status: "capped" });
      logger.info({ signer, amount: amount.toString(), nonce, refused: recorded.refused }, `treasury top-up not recorded: ${REFUSAL_REASONS[recorded.refused]}; checked again at the next upkeep`);
      return;
    }
    const { id } = recorded;
    logger.info({ signer, amount: amount.toString(), nonce, hash: intent.txHash }, "treasury top-up recorded; sending it");
    await this.#send({ ...intent, id, status: "intent", createdAt: this.context.now(), updatedAt: this.context.now() });
  }

  /** The start of the rolling day the cap counts over. */
  #windowStart(): Date {
    return new Date(this.context.now().getTime() - SPEND_WINDOW_MS);
  }

  /** Sends a recorded top-up's signed bytes; an answer lost or refused leaves it for the next settle. */
  async #send(topUp: TopUpRecord): Promise<void> {
    try {
      await this.context.client.sendRawTransaction({ serializedTransaction: topUp.rawTx });
    } catch (error) {
      // "already known" and the like: the bytes are with the node; anything else is retried at the next check.
      this.context.logger.warn({ signer: topUp.signer, hash: topUp.txHash, err: errorSummary(error) }, "treasury top-up send failed; retried with the same bytes at the next check");
      return;
    }
    if (topUp.status === "intent") {
      await this.context.store.setTopUpStatus(topUp.id, "sent", this.context.now());
      this.context.metrics?.treasuryTopUps.inc({ status: "sent" });
    }
  }
}
